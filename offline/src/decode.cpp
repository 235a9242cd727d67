#include <filesystem>

#include <airlock/common/message.h>
#include <airlock/offline/decode.h>

#include "decode_builtin.h"

namespace airlock::offline {

DecoderRegistry::DecoderRegistry() = default;

void DecoderRegistry::add_idl(Idl idl) {
  const PublicKey program = idl.program;
  idls_.insert_or_assign(program, std::move(idl));
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
    add_idl(std::move(idl));
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
  if (it == idls_.end()) {
    return Error(ErrorCode::kIdlUndecodable,
                 "program " + to_base58(program) + " is unknown: no built-in decoder and no IDL");
  }
  AIRLOCK_TRY(decoded, decode_instruction(it->second, data));
  Decoded out;
  out.program = it->second.name.empty() ? to_base58(program) : it->second.name;
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
  for (auto& [name, value] : out.args.items()) {
    if (!value.is_string() || value.get<std::string>().size() < 16) continue;
    auto bytes = from_hex(value.get<std::string>(), kMaxTransactionBytes);
    if (!bytes.ok()) continue;
    for (const auto& [other_program, idl] : idls_) {
      if (other_program == program) continue;
      auto nested = decode_instruction(idl, *bytes);
      if (!nested.ok()) continue;
      Decoded inner;
      inner.program = idl.name;
      inner.instruction = nested->instruction->name;
      inner.args = std::move(nested->args);
      out.nested.emplace(name, std::move(inner));
      break;
    }
  }
  return out;
}

}  // namespace airlock::offline
