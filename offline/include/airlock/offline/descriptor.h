// Descriptors: what a program's actions may produce, as reviewed data (docs/descriptors.md).
//
// A descriptor is a JSON file for one program (the vault program a manager key signs for) and
// the programs it calls: their ids and the IDLs that decode them, by SHA-256; for each
// instruction a step may hold, where every one of its accounts comes from; for each action the
// instructions a step may hold, how many steps it builds and which follow-ups it may announce,
// and one sentence the operator reads. The one generic binder (templates.h) interprets it.
//
// Parsing is strict: unknown keys, duplicate keys, a wrong type, an unknown program or account
// name are load errors naming the path ("instructions.aggregator_swap.accounts.strategy:
// ..."). Checking it against its IDLs (check_descriptor) is exhaustive: every account of every
// instruction an action may produce has a source, and a source may only name accounts the
// instruction has. A policy pins each descriptor and each IDL by SHA-256 (docs/policy.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/offline/findings.h>
#include <airlock/offline/idl.h>

namespace airlock::offline {

namespace errors {
// A descriptor that breaks its format or does not fit its IDLs: refused as a whole.
inline constexpr ErrorCode kDescriptorInvalid{ErrorKind::kCorruption, "descriptor.invalid"};
// A descriptor or IDL whose SHA-256 is not the one the policy pins, or one it does not pin.
inline constexpr ErrorCode kDescriptorUnpinned{ErrorKind::kRefused, "descriptor.unpinned"};
}  // namespace errors

inline constexpr int kDescriptorVersion = 1;
inline constexpr std::size_t kMaxDescriptorFileBytes = 1 << 20;

// JSON text parsed as descriptors and IDLs must be: RFC 8259 with no key twice in one object
// (a reviewer reads the first, a parser might keep the last). Errors name the key.
// As nlohmann::ordered_json (descriptors) or nlohmann::json (IDLs, build request bodies),
// parsed once either way.
template <class Json>
[[nodiscard]] Result<Json> parse_strict_json(std::string_view text, std::string_view what);
extern template Result<nlohmann::ordered_json> parse_strict_json(std::string_view,
                                                                 std::string_view);
extern template Result<nlohmann::json> parse_strict_json(std::string_view, std::string_view);

// One seed of a program-derived address: constant text or an account's key.
struct SeedSource {
  enum class Kind { kConst, kAccount };
  Kind kind = Kind::kConst;
  Bytes bytes;          // kConst
  std::string account;  // kAccount: an account name of the same instruction
};

// A term of an integer computed from the instruction's arguments: an argument (a dotted path
// into the decoded arguments) or a constant. A bin is the sum of its terms.
struct IntegerTerm {
  std::vector<std::string> arg;  // empty: the constant
  std::int64_t constant = 0;
};

struct Derivation {
  enum class Kind { kPda, kAssociatedToken, kBinArray };
  Kind kind = Kind::kPda;
  PublicKey program;                       // kPda, kBinArray: the program deriving it
  std::vector<SeedSource> seeds;           // kPda
  std::string owner, mint, token_program;  // kAssociatedToken: account names
  std::string pool;                        // kBinArray (DLMM's): the pool's account name
  std::vector<IntegerTerm> bin;            // kBinArray: the bin, a sum of terms
};

// Where one account of an instruction comes from.
struct AccountSource {
  enum class Kind {
    kVault,          // the request's vault
    kManager,        // this machine's key
    kProgram,        // a fixed program (`program`, `label`)
    kTokenProgram,   // SPL Token or Token-2022 (the chain checks the mint's own)
    kBody,           // a key field of the manager's build request (`pointers`, first present)
    kDerived,        // one of `any_of`, computed here; `text` says what it is
    kNewSigner,      // a new account made for the step, signed by the builder
    kNewVault,       // vault/initialize: a new signer that is the request's vault
    kChecked,        // the chain refuses any other value; `text` says why
    kPolicyMarket,   // the perp market the policy pins for the body's symbol
    kCosigner,       // another party's co-signature, left empty for it; `text` says whose
    kUnconstrained,  // anything but the vault's own, a signer or the manager; `text` says why
  };
  Kind kind = Kind::kVault;
  PublicKey program;
  std::string label;
  std::vector<std::string> pointers;
  std::vector<Derivation> any_of;
  std::string text;
  bool pool_hint = false;  // kChecked: the online half's pool hint must name it
};

// How one argument of an instruction (or one field of it, by a dotted path through the IDL's
// types: "update.deposit_cap") is held to the request (docs/descriptors.md, "Argument rules").
// Body fields are JSON pointers into the manager's build request.
struct ArgumentRule {
  enum class Kind {
    kEquals,         // equal to a body field: integers as numbers, bytes as hex
    kAtMost,         // at most a body field (a slippage the manager allows)
    kWithin,         // an integer within the body's range [lower, upper], and not before `from`
    kVariant,        // an enum whose variant the body's value maps to
    kEach,           // a list, element by element equal to a body list (or empty for `all`)
    kShown,          // bound to nothing: shown with the reason and asked
    kUnconstrained,  // any value is what the manager asked: shown with the reason
    kChecker,        // held by a named checker (checkers.h)
  };
  Kind kind = Kind::kEquals;
  std::string pointer;  // kAtMost, kVariant, kEach: the body field
  // kEquals: the body field, or several, of which the first the body has counts (one
  // instruction serving actions whose bodies name the value differently)
  std::vector<std::string> pointers;
  bool absent_is_none = false;  // kEquals: a body without the field asks for an absent option
  // kEquals, kAtMost: the policy's ceiling for the action the value may not pass too
  // ("max_slippage_bps" or "max_active_bin_slippage"); empty for none.
  std::string ceiling;
  std::string lower, upper, from;  // kWithin (from: optional)
  bool if_given = false;           // kWithin: a body without the range holds nothing
  std::vector<std::pair<std::string, std::string>> variants;  // kVariant: body value -> variant
  // kEach: element field -> pointer inside the body's element; `all`: a body string meaning
  // "every one", which the argument's empty list stands for.
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<const FindingCode*> field_codes;  // kEach: per field, nullptr for the rule's
  std::string all;
  std::string reason;   // kShown, kUnconstrained
  std::string checker;  // kChecker
  // The finding a rule makes when it does not hold ("refuses": an intent.* code, "warns" for
  // kShown: a warn.* code); nullptr for the rule's default (intent.argument, intent.slippage
  // for kAtMost, intent.bins for kWithin, warn.unbound_argument).
  const FindingCode* code = nullptr;
};

struct DescribedArgument {
  std::string name;  // the IDL's argument, or a dotted path to a field of it
  ArgumentRule rule;
};

// Whose units an amount is in: the key of one of the instruction's accounts (a mint), or the
// token X or Y of the pool one of its accounts is (by the policy's pools or the online half's
// hints), chosen by an enum argument's variant where the token depends on it.
struct AmountUnit {
  std::string account;
  enum class Side { kKey, kTokenX, kTokenY } side = Side::kKey;
};
struct DescribedAmount {
  std::string path;  // an argument, or "list.field"
  std::string by;    // "" or the enum argument whose variant picks the unit
  std::vector<std::pair<std::string, AmountUnit>> units;  // variant ("" without `by`) -> unit
  std::string moves;  // where it goes, for the decision screen ("" for the details only)
};

struct DescribedAccount {
  std::string name;  // the IDL's
  AccountSource source;
};

// One instruction a step may hold, its accounts in the IDL's order (filled by
// check_descriptor; before it, in the file's order).
struct DescribedInstruction {
  std::string key;      // the descriptor's name for it
  std::string program;  // a name of `programs`
  PublicKey program_id;
  std::string instruction;  // the IDL's instruction name
  std::vector<DescribedAccount> accounts;
  std::vector<std::string> mints;  // accounts that are mints the step's vault accounts are for
  // "" (none allowed) or a named checker: "jupiter_route" (a Jupiter route's pools),
  // "adaptor_accounts" (accounts passed through to another program: none signs, none is the
  // manager, the vault or one of the vault's own)
  std::string remaining;
  // A swap's two mint accounts, the token it sells and the one it buys: the price rule holds
  // what the route guarantees against the policy's floor for that pair (prices.h). Required
  // with remaining "jupiter_route"; empty otherwise.
  std::string sells, buys;
  // A rule for every argument, or for every field of a struct argument (check_descriptor).
  std::vector<DescribedArgument> args;
  // The token amounts it moves, for the screens (the rules above bind them): a u64 argument,
  // or a field of each element of a list ("bins.amount", summed), in its mint's units.
  std::vector<DescribedAmount> amounts;
  // Which of those amounts leave the vault's own accounts, for the policy's token limits (and
  // the audit log's outflows): empty, it moves nothing out; nullopt, the descriptor does not
  // say, so under any token limit its step is refused rather than counted as nothing.
  std::optional<std::vector<std::string>> outflows;

