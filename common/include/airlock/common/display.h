// Text from outside (token symbols and names, memo text, IDL string arguments, the build request
// body, server messages) made safe to put on a terminal or a report: nothing in it can move the
// cursor, erase a line, reorder what follows or hide itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace airlock {

// Escapes every code point a terminal would act on or not show as itself: controls (C0, DEL,
// C1; `\n` too unless `keep_newlines`), format characters (bidi embeddings, overrides and
// isolates, zero-width joiners and spaces, the BOM), line and paragraph separators, unassigned,
// private-use and surrogate code points, and every space but U+0020. Each becomes `\u{XXXX}`;
// a byte that is not UTF-8 becomes `\xNN`. A backslash becomes `\\`, so escaped text cannot
// pose as other escaped text. Printable text of any script passes unchanged.
[[nodiscard]] std::string printable(std::string_view text, bool keep_newlines = false);

// True when `printable(text)` would change nothing.
[[nodiscard]] bool is_printable(std::string_view text);

// The columns `text` takes on a terminal: combining marks, enclosing marks and format
// characters take none, East Asian wide and fullwidth characters two, others one. Text that is
// not UTF-8 counts one column per byte (printable() shows such bytes escaped).
[[nodiscard]] std::size_t display_width(std::string_view text);

// Text as HTML or XML character data or an attribute value: & < > " ' become entities, so the
// text can open no element, attribute or comment. Apply printable() first for outside text.
[[nodiscard]] std::string xml_escape(std::string_view text);

// A unix time as ISO 8601 in UTC, "2026-11-27T14:03:09Z" ("unix N" where the calendar ends).
[[nodiscard]] std::string iso_utc(std::int64_t unix_seconds);

}  // namespace airlock
