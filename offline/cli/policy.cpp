// airlock-offline policy check: a policy read as sign reads it, before it is used. Every rule
// of the file (docs/policy.md) is checked when it loads, the descriptors and IDLs it pins are
// held against their hashes, and what the policy will do is said in words: what it allows,
// what signs without asking, what warns on every request, and the SHA-256 an approval is given
// under (docs/approvals.md).
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <airlock/cli/cli.h>
#include <airlock/cli/options.h>
#include <airlock/common/display.h>
#include <airlock/formats/actions.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/signing.h>

#include "shared.h"

namespace offline_cli {
namespace {

using airlock::Error;
using airlock::ErrorCode;

// What a policy that loads may still do that its author may not mean: each is said.
std::vector<std::string> cautions(const airlock::offline::Policy& p) {
  std::vector<std::string> out;
  if (p.vaults.empty() && !p.allow_vault_initialize)
    out.push_back("no vault: every request is refused (policy.vault_not_allowed)");
  if (p.descriptors.empty())
    out.push_back("no [[descriptors]]: every builder action is refused (policy.descriptor)");
  if (p.max_priority_fee_lamports == 0)
    out.push_back(
        "max_priority_fee_lamports is 0: any request with a priority fee is refused (the API's "
        "builds set one)");
  if (p.allow_unverified_lookup_tables)
    out.push_back(
        "allow_unverified_lookup_tables: a request loading an unpinned table warns, so it is "
        "never auto-approved nor signed under an approval; pin the tables you use instead");
  if (p.allow_durable_nonce)
    out.push_back("allow_durable_nonce: a durable-nonce transaction never expires once signed");
  if (p.allow_vault_initialize)
    out.push_back("allow_vault_initialize: vault/initialize may name a vault not in `vaults`");
  // A slippage ceiling on some actions reads as a policy on slippage: each allowed action with
  // a slippage of the same kind and no ceiling of its own is named, since its slippage is then
  // whatever the request asks (up to the API's cap).
  for (const auto kind :
       {airlock::offline::SlippageKind::kBps, airlock::offline::SlippageKind::kBins}) {
    const bool bps = kind == airlock::offline::SlippageKind::kBps;
    std::string capped, uncapped;
    for (const auto name : airlock::kBuilderActions) {
      if (airlock::offline::slippage_kind(name) != kind) continue;
      const auto rule = p.rule(name);
      if (!rule.allowed) continue;
      const bool has =
          bps ? rule.max_slippage_bps.has_value() : rule.max_active_bin_slippage.has_value();
      (has ? capped : uncapped) += (has ? capped : uncapped).empty() ? "" : ", ";
      (has ? capped : uncapped) += name;
    }
    if (!capped.empty() && !uncapped.empty())
      out.push_back(std::string(bps ? "max_slippage_bps" : "max_active_bin_slippage") +
                    " is set for " + capped + " but not for " + uncapped +
                    ", which are allowed: their slippage is whatever the request asks");
  }
  // A swapping action marked auto_approve signs without asking only the pairs a floor prices.
  std::string swapping;
  for (const auto name : airlock::kBuilderActions) {
    const auto rule = p.rule(name);
    if (airlock::offline::slippage_kind(name) == airlock::offline::SlippageKind::kBps &&
        rule.allowed && rule.auto_approve)
      swapping += (swapping.empty() ? "" : ", ") + std::string(name);
  }
  if (!swapping.empty())
    out.push_back(swapping + (p.price_floors.empty()
                                  ? " auto-approve, but no [[price_floors]] prices a pair: every "
                                    "swap of them asks (warn.unpriced)"
                                  : " auto-approve only swaps of the pairs [[price_floors]] "
                                    "prices; any other pair asks (warn.unpriced)"));
  return out;
}

void print(const airlock::offline::Policy& p) {
  std::cout << "manager   " << airlock::to_base58(p.manager) << "\n";
  for (const auto& v : p.vaults) std::cout << "vault     " << airlock::to_base58(v) << "\n";
  std::cout << "programs  " << p.programs.size() << " named in `programs`\n"
            << "tables    " << p.pinned_tables.size() << " lookup table(s) pinned\n"
            << "tokens    " << p.tokens.size() << " pinned, pools " << p.pools.size()
            << " pinned, perp markets " << p.markets.size() << " pinned\n"
            << "fee cap   " << p.max_priority_fee_lamports << " lamports of priority fee a step\n";
  for (const auto& floor : p.price_floors) {
    std::cout << "price     selling " << floor.sells.symbol << " for " << floor.buys.symbol
              << ": at least " << floor.text << " " << floor.buys.symbol << " per "
              << floor.sells.symbol << "\n";
  }
  for (const auto& [name, rule] : p.actions) {
    std::cout << "action    " << airlock::printable(name) << ": "
              << (!rule.allowed       ? "refused"
                  : rule.auto_approve ? "signs without asking under --auto-approve when nothing "
                                        "warns"
                                      : "asks");
    if (rule.max_slippage_bps)
      std::cout << ", slippage at most " << *rule.max_slippage_bps << " bps";
    if (rule.max_active_bin_slippage)
      std::cout << ", active-bin slippage at most " << *rule.max_active_bin_slippage << " bins";
    std::cout << "\n";
  }
  // An action without a section is allowed and asks (docs/policy.md): said, so the lines above
  // are not read as all the policy allows.
  std::size_t others = 0;
  for (const auto name : airlock::kBuilderActions) {
    if (p.actions.count(name) == 0) ++others;
  }
  if (others > 0)
    std::cout << "action    the " << others << " other builder action(s), with no section of "
              << "their own: allowed, and each asks\n";
  std::cout << "limits    "
            << (p.limits.any() ? "set: sign needs a log begun by log start" : "none") << "\n";
}

}  // namespace

int run_policy(const std::vector<std::string>& args) {
  std::optional<std::string> action, file;
  std::string idl_dir = default_idl_dir();
  std::string descriptor_dir = default_descriptor_dir();
  po::options_description options(
      "usage: airlock-offline policy check POLICY [--idl-dir DIR] [--descriptor-dir DIR]\n\n"
      "Reads a policy as sign reads it: every key and rule of docs/policy.md (an unknown key, a\n"
      "wrong type, a bad key or a ceiling on an action without that slippage is refused by\n"
      "name), and every descriptor and IDL it pins held against its SHA-256. Then says what it\n"
      "allows, what it signs without asking, what it refuses or warns about on every request,\n"
      "and its SHA-256 (the hash an approval is given under: a changed policy voids every\n"
      "approval). Exit 0 when it loads; 2 when a key or rule is wrong (policy.invalid), 1 when a\n"
      "pinned file does not match its hash (stderr names the key and the rule).\n"
      "\noptions");
  options.add_options()("help,h", "show this help")(
      "idl-dir", po::value<std::string>(&idl_dir)->default_value(idl_dir),
      "folder of the IDL files the pinned descriptors name")(
      "descriptor-dir", po::value<std::string>(&descriptor_dir)->default_value(descriptor_dir),
      "folder of the pinned descriptor files");
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {{"action", &action}, {"POLICY", &file}}, code))
    return code;
  if (action.value_or("") != "check" || !file)
    return report(Error(ErrorCode::kUsage, "usage: policy check POLICY"));
  auto policy = airlock::offline::load_policy_file(*file);
  if (!policy.ok()) return report(policy.error());
  airlock::offline::DecoderRegistry decoders;
  if (auto s =
          airlock::offline::load_pinned_interfaces(*policy, {idl_dir, descriptor_dir}, decoders);
      !s.ok())
    return report(s.error());
  print(*policy);
  for (const auto& pin : policy->descriptors)
    std::cout << "pinned    " << airlock::printable(pin.file) << " and " << pin.idls.size()
              << " IDL(s): the files match their hashes\n";
  for (const auto& c : cautions(*policy)) std::cout << "caution   " << c << "\n";
  std::cout << "sha256    " << airlock::to_hex(airlock::offline::policy_hash(*policy).view())
            << " (of its canonical text: what approvals are given under)\n"
            << "The policy loads: sign would use it as it is.\n";
  return airlock::cli::kExitOk;
}

}  // namespace offline_cli