  [[nodiscard]] const DescribedAccount* account(std::string_view name) const;
};

// How many steps an action builds: exactly one, or a ranged batch, one step per run of at most
// `max_bins` bins, the runs tiling the requested range (bin tiling, bins.h's rules).
struct StepRule {
  bool ranged = false;
  std::vector<std::string> lower, upper;  // the step's first and last bin: argument paths
  std::size_t max_bins = 0;
  // The body's range (integer fields): its first and last bin, whether the last is one past
  // the range, and the bin a resumed build starts from.
  std::string body_lower, body_upper, body_resume;
  bool body_upper_exclusive = false;
  // Each step's deposit within its bins' share of the body's total, and the steps' deposits
  // adding up to the total (to at most the share left, for a resumed build): argument -> body
  // field.
  std::vector<std::pair<std::string, std::string>> shares;
  bool cover = false;  // the steps cover exactly the body's range (from the resume bin)
  // A pool with an active bin (Meteora DLMM: token X goes to the active bin and above it, Y to
  // it and below): the argument path stating the active bin, one for every step of a batch,
  // and the shared arguments deposited above and below it. A step may then also take its
  // bins' share of the bins on that token's side. Empty `active`: shares by bin count only.
  std::vector<std::string> active;
  std::string above, below;
};

struct DescribedAction {
  std::string name;                            // the API's action name ("aggregator/swap")
  std::string reads;                           // one sentence for the operator
  std::vector<std::string> instructions;       // keys of DescribedInstruction; one per step
  std::vector<std::size_t> instruction_index;  // the same, as indexes into the descriptor's
  StepRule steps;
  std::vector<std::string> follow_ups;
  // Instructions that only prepare the action: a step holding one must announce the follow-up
  // named (a swap's step that only sets up its strategy is followed by the swap). Instruction
  // key -> action.
  std::vector<std::pair<std::string, std::string>> then;
};

// An address of the vault's own that no account another party chooses may be (a route's pool,
// an adaptor's passed-through account, anything `checked` or `unconstrained`): a program-derived
// address of constants, the vault, and one mint or one holding (a position, order or strategy)
// the request, the policy or the hints name; or the associated token accounts, for each mint
// and under SPL Token and Token-2022, of an earlier own address for the vault or for a holding. The
// vault itself, its token accounts and the holdings are the vault's own under every program
// (vault_addresses.cpp).
struct OwnAddress {
  // kHoldingMint: token accounts of an address for each holding, for each mint
  enum class For { kVault, kMint, kHolding, kHoldingMint };
  std::string name;  // optional: how a later `ata` names it
  std::string what;  // "the vault's perp strategy"; for a mint or holding, its key follows
  For subject = For::kVault;
  Derivation pda;  // the pda: its account seeds are "vault", "mint" or "holding"
  // The associated token accounts instead, of own_addresses[*ata_owner]: one for the vault
  // alone (its token accounts for each mint), one for each mint (its token accounts for that
  // mint), or one for each holding (for each holding and mint).
  std::optional<std::size_t> ata_owner;
};

struct PinnedFile {
  std::string file;  // a file name in the IDL folder
  Hash sha256{};
};

struct DescribedProgram {
  std::string name;
  PublicKey id;
  std::string label;
  std::vector<PinnedFile> idls;
};

struct Descriptor {
  std::string name;
  std::string about;
  Hash sha256{};        // of the file's bytes
  std::string program;  // the name of the program the manager's key acts on
  std::vector<DescribedProgram> programs;
  // Sources for an account name any instruction may have, where it gives none of its own.
  std::vector<DescribedAccount> defaults;
  std::vector<DescribedInstruction> instructions;
  std::vector<DescribedAction> actions;
  std::vector<OwnAddress> own_addresses;

