#include <algorithm>
#include <filesystem>

#include <airlock/common/message.h>
#include <airlock/common/units.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/idl.h>

#include "decode_builtin.h"

namespace airlock::offline {

std::optional<std::uint64_t> integer_arg(const nlohmann::ordered_json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) {
    const auto n = v.get<std::int64_t>();
    return n < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(n));
  }
  if (v.is_string()) return parse_base_units(v.get_ref<const std::string&>());
  return std::nullopt;
}

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
          return Error(offline::errors::kIdlInvalid,
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

Status DecoderRegistry::add_descriptor(Descriptor descriptor) {
  AIRLOCK_CHECK(check_descriptor(descriptor, idls_));
  for (const auto& action : descriptor.actions) {
    if (const Descriptor* other = descriptor_for(action.name)) {
      return Error(errors::kDescriptorInvalid, "descriptor " + descriptor.name + " describes " +
                                                   action.name + ", which descriptor " +
                                                   other->name + " already describes");
    }
  }
  descriptors_.push_back(std::move(descriptor));
  return {};
}

const Descriptor* DecoderRegistry::descriptor_for(std::string_view action) const {
  for (const auto& d : descriptors_) {
    if (d.action(action) != nullptr) return &d;
  }
  return nullptr;
}

Result<Decoded> DecoderRegistry::decode(const PublicKey& program, ByteView data,
                                        std::size_t account_count) const {
  if (auto builtin_result = builtin::decode(program, data, account_count))
    return std::move(*builtin_result);
  auto it = idls_.find(program);
  if (it == idls_.end() || it->second.empty()) {
    return Error(offline::errors::kIdlUndecodable,
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
    out.account_writable.push_back(account.writable);
    out.account_signer.push_back(account.signer);
    if (!account.optional) ++required;
  }
  if (account_count < required) {
    return Error(offline::errors::kIdlUndecodable,
                 out.program + "." + out.instruction + ": needs at least " +
                     std::to_string(required) + " accounts, has " + std::to_string(account_count));
  }
  return out;
}

Status DecoderRegistry::decode_cpi_arguments(
    Decoded& d, const std::vector<std::optional<PublicKey>>& keys) const {
  for (const auto& cpi : kCpiArguments) {
    if (!d.args.is_object() || !d.args.contains(cpi.argument)) continue;
    const auto& value = d.args[std::string(cpi.argument)];
    const auto at = std::find(d.account_names.begin(), d.account_names.end(), cpi.program_account);
    const auto position = static_cast<std::size_t>(at - d.account_names.begin());
    if (!value.is_string() || at == d.account_names.end() || position >= keys.size() ||
        !keys[position]) {
      return Error(offline::errors::kIdlUndecodable,
                   std::string(cpi.argument) + ": the program it is for (" +
                       std::string(cpi.program_account) + ") is not known");
    }
    auto bytes = from_hex(value.get<std::string>(), kMaxTransactionBytes);
    if (!bytes.ok()) return bytes.error();
    // The callee's own accounts come from the caller's: no count to check here.
    auto inner = decode(*keys[position], *bytes, SIZE_MAX);
    if (!inner.ok()) {
      return Error(offline::errors::kIdlUndecodable,
                   std::string(cpi.argument) + " is not an instruction of " +
                       to_base58(*keys[position]) + " (" + std::string(cpi.program_account) +
                       "): " + inner.error().message());
    }
    d.nested[std::string(cpi.argument)] = std::move(inner).value();
  }
  return {};
}

}  // namespace airlock::offline
