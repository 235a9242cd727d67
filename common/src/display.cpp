#include <cstdint>
#include <cstdio>
#include <ctime>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <airlock/common/display.h>

namespace airlock {
namespace {

bool shown_as_itself(UChar32 c) {
  if (c == ' ') return true;
  switch (u_charType(c)) {
    case U_CONTROL_CHAR:         // Cc
    case U_FORMAT_CHAR:          // Cf: bidi controls, zero-width characters, BOM
    case U_UNASSIGNED:           // Cn
    case U_PRIVATE_USE_CHAR:     // Co
    case U_SURROGATE:            // Cs
    case U_LINE_SEPARATOR:       // Zl
    case U_PARAGRAPH_SEPARATOR:  // Zp
    case U_SPACE_SEPARATOR:      // Zs other than U+0020: look like a space, are not one
      return false;
    default:
      return true;
  }
}

void escape_code_point(std::string& out, UChar32 c) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\u{%04X}", static_cast<unsigned>(c));
  out += buffer;
}

}  // namespace

std::string printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto length = static_cast<std::int32_t>(text.size());
  std::int32_t i = 0;
  while (i < length) {
    const std::int32_t start = i;
    UChar32 c = 0;
    U8_NEXT(s, i, length, c);
    if (c < 0) {  // not UTF-8: each byte of the bad sequence shown as a byte
      for (std::int32_t b = start; b < i; ++b) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\x%02X", static_cast<unsigned>(s[b]));
        out += buffer;
      }
      continue;
    }
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n' && keep_newlines) {
      out += '\n';
    } else if (shown_as_itself(c)) {
      out.append(text.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)));
    } else {
      escape_code_point(out, c);
    }
  }
  return out;
}

bool is_printable(std::string_view text) { return printable(text) == text; }

std::size_t display_width(std::string_view text) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto length = static_cast<std::int32_t>(text.size());
  std::size_t width = 0;
  std::int32_t i = 0;
  while (i < length) {
    const std::int32_t start = i;
    UChar32 c = 0;
    U8_NEXT(s, i, length, c);
    if (c < 0) {
      width += static_cast<std::size_t>(i - start);
      continue;
    }
    const auto type = u_charType(c);
    if (type == U_NON_SPACING_MARK || type == U_ENCLOSING_MARK || type == U_FORMAT_CHAR) continue;
    const auto east_asian = u_getIntPropertyValue(c, UCHAR_EAST_ASIAN_WIDTH);
    width += east_asian == U_EA_WIDE || east_asian == U_EA_FULLWIDTH ? 2 : 1;
  }
  return width;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string iso_utc(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm utc{};
  if (::gmtime_r(&t, &utc) == nullptr) return "unix " + std::to_string(unix_seconds);
  char text[40] = {};
  if (std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0)
    return "unix " + std::to_string(unix_seconds);
  return text;
}

}  // namespace airlock
