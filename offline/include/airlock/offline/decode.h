// Turning each instruction into named terms: built-in decoders for the programs nearly every
// transaction touches (System, SPL Token and Token-2022, Associated Token Account, Compute
// Budget, Memo) and Anchor IDLs for the rest. Decoding is exact: data that is not exactly one
// known instruction is undecodable, and the offline half refuses what it cannot decode.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/offline/descriptor.h>
#include <airlock/offline/idl.h>

namespace airlock::offline {

struct Decoded {
  std::string program;      // "System Program", "SPL Token Program", or the IDL's name
  std::string instruction;  // "transfer", "set_authority", "aggregator_swap", ...
  nlohmann::ordered_json args = nlohmann::ordered_json::object();
  std::vector<std::string> account_names;  // aligned with the instruction's account list
  // The IDL's writable and signer flags, aligned with account_names (IDL instructions only;
  // empty for the built-in decoders).
  std::vector<bool> account_writable;
  std::vector<bool> account_signer;
  // Arguments that are themselves instructions of another program (a Jupiter route), decoded
  // only as the program the instruction passes for them (decode_cpi_arguments).
  std::map<std::string, Decoded> nested;
};

// A decoded integer argument as an unsigned 64-bit value: a JSON number, or the string a
// 64-bit field decodes to (parse_base_units' rule). nullopt for a negative, fractional or
// non-numeric value, so a caller can refuse rather than read it as zero.
[[nodiscard]] std::optional<std::uint64_t> integer_arg(const nlohmann::ordered_json& v);

// An argument holding instruction data for the program passed in one of the instruction's
// accounts: the vault program hands `route` to the program in its `jupiter_program` account.
struct CpiArgument {
  std::string_view argument;
  std::string_view program_account;
};
inline constexpr CpiArgument kCpiArguments[] = {{"route", "jupiter_program"}};

class DecoderRegistry {
 public:
  // A registry with the built-in programs and no IDL.
  DecoderRegistry();

  // Adds an IDL. Several IDLs may describe one program (e.g. a published interface and a
  // deployment's own extra instruction); a later IDL with the same name replaces the earlier
  // one. Fails, naming both instructions, when a discriminator overlaps one another IDL of the
  // program already has: the same data could then be read two ways.
  [[nodiscard]] Status add_idl(Idl idl);
  // Loads every *.json in a folder as an IDL; fails on the first bad file, naming it.
  [[nodiscard]] Status add_idl_folder(const std::string& folder);

  // Decodes one instruction of `program`. `account_count` lets account names be checked
  // against what the instruction needs: too few accounts is undecodable.
  [[nodiscard]] Result<Decoded> decode(const PublicKey& program, ByteView data,
                                       std::size_t account_count) const;

  [[nodiscard]] bool knows(const PublicKey& program) const;

  // Adds a descriptor once check_descriptor holds it against the IDLs added so far: what the
  // review binds requests to. Fails when another descriptor already describes one of its
  // actions.
  [[nodiscard]] Status add_descriptor(Descriptor descriptor);
  [[nodiscard]] const std::vector<Descriptor>& descriptors() const noexcept { return descriptors_; }
  // The descriptor describing `action`, or nullptr.
  [[nodiscard]] const Descriptor* descriptor_for(std::string_view action) const;

  // Decodes the CPI arguments of `d` (kCpiArguments) as the program its own account names, and
  // nothing else: data is never matched against other programs to see what fits. `keys` are
  // the instruction's account keys (nullopt where unknown). Fails, naming the argument, when
  // that program does not decode the data exactly.
  [[nodiscard]] Status decode_cpi_arguments(
      Decoded& d, const std::vector<std::optional<PublicKey>>& keys) const;

 private:
  std::map<PublicKey, std::vector<Idl>> idls_;
  std::vector<Descriptor> descriptors_;
};

}  // namespace airlock::offline
