#include "support/vectors.h"

#include <fstream>
#include <stdexcept>

namespace airlock::test {

nlohmann::json load_vectors(const std::string& name) {
  const std::string path = std::string(AIRLOCK_VECTORS_DIR) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open vector file " + path);
  return nlohmann::json::parse(in);
}

std::vector<nlohmann::json> vector_list(const std::string& file) {
  const nlohmann::json all = load_vectors(file);
  return all.at("vectors").get<std::vector<nlohmann::json>>();
}

nlohmann::json vector_named(const std::string& file, const std::string& name) {
  for (const auto& v : vector_list(file)) {
    if (v.at("name") == name) return v;
  }
  throw std::runtime_error("no vector named " + name + " in " + file);
}

Bytes b64(const std::string& text) {
  auto out = from_base64(text, 1 << 20);
  if (!out.ok()) throw std::runtime_error("bad base64 in test data: " + out.error().to_string());
  return std::move(out).value();
}

Bytes hex(const std::string& text) {
  auto out = from_hex(text, 1 << 20);
  if (!out.ok()) throw std::runtime_error("bad hex in test data: " + out.error().to_string());
  return std::move(out).value();
}

PublicKey key(const std::string& base58) {
  auto out = public_key_from_base58(base58);
  if (!out.ok()) throw std::runtime_error("bad key in test data: " + out.error().to_string());
  return out.value();
}

}  // namespace airlock::test
