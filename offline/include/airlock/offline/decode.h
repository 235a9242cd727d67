// Turning each instruction into named terms: built-in decoders for the programs nearly every
// transaction touches (System, SPL Token and Token-2022, Associated Token Account, Compute
// Budget, Memo) and Anchor IDLs for the rest. Decoding is exact: data that is not exactly one
// known instruction is undecodable, and the offline half refuses what it cannot decode.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/offline/idl.h>

namespace airlock::offline {

struct Decoded {
  std::string program;      // "System Program", "SPL Token Program", or the IDL's name
  std::string instruction;  // "transfer", "set_authority", "aggregator_swap", ...
  nlohmann::ordered_json args = nlohmann::ordered_json::object();
  std::vector<std::string> account_names;  // aligned with the instruction's account list
  // Arguments that are themselves instructions of another known program (a Jupiter route).
  std::map<std::string, Decoded> nested;
};

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

 private:
  std::map<PublicKey, std::vector<Idl>> idls_;
};

}  // namespace airlock::offline
