#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <airlock/common/fd.h>
#include <airlock/formats/dense.h>
#include <airlock/formats/files.h>

namespace airlock::files {
namespace {

Error io_error(const std::string& what, const std::string& path) {
  return Error(ErrorCode::kIo, what + " '" + path + "': " + std::strerror(errno));
}

Status write_all(int fd, ByteView data, const std::string& path) {
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error("cannot write", path);
    written += static_cast<std::size_t>(n);
  }
  return {};
}

// A pipe or a device (`-o /dev/stdout`, a FIFO) is written into, never replaced: renaming a file
// over /dev/null would turn it into an ordinary file that every later reader sees.
Status write_through(const std::string& path, ByteView data) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid()) return io_error("cannot open", path);
  AIRLOCK_CHECK(write_all(fd.get(), data, path));
  if (!fd.close()) return io_error("cannot close", path);
  return {};
}

// The file a write to `path` replaces: `path` itself, or, when `path` is a symbolic link to a
// regular file, that file (the link stays a link: `-o /dev/stdout` with standard output
// redirected to a file lands in the file, and /dev/stdout is left alone).
// "-" is standard input where a file is read, and so would surprise as the name of a file
// written: refused, pointing to /dev/stdout, which is written into.
Status check_not_dash(const std::string& path) {
  if (path == "-")
    return Error(ErrorCode::kUsage,
                 "'-' is not a file name here: to write to standard output, give /dev/stdout");
  return {};
}

Result<std::string> file_to_replace(const std::string& path) {
  AIRLOCK_CHECK(check_not_dash(path));
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return path;
  struct stat pointed {};
  if (::stat(path.c_str(), &pointed) != 0) return io_error("cannot follow the link", path);
  if (!S_ISREG(pointed.st_mode)) return path;  // a pipe or device behind it is written through
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  struct stat resolved {};
  if (!real || ::stat(real.get(), &resolved) != 0 || resolved.st_dev != pointed.st_dev ||
      resolved.st_ino != pointed.st_ino) {
    return Error(ErrorCode::kIo, "cannot write '" + path +
                                     "': the file its link names has no path to replace it by");
  }
  return std::string(real.get());
}

// Writes `data` into a new temporary file beside `path` (mode 0600, flushed to disk) and
// returns its name; nothing is left behind on failure.
Result<std::string> write_beside(const std::string& path, ByteView data) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  // A short name, so a target whose own name is near the file system's limit still works.
  std::string temp = (dir / ".airlock-XXXXXX").string();
  UniqueFd fd(mkstemp(temp.data()));
  if (!fd.valid()) return io_error("cannot create a temporary file beside", path);
  fchmod(fd.get(), 0600);
  if (auto s = write_all(fd.get(), data, temp); !s.ok()) {
    fd.reset();
    ::unlink(temp.c_str());
    return s.error();
  }
  if (::fsync(fd.get()) != 0 || !fd.close()) {
    auto error = io_error("cannot flush", temp);
    ::unlink(temp.c_str());
    return error;
  }
  return temp;
}

// Makes a rename or link in the folder holding `path` durable.
void sync_folder_of(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  const UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.valid()) ::fsync(dir_fd.get());
}

}  // namespace

Status write_atomically(const std::string& given, ByteView data) {
  AIRLOCK_TRY(path, file_to_replace(given));
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    if (S_ISFIFO(existing.st_mode) || S_ISCHR(existing.st_mode)) return write_through(path, data);
    return Error(ErrorCode::kIo, "cannot write '" + given +
                                     "': it exists and is neither a regular file, a pipe "
                                     "nor a character device");
  }
  AIRLOCK_TRY(temp, write_beside(path, data));
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    auto error = io_error("cannot rename the temporary file to", path);
    ::unlink(temp.c_str());
    return error;
  }
  sync_folder_of(path);
  return {};
}

Status write_new(const std::string& path, ByteView data) {
  AIRLOCK_CHECK(check_not_dash(path));
  AIRLOCK_TRY(temp, write_beside(path, data));
  // link() fails when the name exists, so the file appears whole or not at all, and never
  // in place of another.
  const int linked = ::link(temp.c_str(), path.c_str());
  const int link_errno = errno;
  ::unlink(temp.c_str());
  if (linked != 0) {
    errno = link_errno;
    return io_error(link_errno == EEXIST ? "will not replace" : "cannot create", path);
  }
  sync_folder_of(path);
  return {};
}

