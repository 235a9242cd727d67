// Envelope files: one envelope per file, a 4-byte magic naming its kind, written atomically
// (a temporary file in the same folder, flushed, then renamed), so a reader — or a folder
// watcher on the other side — never sees a partial file.
//
//   request file:  "ALQ1" + SignRequest CBOR   extension .alreq
//   response file: "ALS1" + SignResponse CBOR  extension .alres
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::files {

enum class EnvelopeKind { kRequest, kResponse };

inline constexpr std::array<std::uint8_t, 4> kRequestMagic{'A', 'L', 'Q', '1'};
inline constexpr std::array<std::uint8_t, 4> kResponseMagic{'A', 'L', 'S', '1'};
inline constexpr std::string_view kRequestExtension = ".alreq";
inline constexpr std::string_view kResponseExtension = ".alres";

// Writes `data` to `path` through a temporary file and rename; mode 0600 (envelopes describe
// the vault's business). Never leaves a partial file at `path`. A pipe or character device
// at `path` (`/dev/stdout`, a FIFO) is written into instead, and any other kind of file is
// refused, so a device is never replaced by an ordinary file.
[[nodiscard]] Status write_atomically(const std::string& path, ByteView data);
// A symbolic link to a regular file keeps being a link: the file it names is replaced.

// Writes a new file at `path` the same way (temporary file, flushed, mode 0600), but never in
// place of anything: a name that exists is refused, and the file appears whole or not at all.
[[nodiscard]] Status write_new(const std::string& path, ByteView data);

// Moves the file `from` to the name `to` in the same file system, never in place of anything
// (a name that exists is refused), and makes the move durable.
[[nodiscard]] Status move_new(const std::string& from, const std::string& to);

// Whether write_atomically could write `path` now (its folder exists and is writable, and what
// is there is a file, a pipe or a device), so a command checks its outputs before it decides
// anything.
[[nodiscard]] Status check_can_write(const std::string& path);

// Whether two paths name the same existing file (an output that would replace an input).
[[nodiscard]] bool same_file(const std::string& a, const std::string& b);

// A command's file outputs checked before it reads or decides anything: each can be written,
// and none is the same file as one of its inputs or state files (sign --out naming the keystore
// would replace the key). Refusals name the output's option.
struct NamedPath {
  std::string option;  // e.g. "--out"
  std::string path;
};
[[nodiscard]] Status check_outputs(const std::vector<NamedPath>& outputs,
                                   const std::vector<NamedPath>& inputs);

// Reads at most `limit` bytes from a file, or from standard input when `path` is "-"; a larger
// input is refused without reading it whole.
[[nodiscard]] Result<Bytes> read_limited(const std::string& path, std::size_t limit);

// What `paths` hold now, as one text: each file's (and each folder's files') name, size and
// modification time. A wait for a file another program writes reads and decodes again only when
// this changes.
[[nodiscard]] std::string snapshot(const std::vector<std::string>& paths);

// Magic + CBOR for the given kind.
[[nodiscard]] Bytes wrap_envelope(EnvelopeKind kind, ByteView cbor);
// The kind named by the magic and the CBOR after it; fails with frame.invalid for an unknown
// magic.
[[nodiscard]] Result<std::pair<EnvelopeKind, Bytes>> unwrap_envelope(ByteView file);

}  // namespace airlock::files
