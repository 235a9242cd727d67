#include "fuzz_targets.h"

#include <algorithm>
#include <string_view>

#include <nlohmann/json.hpp>

#include <airlock/common/accounts.h>
#include <airlock/common/shortvec.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/actions.h>
#include <airlock/formats/audit_record.h>
#include <airlock/formats/cbor.h>
#include <airlock/formats/dense.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/image.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/transfer.h>
#include <airlock/formats/ur.h>
#include <airlock/offline/descriptor.h>
#include <airlock/offline/idl.h>
#include <airlock/offline/inspect.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>
#include <airlock/offline/slip39.h>
#include <airlock/offline/summary.h>
#include <airlock/online/round.h>

#include "support/interfaces.h"

namespace airlock::fuzz {
namespace {

// A violated invariant is a bug: stop at once so the fuzzer saves the input.
void require(bool condition) {
  if (!condition) __builtin_trap();
}

ByteView view(const std::uint8_t* data, std::size_t size) { return {data, size}; }

}  // namespace

int shortvec(const std::uint8_t* data, std::size_t size) {
  auto decoded = decode_shortvec(view(data, size));
  if (decoded.ok()) {
    Bytes encoded;
    encode_shortvec(decoded->value, encoded);
    // Canonical: the accepted prefix is the one encoding of its value.
    require(encoded.size() == decoded->length);
    require(std::equal(encoded.begin(), encoded.end(), data));
  } else {
    require(!decoded.error().message().empty());
  }
  return 0;
}

int message(const std::uint8_t* data, std::size_t size) {
  auto parsed = parse_message(view(data, size));
  if (!parsed.ok()) return 0;
  const Bytes wire = serialize_message(*parsed);
  require(wire == Bytes(data, data + size));
  auto again = parse_message(wire);
  require(again.ok() && *again == *parsed);
  auto roles = account_roles(*parsed);
  require(roles.ok() && roles->size() == parsed->account_count());
  (void)durable_nonce(*parsed);
  return 0;
}

int transaction(const std::uint8_t* data, std::size_t size) {
  auto parsed = parse_transaction(view(data, size));
  if (!parsed.ok()) return 0;
  require(serialize_transaction(*parsed) == Bytes(data, data + size));
  require(parsed->signatures.size() == parsed->message.header.num_required_signatures);
  require(check_signatures(*parsed).size() == parsed->signatures.size());
  return 0;
}

int inspect_input(const std::uint8_t* data, std::size_t size) {
  for (auto encoding : {offline::InputEncoding::kBase64, offline::InputEncoding::kBinary}) {
    auto bytes = offline::decode_inspect_input(view(data, size), encoding);
    if (!bytes.ok()) continue;
    auto inspection = offline::inspect_bytes(*bytes, offline::InputKind::kAuto);
    if (!inspection.ok()) continue;
    require(!offline::inspection_to_json(*inspection).dump().empty());
    require(!offline::inspection_to_text(*inspection).empty());
  }
  return 0;
}

int cbor_value(const std::uint8_t* data, std::size_t size) {
  auto value = cbor::decode_strict(view(data, size), {4096, 8, 512});
  // Strict decoding accepts only the deterministic encoding, so it must re-encode exactly.
  if (value.ok()) require(cbor::encode(*value) == Bytes(data, data + size));
  return 0;
}

int sign_request(const std::uint8_t* data, std::size_t size) {
  auto request = envelope::decode_request(view(data, size));
  if (!request.ok()) return 0;
  const Bytes again = envelope::encode_request(*request);
  require(again == Bytes(data, data + size));
  auto twice = envelope::decode_request(again);
  require(twice.ok() && *twice == *request);
  return 0;
}

int sign_response(const std::uint8_t* data, std::size_t size) {
  auto response = envelope::decode_response(view(data, size));
  if (!response.ok()) return 0;
  require(envelope::encode_response(*response) == Bytes(data, data + size));
  return 0;
}

int keystone(const std::uint8_t* data, std::size_t size) {
  if (auto request = keystone::decode_sign_request(view(data, size)); request.ok()) {
    require(keystone::encode_sign_request(*request) == Bytes(data, data + size));
  }
  if (auto signature = keystone::decode_signature(view(data, size)); signature.ok()) {
    require(keystone::encode_signature(*signature) == Bytes(data, data + size));
  }
  return 0;
}

// Input: UR texts separated by newlines, fed to one decoder.
int ur_part(const std::uint8_t* data, std::size_t size) {
  ur::Decoder decoder;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    (void)decoder.receive(text.substr(start, end - start));
    start = end + 1;
  }
  if (decoder.complete()) require(!decoder.result().type.empty());
  return 0;
}

