// The twin's vault descriptor and the IDLs it pins, as the project ships them
// (offline/descriptors, offline/idl): what a policy pinning them makes the review bind to.
#pragma once

#include <string>
#include <vector>

#include <airlock/offline/decode.h>
#include <airlock/offline/policy.h>

namespace airlock::test {

std::string idl_dir();
std::string descriptor_dir();
// offline/descriptors/airlock_vault.json
std::string twin_descriptor_path();

// Adds the twin's descriptor and its IDLs to `registry`; aborts the program if they do not hold
// (a broken shipped descriptor is no test outcome).
void add_twin_interfaces(offline::DecoderRegistry& registry);
// A registry holding them.
offline::DecoderRegistry twin_registry();

// The pins of a policy that trusts them, as policy.descriptors and as a [[descriptors]] entry.
std::vector<offline::DescriptorPin> twin_pins();
std::string twin_pin_toml();

// The twin's four tokens pinned ([[tokens]]) and a price floor for every pair of them
// ([[price_floors]]) at 90% of the fixture prices (tests/apisim/fixtures/demo.json), so an
// honest twin swap at up to 9% slippage meets its floor.
std::string twin_price_floors_toml();

}  // namespace airlock::test
