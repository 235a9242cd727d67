#include "fuzz_targets.h"

#include <algorithm>

#include <airlock/common/accounts.h>
#include <airlock/common/shortvec.h>
#include <airlock/common/transaction.h>
#include <airlock/offline/inspect.h>

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

}  // namespace airlock::fuzz