// Input: frames, each preceded by a one-byte length, fed to one decoder.
int dense_frame(const std::uint8_t* data, std::size_t size) {
  dense::Decoder decoder;
  std::size_t pos = 0;
  while (pos < size) {
    const std::size_t n = std::min<std::size_t>(data[pos], size - pos - 1);
    (void)decoder.receive(view(data + pos + 1, n));
    pos += 1 + n;
  }
  if (decoder.complete()) require(decoder.result().bytes.size() <= dense::kMaxPayloadBytes);
  return 0;
}

int png_image(const std::uint8_t* data, std::size_t size) {
  auto img = image::decode_png(view(data, size));
  if (img.ok()) {
    require(img->pixels.size() ==
            static_cast<std::size_t>(img->width) * static_cast<std::size_t>(img->height));
  }
  return 0;
}

// Input: any text, parsed as an IDL; when it parses, every instruction's discriminator decodes
// (or is refused) without harm.
int idl_file(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  PublicKey fallback;
  auto idl = offline::parse_idl(j, fallback);
  if (!idl.ok()) return 0;
  for (const auto& ix : idl->instructions) {
    Bytes probe = ix.discriminator;
    probe.insert(probe.end(), data, data + std::min<std::size_t>(size, 64));
    (void)offline::decode_instruction(*idl, probe);
  }
  return 0;
}

// Input: instruction data for the shipped vault and Jupiter IDLs.
int idl_decode(const std::uint8_t* data, std::size_t size) {
  static const offline::Idl vault =
      offline::load_idl_file(AIRLOCK_FUZZ_IDL_DIR "/airlock_vault.json").value();
  static const offline::Idl jupiter =
      offline::load_idl_file(AIRLOCK_FUZZ_IDL_DIR "/jupiter_v6.json").value();
  for (const offline::Idl* idl : {&vault, &jupiter}) {
    auto decoded = offline::decode_instruction(*idl, view(data, size));
    if (decoded.ok()) require(decoded->instruction != nullptr && !decoded->args.dump().empty());
  }
  return 0;
}

// Input: a keystore file's text. Only the header is read (no passphrase, no Argon2id): what
// `pubkey` and `sign` parse before asking for anything.
int keystore_file(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto info = offline::parse_keystore_info(text);
  if (info.ok()) {
    auto again = public_key_from_base58(to_base58(info->public_key));
    require(again.ok() && *again == info->public_key);
  }
  return 0;
}

// Input: a policy file (TOML). Parsing either yields a policy or names the key and the rule.
int policy_file(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto policy = offline::parse_policy(text);
  if (!policy.ok()) require(!policy.error().message().empty());
  return 0;
}

