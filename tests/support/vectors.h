// Loading known-answer data for tests.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>

namespace airlock::test {

// Parses ../shared/vectors/<name>; fails the calling test (via an exception) when missing.
nlohmann::json load_vectors(const std::string& name);

// The "vectors" array of a file, and one entry of it by its "name" (throws when absent).
std::vector<nlohmann::json> vector_list(const std::string& file);
nlohmann::json vector_named(const std::string& file, const std::string& name);

// Decoders that fail loudly: test data is trusted to be well formed.
Bytes b64(const std::string& text);
Bytes hex(const std::string& text);
PublicKey key(const std::string& base58);

}  // namespace airlock::test
