// Reading a CBOR map with unsigned-integer keys field by field, with errors that name the field
// and the rule. Shared by the envelope and Keystone decoders.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include <airlock/formats/cbor.h>

namespace airlock::cbor {

class FieldReader {
 public:
  // `path` names the map in errors, e.g. "sign_request.steps[3]".
  FieldReader(const Value& map, std::string path) : map_(map), path_(std::move(path)) {}

  // The value must be a map whose keys are all among `known`; otherwise fails.
  Status check_keys(std::initializer_list<std::pair<std::uint64_t, const char*>> known) const;

  const Value* get(std::uint64_t key) const { return map_.find(key); }

  Result<const Value*> require(std::uint64_t key, const char* name, Value::Kind kind) const;
  Result<std::uint64_t> require_uint(std::uint64_t key, const char* name, std::uint64_t max) const;
  Result<bool> require_bool(std::uint64_t key, const char* name) const;
  Result<Bytes> require_bytes(std::uint64_t key, const char* name, std::size_t min,
                              std::size_t max) const;
  Result<std::string> require_text(std::uint64_t key, const char* name, std::size_t min,
                                   std::size_t max) const;
  template <std::size_t N>
  Result<FixedBytes<N>> require_fixed(std::uint64_t key, const char* name) const {
    auto bytes = require_bytes(key, name, N, N);
    if (!bytes.ok()) return std::move(bytes).error();
    return fixed_from_view<N>(*bytes);
  }

  std::string field(const char* name) const { return path_ + "." + name; }

 private:
  const Value& map_;
  std::string path_;
};

// Errors for values checked outside a FieldReader.
Error wrong_type(const std::string& field, const char* expected, const Value& got);
Error bad_value(const std::string& field, const std::string& rule);

}  // namespace airlock::cbor
