#include <algorithm>
#include <filesystem>

#include <airlock/common/message.h>
#include <airlock/offline/decode.h>

#include "decode_builtin.h"

namespace airlock::offline {

DecoderRegistry::DecoderRegistry() = default;

Status DecoderRegistry::add_idl(Idl idl) {
  auto& list = idls_[idl.program];
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const Idl& other) { return other.name == idl.name; }),
             list.end());
  for (const Idl& other : list) {
    for (const auto& mine : idl.instructions) {
      for (const auto& theirs : other.instructions) {
        if (discriminators_overlap(mine.discriminator, theirs.discriminator)) {
          return Error(ErrorCode::kIdlInvalid,
                       "IDL " + idl.name + " instruction " + mine.name + " and IDL " + other.name +
                           " instruction " + theirs.name + " (program " + to_base58(idl.program) +
                           ") have overlapping discriminators: the same data could mean either");
        }
      }
    }
  }
  list.push_back(std::move(idl));
  return {};
}

Status DecoderRegistry::add_idl_folder(const std::string& folder) {
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  }
  if (ec) return Error(ErrorCode::kIo, "cannot read IDL folder '" + folder + "': " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    AIRLOCK_TRY(idl, load_idl_file(f.string()));
    if (auto added = add_idl(std::move(idl)); !added.ok()) {
      return Error(added.error().code(), added.error().message() + " (in " + f.string() + ")");
    }
  }
  return {};
}

bool DecoderRegistry::knows(const PublicKey& program) const {
  return idls_.count(program) > 0 || builtin::decode(program, {}, 0).has_value();
}

Result<Decoded> DecoderRegistry::decode(const PublicKey& program, ByteView data,
                                        std::size_t account_count) const {
  if (auto builtin_result = builtin::decode(program, data, account_count))
    return std::move(*builtin_result);
  auto it = idls_.find(program);
  if (it == idls_.end() || it->second.empty()) {
    return Error(ErrorCode::kIdlUndecodable,
                 "program " + to_base58(program) + " is unknown: no built-in decoder and no IDL");
  }
  // Discriminators never overlap across a program's IDLs, so at most one can match.
  const Idl* idl = &it->second.front();
  for (const Idl& candidate : it->second) {
    if (match_instruction(candidate, data) != nullptr) idl = &candidate;
  }
  AIRLOCK_TRY(decoded, decode_instruction(*idl, data));
  Decoded out;
  out.program = idl->name.empty() ? to_base58(program) : idl->name;
  out.instruction = decoded.instruction->name;
  out.args = std::move(decoded.args);
  std::size_t required = 0;
  for (const auto& account : decoded.instruction->accounts) {
    out.account_names.push_back(account.name);
    if (!account.optional) ++required;
  }
  if (account_count < required) {
    return Error(ErrorCode::kIdlUndecodable, out.program + "." + out.instruction +
                                                 ": needs at least " + std::to_string(required) +
                                                 " accounts, has " + std::to_string(account_count));
  }
  // Arguments holding another known program's instruction data (a Jupiter route in a swap).
  // Only programs whose instructions all carry 8-byte (Anchor) discriminators are tried: a
  // one-byte tag (Phoenix's) would too easily match bytes that are no instruction at all.
  for (auto& [name, value] : out.args.items()) {
    if (!value.is_string() || value.get<std::string>().size() < 16) continue;
    auto bytes = from_hex(value.get<std::string>(), kMaxTransactionBytes);
    if (!bytes.ok()) continue;
    for (const auto& [other_program, other_idls] : idls_) {
      if (other_program == program) continue;
      for (const Idl& other : other_idls) {
        const bool anchored =
            std::all_of(other.instructions.begin(), other.instructions.end(),
                        [](const IdlInstruction& ix) { return ix.discriminator.size() >= 8; });
        if (!anchored) continue;
        auto nested = decode_instruction(other, *bytes);
        if (!nested.ok()) continue;
        Decoded inner;
        inner.program = other.name;
        inner.instruction = nested->instruction->name;
        inner.args = std::move(nested->args);
        out.nested.emplace(name, std::move(inner));
        break;
      }
      if (out.nested.count(name) != 0) break;
    }
  }
  return out;
}

}  // namespace airlock::offline
