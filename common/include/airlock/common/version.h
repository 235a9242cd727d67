// What build this is: the version, the commit it was configured at and the build type, as
// every program prints it for --version (so what arrives on the offline machine can be matched
// to what was built).
#pragma once

#include <string_view>

namespace airlock {

[[nodiscard]] std::string_view version() noexcept;     // "0.1.0"
[[nodiscard]] std::string_view git_commit() noexcept;  // "abef3e1...", or "unknown"
[[nodiscard]] std::string_view build_type() noexcept;  // "Release", "Debug", ...

}  // namespace airlock