// Input: a build reply's JSON as the API (or anyone in between) might send it. The online half
// turns it into a sign request or refuses it by rule; it never crashes or throws.
int api_response(const std::uint8_t* data, std::size_t size) {
  const auto reply = nlohmann::json::parse(data, data + size, nullptr, false);
  if (reply.is_discarded()) return 0;
  const nlohmann::json body = {{"vault", "11111111111111111111111111111111"}};
  auto round = online::prepare_round("aggregator/swap", body, reply, std::nullopt, 1'700'000'000);
  if (round.ok()) require(round->request.steps.size() == round->transactions.size());
  return 0;
}

// Input: an address lookup table account's data, as getAccountInfo returns it from an RPC node.
int lookup_table_account(const std::uint8_t* data, std::size_t size) {
  auto table = parse_lookup_table_account(view(data, size));
  if (table.ok()) require(table->addresses.size() <= 256);
  return 0;
}

// Input: the QR payloads a camera reads, in order, each as a 2-byte little-endian length and its
// bytes: dense frames, UR parts of any type, restarts, strays. The receiver assembles content
// or refuses each code by name; it never crashes, and what it completes is what a transfer
// carries (issue 14: a foreign UR type once made it read freed memory).
int receive(const std::uint8_t* data, std::size_t size) {
  transfer::Receiver receiver;
  std::size_t at = 0;
  while (at + 2 <= size) {
    const std::size_t n = data[at] | static_cast<std::size_t>(data[at + 1]) << 8;
    at += 2;
    if (n > size - at) break;
    const auto status = receiver.receive(view(data + at, n));
    if (!status.ok()) require(!status.error().message().empty());
    require(receiver.fragments_known() <= receiver.fragments_total() || !receiver.complete());
    at += n;
  }
  if (receiver.complete()) require(!receiver.result().bytes.empty());
  return 0;
}

// SLIP-0039 shares, one a line: parsed one by one, and combined when every one parses and the
// set is cheap to decrypt (PBKDF2 doubles with each exponent step).
int slip39(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Each line as a share arrives: in secure memory (a SecretBytes keeps its memory when moved,
  // so the views stay good as the vector grows).
  std::vector<SecretBytes> held;
  std::vector<SecretText> shares;
  bool all_parse = true, cheap = true;
  for (std::size_t at = 0; at <= text.size() && shares.size() < 32;) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    auto copy = SecretBytes::copy_of(line);
    if (!copy.ok()) return 0;
    held.push_back(std::move(copy).value());
    shares.emplace_back(held.back());
    auto info = offline::slip39::inspect(shares.back());
    if (info.ok()) {
      require(info->words >= 20 && info->words <= 59);
      require(info->group_threshold >= 1 && info->group_threshold <= info->group_count);
      require(info->group_count <= 16 && info->member_threshold >= 1);
      require(info->member_threshold <= 16 && info->identifier < 0x8000);
      cheap = cheap && info->iteration_exponent <= 1;  // PBKDF2 doubles with each step
    } else {
      all_parse = false;
    }
    at = end + 1;
  }
  // Only sets that could get as far as decryption are combined, and only at low cost.
  if (all_parse && cheap) {
    auto secret = offline::slip39::combine(shares, {});
    if (secret.ok()) require(secret->size() >= 16 && secret->size() % 2 == 0);
  }
  return 0;
}

// Input: an exported audit log, as it arrives on the online machine (a file on a USB stick, or QR
// codes). It verifies, and then is exactly the lines its entries write, numbered in order and
// chained; or it is refused by rule.
int audit_export(const std::uint8_t* data, std::size_t size) {
  const std::string_view whole(reinterpret_cast<const char*>(data), size);
  // As reconcile reads it: an export's lines under its header, or a log's own text.
  const std::string_view text = audit::export_lines(whole).value_or(whole);
  auto entries = audit::verify_lines(text, "fuzz");
  if (!entries.ok()) {
    require(!entries.error().message().empty());
    return 0;
  }
  std::string again;
  Hash prev{};
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const auto& e = (*entries)[i];
    require(e.seq == i + 1 && e.prev == prev);
    require(audit::chain_hash(e.prev, audit::body_text(e)) == e.hash);
    prev = e.hash;
    again += audit::line_of(e) + "\n";
  }
  require(again == text);
  return 0;
}

}  // namespace airlock::fuzz

