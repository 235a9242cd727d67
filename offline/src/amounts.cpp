#include <algorithm>

#include <airlock/offline/amounts.h>
#include <airlock/offline/arguments.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

// The key the body gives at the first of `pointers` it has, or nullopt.
std::optional<PublicKey> body_key(const ojson& body, const std::vector<std::string>& pointers) {
  for (const auto& pointer : pointers) {
    const ojson* v = body_at(body, pointer);
    if (v == nullptr) continue;
    if (!v->is_string()) return std::nullopt;
    auto key = public_key_from_base58(v->get<std::string>());
    return key.ok() ? std::optional<PublicKey>(*key) : std::nullopt;
  }
  return std::nullopt;
}

// The unit account's key, by its source: a body field, or the online half's one pool hint for
// a pool the chain checks against it.
std::optional<PublicKey> unit_key(const DescribedInstruction& ix, const AmountUnit& unit,
                                  const ojson& body, const std::vector<PublicKey>& hinted_pools) {
  const DescribedAccount* account = ix.account(unit.account);
  if (account == nullptr) return std::nullopt;
  const AccountSource& source = account->source;
  if (source.kind == AccountSource::Kind::kBody) return body_key(body, source.pointers);
  if (source.kind == AccountSource::Kind::kChecked && source.pool_hint &&
      unit.side != AmountUnit::Side::kKey) {
    if (hinted_pools.size() == 1) return hinted_pools.front();
  }
  return std::nullopt;
}

// The variant an enum argument takes from the body by its rule, or "" when none says.
std::string body_variant(const DescribedInstruction& ix, const std::string& argument,
                         const ojson& body) {
  for (const auto& arg : ix.args) {
    if (arg.name != argument || arg.rule.kind != ArgumentRule::Kind::kVariant) continue;
    const ojson* v = body_at(body, arg.rule.pointer);
    if (v == nullptr || !v->is_string()) return "";
    for (const auto& [word, variant] : arg.rule.variants) {
      if (word == v->get<std::string>()) return variant;
    }
  }
  return "";
}

// The body pointers an amount's argument is held to: an equal field (the first the body has),
// each element's field of a body list, or the body total a ranged step rule shares.
std::vector<std::string> body_pointers(const DescribedInstruction& ix,
                                       const DescribedAction& action, const std::string& path,
                                       const ojson& body) {
  const auto dot = path.find('.');
  const std::string argument = path.substr(0, dot);
  for (const auto& arg : ix.args) {
    if (arg.name == path && arg.rule.kind == ArgumentRule::Kind::kEquals) {
      for (const auto& pointer : arg.rule.pointers) {
        if (body_at(body, pointer) != nullptr) return {pointer};
      }
    }
    if (arg.name != argument || dot == std::string::npos ||
        arg.rule.kind != ArgumentRule::Kind::kEach)
      continue;
    const ojson* list = body_at(body, arg.rule.pointer);
    const auto field = std::find_if(arg.rule.fields.begin(), arg.rule.fields.end(),
                                    [&](const auto& f) { return f.first == path.substr(dot + 1); });
    if (list == nullptr || !list->is_array() || field == arg.rule.fields.end()) return {};
    std::vector<std::string> out;
    for (std::size_t k = 0; k < list->size(); ++k)
      out.push_back(arg.rule.pointer + "/" + std::to_string(k) + field->second);
    return out;
  }
  for (const auto& [shared, total] : action.steps.shares) {
    if (shared == path) return {"/" + total};
  }
  return {};
}

// Whether each unit account of the amount at `path` has a source that binds it (anything but
// unconstrained): a unit read from the transaction labels the body only then.
bool unit_bound(const DescribedInstruction& ix, const std::string& path) {
  const auto a = std::find_if(ix.amounts.begin(), ix.amounts.end(),
                              [&](const DescribedAmount& d) { return d.path == path; });
  if (a == ix.amounts.end()) return false;
  return std::all_of(a->units.begin(), a->units.end(), [&](const auto& unit) {
    const DescribedAccount* account = ix.account(unit.second.account);
    return account != nullptr && account->source.kind != AccountSource::Kind::kUnconstrained;
  });
}

}  // namespace

std::vector<BodyAmount> body_amounts(const Descriptor& descriptor, const DescribedAction& action,
                                     const ojson& body,
                                     const std::vector<PublicKey>& hinted_pools) {
  std::vector<BodyAmount> out;
  if (!body.is_object()) return out;
  for (const auto& key : action.instructions) {
    const DescribedInstruction* ix = descriptor.instruction(key);
    if (ix == nullptr) continue;
    for (const auto& a : ix->amounts) {
      const std::string variant = a.by.empty() ? "" : body_variant(*ix, a.by, body);
      const auto unit = std::find_if(a.units.begin(), a.units.end(),
                                     [&](const auto& u) { return u.first == variant; });
      if (unit == a.units.end()) continue;
      const auto key_of_unit = unit_key(*ix, unit->second, body, hinted_pools);
      if (!key_of_unit) continue;
      for (auto& pointer : body_pointers(*ix, action, a.path, body)) {
        const bool known = std::any_of(out.begin(), out.end(),
                                       [&](const BodyAmount& b) { return b.pointer == pointer; });
        if (!known) out.push_back({std::move(pointer), *key_of_unit, unit->second.side});
      }
    }
  }
  return out;
}

void add_stated_units(const Descriptor& descriptor, const DescribedAction& action,
                      const ojson& body, const std::vector<StepReview>& steps,
                      std::vector<BodyAmount>& amounts) {
  if (!body.is_object()) return;
  for (const auto& s : steps) {
    const Message& m = s.tx.message;
    for (const auto& a : s.amounts) {
      if (a.instruction >= s.instructions.size() || a.instruction >= m.instructions.size() ||
          !s.instructions[a.instruction])
        continue;
      const std::size_t program = m.instructions[a.instruction].program_index;
      if (program >= m.static_keys.size()) continue;
      const DescribedInstruction* ix = descriptor.step_instruction(
          action, m.static_keys[program], s.instructions[a.instruction]->instruction);
      if (ix == nullptr || !unit_bound(*ix, a.path)) continue;
      for (auto& pointer : body_pointers(*ix, action, a.path, body)) {
        const bool known = std::any_of(amounts.begin(), amounts.end(),
                                       [&](const BodyAmount& b) { return b.pointer == pointer; });
        if (!known) amounts.push_back({std::move(pointer), a.mint_or_pool, a.side});
      }
    }
  }
}

std::vector<BodySwap> body_swaps(const Descriptor& descriptor, const DescribedAction& action,
                                 const ojson& body) {
  std::vector<BodySwap> out;
  if (!body.is_object()) return out;
  for (const auto& key : action.instructions) {
    const DescribedInstruction* ix = descriptor.instruction(key);
    if (ix == nullptr || ix->sells.empty()) continue;
    const auto mint = [&](const std::string& account) -> std::optional<PublicKey> {
      const DescribedAccount* a = ix->account(account);
      if (a == nullptr || a->source.kind != AccountSource::Kind::kBody) return std::nullopt;
      return body_key(body, a->source.pointers);
    };
    out.push_back({ix->instruction, mint(ix->sells), mint(ix->buys)});
  }
  return out;
}

}  // namespace airlock::offline
