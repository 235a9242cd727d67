#include <cstdio>
#include <cstdlib>
#include <ostream>

#include <airlock/common/error.h>

namespace airlock {

std::string_view error_kind_name(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::kInvalidInput:
      return "invalid input";
    case ErrorKind::kRefused:
      return "refused";
    case ErrorKind::kCorruption:
      return "corruption";
    case ErrorKind::kIo:
      return "I/O";
    case ErrorKind::kUsage:
      return "usage";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& out, const ErrorCode& code) { return out << code.name(); }

std::string Error::to_string() const {
  std::string out(code_name());
  out += ": ";
  out += message_;
  return out;
}

Error Error::in_field(std::string_view field) const {
  std::string prefixed(field);
  prefixed += ": ";
  prefixed += message_;
  return Error(code_, std::move(prefixed));
}

void wrong_result_access(const char* asked, const Error* held) noexcept {
  if (held != nullptr) {
    std::fprintf(stderr, "airlock: internal error: %s of a result holding the error %s\n", asked,
                 held->to_string().c_str());
  } else {
    std::fprintf(stderr, "airlock: internal error: %s of a result holding no error\n", asked);
  }
  std::abort();
}

}  // namespace airlock