namespace airlock::fuzz {
namespace {

// The twin's demo world as a policy that allows all of it and auto-approves every action, so
// that "auto-approvable" means the binder found nothing to refuse or warn about.
const offline::Policy& review_policy() {
  static const offline::Policy policy = [] {
    std::string toml =
        "version = 1\nmanager = \"AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax\"\n"
        "vaults = [\"CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT\"]\n"
        "programs = [\"AirLockVau1t1111111111111111111111111111111\", "
        "\"ComputeBudget111111111111111111111111111111\", "
        "\"PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY\", "
        "\"ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL\"]\n"
        "max_priority_fee_lamports = 100000\nallow_unverified_lookup_tables = true\n"
        "allow_vault_initialize = true\n";
    for (const auto action : kBuilderActions)
      toml += "[actions.\"" + std::string(action) + "\"]\nauto_approve = true\n";
    return offline::parse_policy(toml).value();
  }();
  return policy;
}

const offline::DecoderRegistry& review_decoders() {
  static const offline::DecoderRegistry decoders = [] { return airlock::test::twin_registry(); }();
  return decoders;
}

// Every account of every instruction of every step has a binding, and none is refused or
// unbound: what an auto-approvable review must hold.
bool fully_bound(const offline::Review& r) {
  for (const auto& s : r.steps) {
    const auto& m = s.tx.message;
    if (s.bindings.size() != m.instructions.size()) return false;
    for (std::size_t i = 0; i < m.instructions.size(); ++i) {
      if (s.bindings[i].size() != m.instructions[i].accounts.size()) return false;
      for (const auto& b : s.bindings[i]) {
        if (b.source == "refused" || b.source == "unbound") return false;
      }
    }
  }
  return true;
}

std::vector<std::string> codes(const std::vector<offline::Finding>& findings) {
  std::vector<std::string> out;
  out.reserve(findings.size());
  for (const auto& f : findings) out.push_back(f.code + ": " + f.message);
  return out;
}

}  // namespace

// Input: a sign request envelope (CBOR), reviewed whole (decoding, binding, intent, policy) as
// the signing path reviews it, at the request's own creation time. No exception escapes; the
// verdict is the same when reviewed again; an auto-approvable review holds no refusal and no
// warning and binds every account; the summary renders either way.
int review_request(const std::uint8_t* data, std::size_t size) {
  auto request = envelope::decode_request(view(data, size));
  if (!request.ok()) return 0;
  const offline::Policy& policy = review_policy();
  const auto now =
      static_cast<std::int64_t>(std::min<std::uint64_t>(request->created_at, INT64_MAX));
  const auto r = offline::review_request(*request, policy, review_decoders(), policy.manager, now);
  if (r.auto_approvable) require(!r.refused() && r.warnings.empty() && fully_bound(r));
  require(r.refused() == !r.refusals.empty());
  const auto again =
      offline::review_request(*request, policy, review_decoders(), policy.manager, now);
  require(codes(again.refusals) == codes(r.refusals) &&
          codes(again.warnings) == codes(r.warnings) && again.auto_approvable == r.auto_approvable);
  require(!offline::render_summary(*request, r, now).empty());
  require(!offline::summary_json(*request, r).dump().empty());
  return 0;
}

// Input: a descriptor's text. When it parses and holds against the shipped IDLs, every account
// of every instruction an action may hold has a source, every derivation reads only the
// instruction's own accounts, and every action's instructions are described.
int descriptor_file(const std::uint8_t* data, std::size_t size) {
  static const std::map<PublicKey, std::vector<offline::Idl>> idls = [] {
    std::map<PublicKey, std::vector<offline::Idl>> out;
    for (const char* file : {"airlock_vault.json", "airlock_perp_venue.json", "jupiter_v6.json",
                             "meteora_dlmm.json", "phoenix_v1.json"}) {
      auto idl = offline::load_idl_file(std::string(AIRLOCK_FUZZ_IDL_DIR) + "/" + file).value();
      out[idl.program].push_back(std::move(idl));
    }
    return out;
  }();
  auto descriptor =
      offline::parse_descriptor(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!descriptor.ok()) return 0;
  if (!offline::check_descriptor(*descriptor, idls).ok()) return 0;
  for (const auto& action : descriptor->actions) {
    require(!action.instructions.empty() && !action.reads.empty());
    for (const auto& key : action.instructions) require(descriptor->instruction(key) != nullptr);
  }
  for (const auto& ix : descriptor->instructions) {
    const offline::IdlInstruction* idl = nullptr;
    for (const auto& candidate : idls.at(ix.program_id)) {
      if (const auto* found = offline::find_instruction(candidate, ix.instruction)) idl = found;
    }
    require(idl != nullptr && idl->accounts.size() == ix.accounts.size());
    for (std::size_t i = 0; i < ix.accounts.size(); ++i) {
      require(ix.accounts[i].name == idl->accounts[i].name);
      for (const auto& d : ix.accounts[i].source.any_of) {
        for (const auto& seed : d.seeds) {
          require(seed.kind == offline::SeedSource::Kind::kConst ||
                  ix.account(seed.account) != nullptr);
        }
      }
    }
  }
  return 0;
}

}  // namespace airlock::fuzz
