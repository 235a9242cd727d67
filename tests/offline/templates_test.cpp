// The templates (offline/src/templates.cpp) are one source of truth with the IDLs they bind:
// every instruction kind lists exactly its IDL's accounts in order, every instruction of the
// vault program has a kind, and every builder action has a template.
#include <set>

#include <gtest/gtest.h>

#include <airlock/formats/actions.h>
#include <airlock/offline/idl.h>
#include <airlock/offline/templates.h>

namespace airlock::offline {
namespace {

const IdlInstruction* instruction_in(const Idl& idl, std::string_view name) {
  for (const auto& ix : idl.instructions) {
    if (ix.name == name) return &ix;
  }
  return nullptr;
}

TEST(TemplatesTest, EveryKindListsItsIdlAccountsInOrder) {
  const auto vault = load_idl_file(std::string(AIRLOCK_IDL_DIR) + "/airlock_vault.json").value();
  const auto venue =
      load_idl_file(std::string(AIRLOCK_IDL_DIR) + "/airlock_perp_venue.json").value();
  std::set<std::string> covered;
  for (int i = 0; i < kInstructionKindCount; ++i) {
    const auto kind = static_cast<InstructionKind>(i);
    const Idl& idl = kind == InstructionKind::kVenueOnboard ? venue : vault;
    const IdlInstruction* ix = instruction_in(idl, instruction_name(kind));
    ASSERT_NE(ix, nullptr) << instruction_name(kind) << " is in no IDL";
    std::vector<std::string_view> idl_accounts;
    for (const auto& a : ix->accounts) idl_accounts.push_back(a.name);
    EXPECT_EQ(template_accounts(kind), idl_accounts) << instruction_name(kind);
    if (&idl == &vault) covered.insert(ix->name);
  }
  for (const auto& ix : vault.instructions)
    EXPECT_EQ(covered.count(ix.name), 1U) << ix.name << " has no template";
}

TEST(TemplatesTest, EveryBuilderActionHasATemplate) {
  std::set<std::string_view> names;
  for (int i = 0; i < kActionCount; ++i) {
    const auto action = static_cast<Action>(i);
    ASSERT_EQ(parse_action(action_name(action)), action);
    names.insert(action_name(action));
  }
  EXPECT_EQ(names.size(), 28U);
  for (const std::string_view name : kBuilderActions)
    EXPECT_TRUE(parse_action(name).has_value()) << name;
  EXPECT_FALSE(parse_action("dlmm/teleport").has_value());
}

}  // namespace
}  // namespace airlock::offline
