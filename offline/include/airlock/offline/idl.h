// Anchor IDLs, interpreted strictly, to decode any program's instruction data into named
// arguments and named accounts.
//
// Accepted: spec 0.1.0 JSON (instructions with explicit discriminators, 8 bytes for Anchor
// programs, one byte for programs with tag-based instructions such as Phoenix, accounts with
// writable/signer flags, types under "types" referenced as {"defined": {"name": ...}}) and
// legacy IDLs (no discriminators: sha256("global:<name>")[..8]; isMut/isSigner; "defined": name).
//
// Decoding is all or nothing: the data must start with a known discriminator and be consumed
// exactly; vectors and strings are bounded by the bytes that remain, nesting by a depth limit;
// bools must be 0 or 1, option tags 0 or 1, enum tags in range, strings valid UTF-8. Anything
// else is "undecodable", and the offline half refuses what it cannot decode.
// No discriminator may be a prefix of another, within an IDL or across the IDLs of one program.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::offline {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// An IDL file that breaks its schema: the installed data is damaged.
inline constexpr ErrorCode kIdlInvalid{ErrorKind::kCorruption, "idl.invalid"};
// Instruction data the IDL cannot decode.
inline constexpr ErrorCode kIdlUndecodable{ErrorKind::kInvalidInput, "idl.undecodable"};
}  // namespace errors

// Nesting of vectors, options, arrays and defined types one value may have.
inline constexpr std::size_t kMaxIdlDepth = 16;
// Largest IDL file read; the biggest public ones are a few hundred KB.
inline constexpr std::size_t kMaxIdlFileBytes = 4 << 20;

struct IdlType;
using IdlTypePtr = std::shared_ptr<const IdlType>;

struct IdlField {
  std::string name;  // empty for tuple fields
  IdlTypePtr type;
};

struct IdlType {
  enum class Kind { kPrimitive, kOption, kVec, kArray, kDefined };
  Kind kind = Kind::kPrimitive;
  std::string primitive;   // bool, u8..u128, i8..i128, pubkey, string, bytes
  IdlTypePtr inner;        // option, vec, array
  std::size_t length = 0;  // array
  std::string defined;     // defined type name
};

struct IdlVariant {
  std::string name;
  std::vector<IdlField> fields;
};

struct IdlTypeDef {
  std::string name;
  bool is_enum = false;
  std::vector<IdlField> fields;      // struct
  std::vector<IdlVariant> variants;  // enum
};

// A seed of an address the IDL states (Anchor 0.30 and later): constant bytes, another
// account of the instruction (`path`; a dotted path reads a field of that account's data), or
// an argument (`path`).
struct IdlSeed {
  enum class Kind { kConst, kAccount, kArg };
  Kind kind = Kind::kConst;
  Bytes value;       // kConst
  std::string path;  // kAccount, kArg
};

struct IdlPda {
  std::vector<IdlSeed> seeds;
  std::optional<IdlSeed> program;  // absent: the instruction's own program
};

struct IdlAccount {
  std::string name;
  bool writable = false;
  bool signer = false;
  bool optional = false;
  std::optional<PublicKey> address;    // a fixed address the IDL states
  std::optional<IdlPda> pda;           // a derivation the IDL states
  std::vector<std::string> relations;  // accounts whose data names this one
};

struct IdlInstruction {
  std::string name;
  Bytes discriminator;
  std::vector<IdlAccount> accounts;
  std::vector<IdlField> args;
};

struct Idl {
  PublicKey program;
  std::string name;
  std::vector<IdlInstruction> instructions;
  std::map<std::string, IdlTypeDef> types;
};

// Parses an IDL. `fallback_program` is used when the file names no address (legacy IDLs).
// Errors name the path inside the file (instructions[3].args[1].type: ...).
[[nodiscard]] Result<Idl> parse_idl(const nlohmann::json& idl,
                                    const std::optional<PublicKey>& fallback_program = {});
[[nodiscard]] Result<Idl> load_idl_file(const std::string& path);

struct DecodedInstruction {
  const IdlInstruction* instruction = nullptr;
  // Arguments by name. Integers wider than 53 bits are strings (JSON numbers lose precision),
  // public keys base58, bytes hex, enums {"variant": name, ...fields}.
  nlohmann::ordered_json args;
};

// Decodes instruction data with the IDL. Fails with idl.undecodable naming what was wrong.
[[nodiscard]] Result<DecodedInstruction> decode_instruction(const Idl& idl, ByteView data);

// True when one discriminator is a prefix of the other (equal included): some data would match
// both, so the two cannot be told apart.
[[nodiscard]] bool discriminators_overlap(const Bytes& a, const Bytes& b);

// The instruction whose discriminator starts `data`, or nullptr.
[[nodiscard]] const IdlInstruction* match_instruction(const Idl& idl, ByteView data);

// The instruction named `name` of an IDL, or nullptr.
[[nodiscard]] const IdlInstruction* find_instruction(const Idl& idl, std::string_view name);

}  // namespace airlock::offline
