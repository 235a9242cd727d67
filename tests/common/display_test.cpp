// Untrusted text on a terminal: nothing in it may act on the terminal or hide itself.
#include <gtest/gtest.h>

#include <airlock/common/display.h>

namespace airlock {
namespace {

TEST(Printable, TerminalControlsAreShownNotObeyed) {
  // ESC sequences (colour, cursor moves, window title), carriage return, backspace, bell, DEL
  // and the C1 CSI.
  EXPECT_EQ(printable("a\x1b[2K\x1b]0;title\x07z"), "a\\u{001B}[2K\\u{001B}]0;title\\u{0007}z");
  EXPECT_EQ(printable("ok\rFAKE"), "ok\\u{000D}FAKE");
  EXPECT_EQ(printable("x\by\x7f"), "x\\u{0008}y\\u{007F}");
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\u{009B}31m");
  EXPECT_EQ(printable("line\nnext"), "line\\u{000A}next");
  EXPECT_EQ(printable("line\nnext", true), "line\nnext");
}

TEST(Printable, BidiAndInvisibleCharactersAreShownByNumber) {
  EXPECT_EQ(printable("USDC\xe2\x80\xae"
                      "evil"),
            "USDC\\u{202E}evil");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(printable("a\xe2\x81\xa6"
                      "b"),
            "a\\u{2066}b");                                 // LEFT-TO-RIGHT ISOLATE
  EXPECT_EQ(printable("J\xe2\x80\x8bUP"), "J\\u{200B}UP");  // ZERO WIDTH SPACE
  EXPECT_EQ(printable("\xef\xbb\xbfSOL"), "\\u{FEFF}SOL");  // BOM
  EXPECT_EQ(printable("a\xc2\xa0"
                      "b"),
            "a\\u{00A0}b");  // NO-BREAK SPACE
  EXPECT_EQ(printable("a\xe2\x80\xa8"
                      "b"),
            "a\\u{2028}b");                           // LINE SEPARATOR
  EXPECT_EQ(printable("\xee\x80\x80"), "\\u{E000}");  // private use
}

TEST(Printable, BytesThatAreNotUtf8AreShownAsBytes) {
  EXPECT_EQ(printable("a\xff"
                      "b"),
            "a\\xFFb");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xC0\\xAF");           // an overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xED\\xA0\\x80");  // a UTF-16 surrogate in UTF-8
}

TEST(Printable, EscapesCannotBeForgedAndOrdinaryTextPasses) {
  EXPECT_EQ(printable("\\u{202E}"), "\\\\u{202E}");
  EXPECT_EQ(printable("USDC / So1 — Ωμέγα 日本 🙂 $"),
            "USDC / So1 — Ωμέγα 日本 🙂 $");
  EXPECT_TRUE(is_printable("JUP"));
  EXPECT_TRUE(is_printable("JU\xce\xa1"));  // a Greek Rho prints as itself (confusables are
                                            // the policy's concern)
  EXPECT_FALSE(is_printable("JUP\x1b"));
  EXPECT_FALSE(is_printable("a\\b"));
}

}  // namespace
}  // namespace airlock

namespace airlock {
namespace {

TEST(DisplayWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(display_width("JUP"), 3U);
  EXPECT_EQ(display_width("BONK\u0301\u0301\u0301"), 4U) << "combining marks take no column";
  EXPECT_EQ(display_width("\u65e5\u672c"), 4U) << "wide characters take two";
  EXPECT_EQ(display_width("a\u200bb"), 2U) << "a zero-width space takes none";
  EXPECT_EQ(display_width("\xff\xfe"), 2U) << "bytes that are not UTF-8, one each";
  EXPECT_EQ(display_width("▁▂█"), 3U);
}

TEST(XmlEscape, MarkupCharactersBecomeEntitiesAndTextPasses) {
  EXPECT_EQ(xml_escape("</pre><script>alert('x')</script>"),
            "&lt;/pre&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  EXPECT_EQ(xml_escape("a=\"1\" & b"), "a=&quot;1&quot; &amp; b");
  EXPECT_EQ(xml_escape("&amp;"), "&amp;amp;") << "an entity in the text stays text";
  EXPECT_EQ(xml_escape("SOL ▁▂█ 5000"), "SOL ▁▂█ 5000");
}

}  // namespace
}  // namespace airlock
