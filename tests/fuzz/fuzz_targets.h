// Fuzz entry points, one per parser that reads outside input. Each checks its invariants and
// traps on a violation. libFuzzer drives them in the fuzz preset; corpus_replay_test runs every
// stored input through them in the ordinary test build, under the sanitizers of scripts/test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

namespace airlock::fuzz {

using Target = int (*)(const std::uint8_t* data, std::size_t size);

struct NamedTarget {
  std::string_view name;  // also the corpus folder under tests/fuzz/corpus/
  Target run;
};

int shortvec(const std::uint8_t* data, std::size_t size);
int message(const std::uint8_t* data, std::size_t size);
int transaction(const std::uint8_t* data, std::size_t size);
int inspect_input(const std::uint8_t* data, std::size_t size);
int cbor_value(const std::uint8_t* data, std::size_t size);
int sign_request(const std::uint8_t* data, std::size_t size);
int sign_response(const std::uint8_t* data, std::size_t size);
int keystone(const std::uint8_t* data, std::size_t size);
int ur_part(const std::uint8_t* data, std::size_t size);
int dense_frame(const std::uint8_t* data, std::size_t size);
int png_image(const std::uint8_t* data, std::size_t size);
int idl_file(const std::uint8_t* data, std::size_t size);
int idl_decode(const std::uint8_t* data, std::size_t size);
int keystore_file(const std::uint8_t* data, std::size_t size);
int policy_file(const std::uint8_t* data, std::size_t size);
int api_response(const std::uint8_t* data, std::size_t size);
int lookup_table_account(const std::uint8_t* data, std::size_t size);
int receive(const std::uint8_t* data, std::size_t size);
int slip39(const std::uint8_t* data, std::size_t size);
int audit_export(const std::uint8_t* data, std::size_t size);
int review_request(const std::uint8_t* data, std::size_t size);
int descriptor_file(const std::uint8_t* data, std::size_t size);

// Test names print the target's name, not its bytes.
inline void PrintTo(const NamedTarget& target, std::ostream* os) { *os << target.name; }

inline constexpr NamedTarget kTargets[] = {
    {"shortvec", shortvec},
    {"message", message},
    {"transaction", transaction},
    {"inspect_input", inspect_input},
    {"cbor_value", cbor_value},
    {"sign_request", sign_request},
    {"sign_response", sign_response},
    {"keystone", keystone},
    {"ur_part", ur_part},
    {"dense_frame", dense_frame},
    {"png_image", png_image},
    {"idl_file", idl_file},
    {"idl_decode", idl_decode},
    {"keystore_file", keystore_file},
    {"policy_file", policy_file},
    {"api_response", api_response},
    {"lookup_table_account", lookup_table_account},
    {"receive", receive},
    {"slip39", slip39},
    {"audit_export", audit_export},
    {"review_request", review_request},
    {"descriptor_file", descriptor_file},
};

}  // namespace airlock::fuzz