  [[nodiscard]] const DescribedAccount* default_for(std::string_view name) const;
  [[nodiscard]] const DescribedProgram* program_named(std::string_view name) const;
  [[nodiscard]] const DescribedProgram* program_of(const PublicKey& id) const;
  [[nodiscard]] const DescribedInstruction* instruction(std::string_view key) const;
  [[nodiscard]] const DescribedAction* action(std::string_view name) const;
  // The instruction of `program` named `name` in its IDL that `action` may hold, or nullptr.
  [[nodiscard]] const DescribedInstruction* step_instruction(const DescribedAction& action,
                                                             const PublicKey& program,
                                                             std::string_view name) const;
};

// Parses a descriptor's text (its SHA-256 is taken over exactly these bytes).
[[nodiscard]] Result<Descriptor> parse_descriptor(std::string_view text);
[[nodiscard]] Result<Descriptor> load_descriptor_file(const std::string& path);

// Holds a descriptor against the IDLs of its programs: every instruction exists in its
// program's IDL, every account of it has a source (its own or a default the descriptor gives),
// no source names an account the instruction lacks, every argument a derivation reads exists,
// and every action names described instructions and known follow-ups. Orders each
// instruction's accounts as the IDL does. `idls` holds the parsed IDLs by program id.
[[nodiscard]] Status check_descriptor(Descriptor& descriptor,
                                      const std::map<PublicKey, std::vector<Idl>>& idls);

}  // namespace airlock::offline
