// The interfaces the review reads requests with, as the policy pins them: each descriptor it
// names (docs/descriptors.md) and each IDL that descriptor uses, read from their folders and
// held to the SHA-256 the policy gives. Nothing unpinned is loaded: an IDL in the folder that no
// pinned descriptor names decodes nothing, and a descriptor or IDL whose bytes changed refuses
// everything until a person reviews it and pins the new hash.
#pragma once

#include <string>

#include <airlock/common/error.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/policy.h>

namespace airlock::offline {

struct InterfaceFolders {
  std::string idls;
  std::string descriptors;
};

// Adds to `registry` every descriptor `policy` pins and the IDLs each uses. Fails, naming the
// file and both hashes, on a file whose SHA-256 is not the pinned one; on an IDL the descriptor
// uses that the policy does not pin, or one the policy pins that the descriptor does not use;
// and on a descriptor that does not fit its IDLs (check_descriptor).
[[nodiscard]] Status load_pinned_interfaces(const Policy& policy, const InterfaceFolders& folders,
                                            DecoderRegistry& registry);

// The descriptor at `path` with its IDLs from `idl_folder`, held together as load_pinned_interfaces
// holds them but pinned by nothing: what `airlock-offline descriptor check` validates, and the
// [[descriptors]] entry (TOML) that would pin the files as they are now.
struct CheckedDescriptor {
  Descriptor descriptor;
  std::string pin_toml;
};
[[nodiscard]] Result<CheckedDescriptor> check_descriptor_files(const std::string& path,
                                                               const std::string& idl_folder,
                                                               DecoderRegistry& registry);

}  // namespace airlock::offline
