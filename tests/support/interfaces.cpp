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

}  // namespace airlock::test
