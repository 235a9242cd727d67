// airlock-offline descriptor check: a descriptor held against its IDLs as sign would hold it,
// every account of every instruction an action may produce shown with its source, and the
// policy entry that would pin the files as they are. A person reviews this output before
// pinning: a descriptor is what the key will sign (docs/descriptors.md).
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <airlock/cli/cli.h>
#include <airlock/cli/options.h>
#include <airlock/common/display.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>

#include "shared.h"

namespace offline_cli {
namespace {

using airlock::Error;
using airlock::ErrorCode;
using airlock::offline::AccountSource;
using airlock::offline::Derivation;

std::string derivation_text(const Derivation& d) {
  switch (d.kind) {
    case Derivation::Kind::kPda: {
      std::string seeds;
      for (const auto& s : d.seeds) {
        seeds += seeds.empty() ? "" : ", ";
        seeds += s.kind == airlock::offline::SeedSource::Kind::kConst
                     ? "\"" + std::string(s.bytes.begin(), s.bytes.end()) + "\""
                     : s.account;
      }
      return "address of " + airlock::to_base58(d.program) + " from [" + seeds + "]";
    }
    case Derivation::Kind::kAssociatedToken:
      return "token account of " + d.owner + " for " + d.mint + " under " + d.token_program;
    case Derivation::Kind::kBinArray: {
      std::string bin;
      for (const auto& t : d.bin) {
        std::string path;
        for (const auto& p : t.arg) path += (path.empty() ? "" : ".") + p;
        bin += (bin.empty() ? "" : " + ") + (t.arg.empty() ? std::to_string(t.constant) : path);
      }
      return "bin array of " + d.pool + " holding bin " + bin;
    }
  }
  return "";
}

std::string source_text(const AccountSource& s) {
  using K = AccountSource::Kind;
  switch (s.kind) {
    case K::kVault:
      return "the request's vault";
    case K::kManager:
      return "the manager (this machine's key)";
    case K::kProgram:
      return "program " + s.label + " (" + airlock::to_base58(s.program) + ")";
    case K::kTokenProgram:
      return "SPL Token or Token-2022";
    case K::kBody: {
      std::string fields;
      for (const auto& p : s.pointers) fields += (fields.empty() ? "" : " or ") + p;
      return "the build request's " + fields;
    }
    case K::kDerived: {
      std::string any;
      for (const auto& d : s.any_of) any += (any.empty() ? "" : " | ") + derivation_text(d);
      return "derived: " + s.text + " = " + any;
    }
    case K::kNewSigner:
      return "a new account signed by the builder";
    case K::kNewVault:
      return "the new vault, signed by the builder";
    case K::kChecked:
      return "checked on chain: " + s.text + (s.pool_hint ? " (and named by a pool hint)" : "");
    case K::kPolicyMarket:
      return "the market the policy pins for the body's symbol";
    case K::kCosigner:
      return "co-signer: " + s.text;
    case K::kUnconstrained:
      return "unconstrained (never the vault's own, a signer or the manager): " + s.text;
  }
  return "";
}

std::string join_pointers(const std::vector<std::string>& pointers) {
  std::string out;
  for (const auto& p : pointers) out += (out.empty() ? "" : " or ") + p;
  return out;
}

// Every kind of rule in words: a reviewer who reads "bound to nothing" must be reading the truth.
std::string rule_text(const airlock::offline::ArgumentRule& r) {
  using K = airlock::offline::ArgumentRule::Kind;
  std::string text;
  switch (r.kind) {
    case K::kEquals:
      text = "equals the build request's " + join_pointers(r.pointers) +
             (r.absent_is_none ? " (absent there: none)" : "");
      break;
    case K::kAtMost:
      text = "at most the build request's " + r.pointer;
      break;
    case K::kWithin:
      text = "within the build request's " + r.lower + " .. " + r.upper +
             (r.from.empty() ? "" : ", from " + r.from) +
             (r.if_given ? " (where the request gives a range)" : "");
      break;
    case K::kVariant: {
      std::string map;
      for (const auto& [value, variant] : r.variants)
        map += (map.empty() ? "" : ", ") + value + " -> " + variant;
      text = "the variant the build request's " + r.pointer + " names (" + map + ")";
      break;
    }
    case K::kEach: {
      std::string fields;
      for (const auto& [field, pointer] : r.fields)
        fields += (fields.empty() ? "" : ", ") + field + " = " + pointer;
      text = "each entry equal to the build request's " + r.pointer + " (" + fields + ")" +
             (r.all.empty() ? "" : "; empty for \"" + r.all + "\"");
      break;
    }
    case K::kShown:
      text = "shown, bound to nothing (asked): " + r.reason;
      break;
    case K::kUnconstrained:
      text = "any value is the manager's: " + r.reason;
      break;
    case K::kChecker:
      text = "held by the named checker " + r.checker;
      break;
  }
  if (!r.ceiling.empty()) text += "; at most the policy's " + r.ceiling;
  if (r.code != nullptr) text += "; else " + std::string(r.code->name());
  return text;
}

void print_own(const airlock::offline::Descriptor& d) {
  if (d.own_addresses.empty()) {
    std::cout << "\nthe vault's own addresses: its token accounts and holdings only\n";
    return;
  }
  std::cout << "\nthe vault's own addresses (never another party's choice), beyond its token "
               "accounts and holdings:\n";
  for (const auto& own : d.own_addresses) {
    using For = airlock::offline::OwnAddress::For;
    const std::string per = own.subject == For::kMint          ? ", for each mint"
                            : own.subject == For::kHolding     ? ", for each holding"
                            : own.subject == For::kHoldingMint ? ", for each holding and mint"
                                                               : "";
    std::cout << "  " << own.what << ": "
              << (own.ata_owner ? "token accounts of " + d.own_addresses[*own.ata_owner].what
                                : derivation_text(own.pda))
              << per << "\n";
  }
}

void print(const airlock::offline::Descriptor& d) {
  std::cout << "descriptor " << d.name << " (format " << airlock::offline::kDescriptorVersion
            << "), SHA-256 " << airlock::to_hex(d.sha256.view()) << "\n";
  if (!d.about.empty()) std::cout << "  " << d.about << "\n";
  std::size_t accounts = 0;
  for (const auto& ix : d.instructions) accounts += ix.accounts.size();
  std::cout << "  " << d.actions.size() << " actions, " << d.instructions.size()
            << " instructions, " << accounts << " accounts: every account has a source\n";
  for (const auto& p : d.programs) {
    std::cout << "  program " << p.name << ": " << p.label << " (" << airlock::to_base58(p.id)
              << ")";
    for (const auto& idl : p.idls)
      std::cout << "; IDL " << idl.file << " " << airlock::to_hex(idl.sha256.view());
    std::cout << "\n";
  }
  for (const auto& a : d.actions) {
    std::cout << "\naction " << a.name << ": " << a.reads << "\n";
    std::cout << "  steps: "
              << (a.steps.ranged ? "a ranged batch, at most " + std::to_string(a.steps.max_bins) +
                                       " bins a step"
                                 : std::string("exactly one"));
    if (!a.follow_ups.empty()) {
      std::cout << "; may announce";
      for (const auto& f : a.follow_ups) std::cout << " " << f;
    }
    std::cout << "\n";
    for (const auto& key : a.instructions) {
      const auto* ix = d.instruction(key);
      std::cout << "  instruction " << ix->instruction << " of " << ix->program << ":\n";
      for (const auto& account : ix->accounts)
        std::cout << "    " << account.name << ": " << source_text(account.source) << "\n";
      for (const auto& arg : ix->args)
        std::cout << "    argument " << arg.name << ": " << rule_text(arg.rule) << "\n";
      if (ix->args.empty()) std::cout << "    arguments: none\n";
      for (const auto& m : ix->mints) std::cout << "    mint account: " << m << "\n";
      if (!ix->remaining.empty())
        std::cout << "    further accounts: read by the named checker " << ix->remaining << "\n";
    }
  }
  print_own(d);
}

}  // namespace

int run_descriptor(const std::vector<std::string>& args) {
  std::optional<std::string> action, file, policy;
  std::string idl_dir = default_idl_dir();
  po::options_description options(
      "usage: airlock-offline descriptor check DESCRIPTOR [--idl-dir DIR] [--policy FILE]\n\n"
      "Holds a descriptor against the IDLs it names, as sign does: every account of every\n"
      "instruction an action may produce must have a source, every source may name only the\n"
      "instruction's own accounts and integer arguments, and each IDL must have the SHA-256 the\n"
      "descriptor gives. Prints every action with each account's source, then the [[descriptors]]\n"
      "entry that pins the files as they are now: review the first before pasting the second\n"
      "into the policy. With --policy, also checks that every action the policy names has a\n"
      "template here and says whether the policy pins these exact files. Exit 0 when it holds,\n"
      "1 when it does not (stderr names the action, instruction and account).\n\noptions");
  options.add_options()("help,h", "show this help")(
      "idl-dir", po::value<std::string>(&idl_dir)->default_value(idl_dir),
      "folder of the IDL files the descriptor names")(
      "policy", airlock::cli::optional_value(&policy), "a policy to hold the descriptor against");
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {{"action", &action}, {"DESCRIPTOR", &file}},
                           code))
    return code;
  if (action.value_or("") != "check" || !file)
    return report(Error(ErrorCode::kUsage, "usage: descriptor check DESCRIPTOR"));
  std::optional<airlock::offline::Policy> pinned_by;
  if (policy) {
    auto loaded = airlock::offline::load_policy_file(*policy);
    if (!loaded.ok()) return report(loaded.error());
    pinned_by = std::move(*loaded);
  }
  airlock::offline::DecoderRegistry registry;
  auto checked = airlock::offline::check_descriptor_files(*file, idl_dir, registry);
  if (!checked.ok()) return report(checked.error());
  print(checked->descriptor);
  std::cout << "\nThe policy entry that pins these files as they are now:\n\n" << checked->pin_toml;
  if (!pinned_by) return airlock::cli::kExitOk;
  bool holds = true;
  for (const auto& [name, rule] : pinned_by->actions) {
    if (rule.allowed && name != airlock::offline::kKeystoneAction &&
        checked->descriptor.action(name) == nullptr) {
      std::cerr << "airlock-offline: the policy allows " << name
                << ", which this descriptor has no template for\n";
      holds = false;
    }
  }
  bool pinned = false;
  for (const auto& pin : pinned_by->descriptors)
    pinned = pinned || pin.sha256 == checked->descriptor.sha256;
  std::cout << "\nThe policy " << (pinned ? "pins" : "does not pin")
            << " this descriptor as it is.\n";
  return holds ? airlock::cli::kExitOk : airlock::cli::kExitRejected;
}

}  // namespace offline_cli