Status move_new(const std::string& from, const std::string& to) {
  AIRLOCK_CHECK(check_not_dash(to));
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0) {
    // A file system without RENAME_NOREPLACE: link (which never replaces), then unlink.
    if (errno != EINVAL || ::link(from.c_str(), to.c_str()) != 0)
      return io_error("cannot move '" + from + "' to", to);
    ::unlink(from.c_str());
  }
  sync_folder_of(to);
  return {};
}

Status check_can_write(const std::string& given) {
  AIRLOCK_TRY(path, file_to_replace(given));
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0) {
    if (S_ISFIFO(existing.st_mode) || S_ISCHR(existing.st_mode)) return {};
    if (!S_ISREG(existing.st_mode)) {
      return Error(ErrorCode::kIo, "cannot write '" + given +
                                       "': it exists and is neither a regular file, a pipe "
                                       "nor a character device");
    }
  }
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  struct stat folder {};
  if (::stat(dir.c_str(), &folder) != 0 || !S_ISDIR(folder.st_mode))
    return Error(ErrorCode::kIo, "cannot write '" + given + "': its folder does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return io_error("cannot write into the folder of", given);
  return {};
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat first {};
  struct stat second {};
  return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 &&
         first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

Status check_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (const auto& out : outputs) {
    for (const auto& in : inputs) {
      if (same_file(out.path, in.path)) {
        return Error(ErrorCode::kUsage, out.option + ": '" + out.path + "' is the file of " +
                                            in.option + ", which writing it would replace");
      }
    }
    if (auto s = check_can_write(out.path); !s.ok()) return s.error().in_field(out.option);
  }
  return {};
}

std::string snapshot(const std::vector<std::string>& paths) {
  std::string out;
  std::error_code ec;
  const auto describe = [&](const std::filesystem::path& p) {
    const auto size = std::filesystem::file_size(p, ec);
    const auto time = std::filesystem::last_write_time(p, ec);
    out += p.string() + ":" + std::to_string(ec ? 0 : size) + ":" +
           std::to_string(time.time_since_epoch().count()) + ";";
  };
  for (const auto& path : paths) {
    if (std::filesystem::is_directory(path, ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(path, ec))
        describe(entry.path());
    } else if (std::filesystem::exists(path, ec)) {
      describe(path);
    }
  }
  return out;
}

Result<Bytes> read_limited(const std::string& path, std::size_t limit) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return Error(ErrorCode::kIo, "cannot open '" + path + "'");
    in = &file;
  }
  // Read as it comes, so memory follows the file's size, not the limit (a reconcile given
  // twenty small exports held twenty times the 65 MiB bound: found by an independent review).
  Bytes data;
  char chunk[65536];
  while (*in) {
    in->read(chunk, sizeof chunk);
    if (in->bad()) return Error(ErrorCode::kIo, "cannot read '" + path + "'");
    data.insert(data.end(), chunk, chunk + in->gcount());
    if (data.size() > limit) {
      return Error(ErrorCode::kTooLarge, "'" + path + "' is larger than the limit of " +
                                             std::to_string(limit) + " bytes");
    }
  }
  return data;
}

Bytes wrap_envelope(EnvelopeKind kind, ByteView cbor) {
  const auto& magic = kind == EnvelopeKind::kRequest ? kRequestMagic : kResponseMagic;
  Bytes out(magic.begin(), magic.end());
  out.insert(out.end(), cbor.begin(), cbor.end());
  return out;
}

Result<std::pair<EnvelopeKind, Bytes>> unwrap_envelope(ByteView file) {
  if (file.size() > 4) {
    const ByteView magic = file.first(4);
    const Bytes body(file.begin() + 4, file.end());
    if (std::equal(magic.begin(), magic.end(), kRequestMagic.begin())) {
      return std::make_pair(EnvelopeKind::kRequest, body);
    }
    if (std::equal(magic.begin(), magic.end(), kResponseMagic.begin())) {
      return std::make_pair(EnvelopeKind::kResponse, body);
    }
  }
  return Error(dense::errors::kFrameInvalid,
               "file does not start with an airlock envelope magic (ALQ1 or ALS1)");
}

}  // namespace airlock::files
