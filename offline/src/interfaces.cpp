#include <airlock/common/hash.h>
#include <airlock/formats/files.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/review.h>
#include <airlock/offline/templates.h>

namespace airlock::offline {
namespace {

std::string hex(const Hash& h) { return to_hex(h.view()); }

struct ReadFile {
  std::string text;
  Hash sha256{};
};

Result<ReadFile> read_hashed(const std::string& path, std::size_t limit) {
  AIRLOCK_TRY(bytes, files::read_limited(path, limit));
  ReadFile out;
  out.sha256 = sha256(bytes);
  out.text.assign(bytes.begin(), bytes.end());
  return out;
}

Error unpinned(const std::string& message) { return Error(errors::kDescriptorUnpinned, message); }

// The IDL at `path`, parsed strictly, for program `program`: its own address must be it.
Result<Idl> read_idl(const std::string& path, const std::string& text, const PublicKey& program) {
  AIRLOCK_TRY(json, parse_strict_json<nlohmann::json>(text, "IDL " + path));
  AIRLOCK_TRY(idl, parse_idl(json, program));
  if (idl.program != program)
    return Error(errors::kDescriptorInvalid, "IDL " + path + " is for program " +
                                                 to_base58(idl.program) +
                                                 ", not the descriptor's " + to_base58(program));
  return idl;
}

// Adds the IDLs the descriptor names, each read from `folder`; `pinned` says which hashes the
// policy allows (nullptr: any, for a check before pinning).
// Which IDL file gave a program its IDL of each name: one name, one file. The registry keeps
// one IDL per name and program (a later one replaces the earlier), so a second file of the same
// name would silently stand in for the pinned one.
using LoadedIdls = std::map<std::pair<PublicKey, std::string>, std::pair<std::string, Hash>>;

Status add_idls(const Descriptor& d, const std::string& folder,
                const std::map<std::string, Hash>* pinned, DecoderRegistry& registry,
                std::map<std::string, Hash>& used, LoadedIdls& loaded) {
  for (const auto& program : d.programs) {
    for (const auto& pin : program.idls) {
      const std::string path = folder + "/" + pin.file;
      if (pinned != nullptr) {
        const auto it = pinned->find(pin.file);
        if (it == pinned->end())
          return unpinned("descriptor " + d.name + " uses IDL " + pin.file +
                          ", which the policy does not pin ([[descriptors]] idls)");
        if (it->second != pin.sha256)
          return unpinned("descriptor " + d.name + " names IDL " + pin.file + " with SHA-256 " +
                          hex(pin.sha256) + "; the policy pins " + hex(it->second));
      }
      AIRLOCK_TRY(file, read_hashed(path, kMaxIdlFileBytes));
      if (file.sha256 != pin.sha256)
        return unpinned("IDL " + path + " has SHA-256 " + hex(file.sha256) + "; descriptor " +
                        d.name + " pins " + hex(pin.sha256) +
                        ": a changed IDL changes how instructions read; review it and pin it");
      AIRLOCK_TRY(idl, read_idl(path, file.text, program.id));
      const auto [it, fresh] =
          loaded.try_emplace({idl.program, idl.name}, std::pair{pin.file, file.sha256});
      if (!fresh && it->second.second != file.sha256)
        return Error(errors::kDescriptorInvalid,
                     "IDL " + pin.file + " and IDL " + it->second.first + " both call themselves " +
                         idl.name + " for program " + to_base58(idl.program) +
                         ": one would stand in for the other");
      if (fresh) AIRLOCK_CHECK(registry.add_idl(std::move(idl)));
      used.emplace(pin.file, pin.sha256);
    }
  }
  return {};
}

}  // namespace

Status load_pinned_interfaces(const Policy& policy, const InterfaceFolders& folders,
                              DecoderRegistry& registry) {
  // Every pinned IDL first, then every descriptor held against all of them: no descriptor is
  // checked against fewer IDLs than the review decodes with.
  LoadedIdls loaded;
  std::vector<std::pair<std::string, Descriptor>> descriptors;
  for (const auto& pin : policy.descriptors) {
    const std::string path = folders.descriptors + "/" + pin.file;
    AIRLOCK_TRY(file, read_hashed(path, kMaxDescriptorFileBytes));
    if (file.sha256 != pin.sha256)
      return unpinned("descriptor " + path + " has SHA-256 " + hex(file.sha256) +
                      "; the policy pins " + hex(pin.sha256) +
                      ": a changed descriptor changes what this key signs; review it "
                      "(airlock-offline descriptor check) and pin its new hash");
    auto descriptor = parse_descriptor(file.text);
    if (!descriptor.ok())
      return Error(descriptor.error().code(), descriptor.error().message() + " (in " + path + ")");
    std::map<std::string, Hash> used;
    AIRLOCK_CHECK(add_idls(*descriptor, folders.idls, &pin.idls, registry, used, loaded));
    for (const auto& [idl, hash] : pin.idls) {
      if (used.count(idl) == 0)
        return unpinned("the policy pins IDL " + idl + " for descriptor " + pin.file +
                        ", which does not use it");
    }
    descriptors.emplace_back(path, std::move(*descriptor));
  }
  for (auto& [path, descriptor] : descriptors) {
    auto added = registry.add_descriptor(std::move(descriptor));
    if (!added.ok())
      return Error(added.error().code(), added.error().message() + " (in " + path + ")");
  }
  // Every action the policy rules that is no builder action must be one a pinned descriptor
  // describes: a rule for an action nothing describes would hold nothing.
  const auto described = [&](const std::string& name, const std::string& where) -> Status {
    if (parse_action(name) || name == kKeystoneAction || registry.descriptor_for(name) != nullptr)
      return {};
    return Error(errors::kPolicyInvalid,
                 "policy: " + where + ": no descriptor the policy pins describes " + name);
  };
  for (const auto& [name, rule] : policy.actions) AIRLOCK_CHECK(described(name, "actions." + name));
  for (const auto& [name, limit] : policy.limits.actions)
    AIRLOCK_CHECK(described(name, "limits.actions." + name));
  return {};
}

Result<CheckedDescriptor> check_descriptor_files(const std::string& path,
                                                 const std::string& idl_folder,
                                                 DecoderRegistry& registry) {
  AIRLOCK_TRY(file, read_hashed(path, kMaxDescriptorFileBytes));
  auto descriptor = parse_descriptor(file.text);
  if (!descriptor.ok())
    return Error(descriptor.error().code(), descriptor.error().message() + " (in " + path + ")");
  std::map<std::string, Hash> used;
  LoadedIdls loaded;
  AIRLOCK_CHECK(add_idls(*descriptor, idl_folder, nullptr, registry, used, loaded));
  CheckedDescriptor out;
  const auto slash = path.find_last_of('/');
  out.pin_toml = "[[descriptors]]\nfile = \"" +
                 (slash == std::string::npos ? path : path.substr(slash + 1)) + "\"\nsha256 = \"" +
                 hex(file.sha256) + "\"\n[descriptors.idls]\n";
  for (const auto& [idl, hash] : used) out.pin_toml += "\"" + idl + "\" = \"" + hex(hash) + "\"\n";
  auto added = registry.add_descriptor(*descriptor);
  if (!added.ok())
    return Error(added.error().code(), added.error().message() + " (in " + path + ")");
  out.descriptor = registry.descriptors().back();
  return out;
}

}  // namespace airlock::offline
