#include "support/interfaces.h"

#include <cstdio>
#include <cstdlib>

#include <airlock/offline/interfaces.h>

namespace airlock::test {
namespace {

offline::CheckedDescriptor checked(offline::DecoderRegistry& registry) {
  auto c = offline::check_descriptor_files(twin_descriptor_path(), idl_dir(), registry);
  if (!c.ok()) {
    std::fprintf(stderr, "the shipped descriptor does not hold: %s\n",
                 c.error().to_string().c_str());
    std::abort();
  }
  return std::move(*c);
}

}  // namespace

std::string idl_dir() { return AIRLOCK_SHIPPED_IDL_DIR; }
std::string descriptor_dir() { return AIRLOCK_SHIPPED_DESCRIPTOR_DIR; }
std::string twin_descriptor_path() { return descriptor_dir() + "/airlock_vault.json"; }

void add_twin_interfaces(offline::DecoderRegistry& registry) { (void)checked(registry); }

offline::DecoderRegistry twin_registry() {
  offline::DecoderRegistry registry;
  add_twin_interfaces(registry);
  return registry;
}

std::vector<offline::DescriptorPin> twin_pins() {
  offline::DecoderRegistry registry;
  const auto c = checked(registry);
  offline::DescriptorPin pin;
  pin.file = "airlock_vault.json";
  pin.sha256 = c.descriptor.sha256;
  for (const auto& program : c.descriptor.programs) {
    for (const auto& idl : program.idls) pin.idls.emplace(idl.file, idl.sha256);
  }
  return {pin};
}

std::string twin_pin_toml() {
  offline::DecoderRegistry registry;
  return checked(registry).pin_toml;
}

std::string twin_price_floors_toml() {
  return R"([[tokens]]
mint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
symbol = "USDC"
decimals = 6
[[tokens]]
mint = "So11111111111111111111111111111111111111112"
symbol = "SOL"
decimals = 9
[[tokens]]
mint = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"
symbol = "JUP"
decimals = 6
[[tokens]]
mint = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"
symbol = "BONK"
decimals = 5
)" + [] {
    // USD prices of the fixture: USDC 1, SOL 150, JUP 0.8, BONK 0.00002.
    const std::pair<const char*, const char*> floors[] = {
        {"USDC SOL", "0.006"},     {"USDC JUP", "1.125"},      {"USDC BONK", "45000"},
        {"SOL USDC", "135"},       {"SOL JUP", "168.75"},      {"SOL BONK", "6750000"},
        {"JUP USDC", "0.72"},      {"JUP SOL", "0.0048"},      {"JUP BONK", "36000"},
        {"BONK USDC", "0.000018"}, {"BONK SOL", "0.00000012"}, {"BONK JUP", "0.0000225"}};
    std::string out;
    for (const auto& [pair, at_least] : floors) {
      const std::string p(pair);
      out += "[[price_floors]]\nsell = \"" + p.substr(0, p.find(' ')) + "\"\nbuy = \"" +
             p.substr(p.find(' ') + 1) + "\"\nat_least = \"" + at_least + "\"\n";
    }
    return out;
  }();
}

}  // namespace airlock::test
