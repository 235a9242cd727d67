#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fcntl.h>
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

}  // namespace

Status write_atomically(const std::string& path, ByteView data) {
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    if (S_ISFIFO(existing.st_mode) || S_ISCHR(existing.st_mode)) return write_through(path, data);
    return Error(ErrorCode::kIo, "cannot write '" + path +
                                     "': it exists and is neither a regular file, a pipe "
                                     "nor a character device");
  }
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::string temp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  UniqueFd fd(mkstemp(temp.data()));
  if (!fd.valid()) return io_error("cannot create a temporary file beside", path);
  fchmod(fd.get(), 0600);
  if (auto s = write_all(fd.get(), data, temp); !s.ok()) {
    fd.reset();
    ::unlink(temp.c_str());
    return s;
  }
  if (::fsync(fd.get()) != 0 || !fd.close()) {
    auto error = io_error("cannot flush", temp);
    ::unlink(temp.c_str());
    return error;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    auto error = io_error("cannot rename the temporary file to", path);
    ::unlink(temp.c_str());
    return error;
  }
  // Make the rename itself durable.
  const UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.valid()) ::fsync(dir_fd.get());
  return {};
}

Result<Bytes> read_limited(const std::string& path, std::size_t limit) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return Error(ErrorCode::kIo, "cannot open '" + path + "'");
    in = &file;
  }
  Bytes data(limit + 1);
  in->read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (in->bad()) return Error(ErrorCode::kIo, "cannot read '" + path + "'");
  data.resize(static_cast<std::size_t>(in->gcount()));
  if (data.size() > limit) {
    return Error(ErrorCode::kTooLarge,
                 "'" + path + "' is larger than the limit of " + std::to_string(limit) + " bytes");
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
