#include <algorithm>
#include <charconv>

#include <airlock/common/display.h>
#include <airlock/offline/arguments.h>
#include <airlock/offline/decode.h>

namespace airlock::offline {

using ojson = nlohmann::ordered_json;

const ojson* Arguments::at(std::string_view path) const {
  const ojson* here = &args_;
  while (!path.empty()) {
    const std::size_t dot = path.find('.');
    const std::string name(path.substr(0, dot));
    if (!here->is_object()) return nullptr;
    const auto it = here->find(name);
    if (it == here->end()) return nullptr;
    here = &*it;
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return here;
}

std::optional<std::int64_t> integer_value(const ojson& v) {
  if (v.is_number_unsigned()) {
    const auto n = v.get<std::uint64_t>();
    return n > static_cast<std::uint64_t>(INT64_MAX) ? std::nullopt
                                                     : std::optional(static_cast<std::int64_t>(n));
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (!v.is_string()) return std::nullopt;
  const auto& t = v.get_ref<const std::string&>();
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  // Canonical decimal only: no sign but '-', no leading zero, nothing after the digits.
  const bool canonical = !t.empty() && t != "-0" && !(t[0] == '0' && t.size() > 1) &&
                         !(t.size() > 1 && t[0] == '-' && t[1] == '0');
  if (ec != std::errc() || end != t.data() + t.size() || !canonical) return std::nullopt;
  return n;
}

std::optional<std::int64_t> Arguments::integer(std::string_view path) const {
  const ojson* v = at(path);
  return v == nullptr ? std::nullopt : integer_value(*v);
}

std::optional<std::uint64_t> Arguments::amount(std::string_view path) const {
  const ojson* v = at(path);
  return v == nullptr ? std::nullopt : integer_arg(*v);
}

std::optional<std::string> Arguments::variant(std::string_view path) const {
  const ojson* v = at(path);
  if (v == nullptr || !v->is_object()) return std::nullopt;
  const auto it = v->find("variant");
  if (it == v->end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::string Arguments::shown(std::string_view path) const {
  const ojson* v = at(path);
  return v == nullptr ? "missing" : printable(v->dump());
}

const ojson* body_at(const ojson& body, std::string_view pointer) {
  const ojson* here = &body;
  if (pointer.empty()) return here;
  if (pointer.front() != '/') return nullptr;
  pointer.remove_prefix(1);
  while (true) {
    const std::size_t slash = pointer.find('/');
    const std::string_view raw = pointer.substr(0, slash);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token += raw[i];
        continue;
      }
      if (i + 1 >= raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1')) return nullptr;
      token += raw[++i] == '0' ? '~' : '/';
    }
    if (here->is_object()) {
      const auto it = here->find(token);
      if (it == here->end()) return nullptr;
      here = &*it;
    } else if (here->is_array()) {
      std::size_t index = 0;
      const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      if (token.empty() || ec != std::errc() || end != token.data() + token.size() ||
          (token.size() > 1 && token[0] == '0') || index >= here->size())
        return nullptr;
      here = &(*here)[index];
    } else {
      return nullptr;
    }
    if (slash == std::string_view::npos) return here;
    pointer.remove_prefix(slash + 1);
  }
}

bool same_value(const ojson& got, const ojson& want) {
  // A decimal integer as text, however it came: wide integers (u64, u128) are decoded as
  // strings and amounts arrive as strings, so both sides are compared as canonical digits.
  const auto digits = [](const ojson& v) -> std::optional<std::string> {
    if (v.is_number_integer()) return v.dump();
    if (!v.is_string()) return std::nullopt;
    const auto& t = v.get_ref<const std::string&>();
    const std::size_t sign = !t.empty() && t[0] == '-' ? 1 : 0;
    if (t.size() == sign || t.size() > 40 || (t[sign] == '0' && t.size() > sign + 1))
      return std::nullopt;
    if (!std::all_of(t.begin() + static_cast<std::ptrdiff_t>(sign), t.end(),
                     [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    return t;
  };
  // The same kind on both sides: an integer the IDL decodes as a number (32 bits and less) is
  // a number in the body, a wide one (a decimal string) a string, as the API writes amounts. A
  // bin id sent as "4990" or an amount sent as 5000000 is not what the API builds from.
  if (got.is_number_integer() != want.is_number_integer()) return false;
  if (got.is_number_integer() || (got.is_string() && digits(got))) {
    const auto a = digits(got), b = digits(want);
    return a && b && *a == *b;
  }
  return got == want;
}

}  // namespace airlock::offline
