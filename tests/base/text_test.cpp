// printable() and dump_json() (base/text.h) and photon::Error's use of them, against hand-written
// byte strings: RFC 3629 well-formedness, the escapes, and one-line errors.
#include <gtest/gtest.h>

#include "base/error.h"
#include "base/text.h"

namespace photon {
namespace {

TEST(Text, Utf8WellFormedness) {
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // été € 😀
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc3"));              // truncated
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate U+D800
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\x80"));              // lone continuation byte
}

TEST(Text, PrintableEscapesWhatCouldBreakALine) {
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable(std::string("\x00\x1b[2J\x7f", 6)), "\\x00\\x1b[2J\\x7f");
  EXPECT_EQ(printable("caf\xc3\xa9 \\ ok"), "caf\xc3\xa9 \\ ok");  // UTF-8 and backslashes kept
  EXPECT_EQ(printable("\xff\xc3("), "\\xff\\xc3(");
  EXPECT_EQ(printable("\xc2\x85|\xe2\x80\xa8|\xe2\x80\xa9"),
            "\\xc2\\x85|\\xe2\\x80\\xa8|\\xe2\\x80\\xa9");  // NEL, LS, PS
  const std::string all = [] {
    std::string s;
    for (int c = 0; c < 256; ++c) s += char(c);
    return s;
  }();
  const std::string p = printable(all);
  EXPECT_TRUE(is_valid_utf8(p));
  EXPECT_EQ(p.find('\n'), std::string::npos);
  for (unsigned char c : p) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
}

TEST(Text, ErrorsAreOneLine) {
  Error e("unknown op 'a\nb'");
  e.with_context("model\x1b[31m.onnx");
  EXPECT_EQ(std::string(e.what()), "model\\x1b[31m.onnx: unknown op 'a\\nb'");
  EXPECT_EQ(e.message(), "unknown op 'a\\nb'");
}

TEST(Text, DumpJsonEscapesInvalidUtf8) {
  nlohmann::json j = {{"name", "conv\xff"}, {"ok", "\xc3\xa9"}, {"list", {"\xfe", 1}}};
  j["k\xff"] = 2;
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what the library does alone
  const nlohmann::json back = nlohmann::json::parse(dump_json(j, 1));
  EXPECT_EQ(back["name"], "conv\\xff");
  EXPECT_EQ(back["ok"], "\xc3\xa9");
  EXPECT_EQ(back["list"][0], "\\xfe");
  EXPECT_EQ(back["k\\xff"], 2);
  const nlohmann::json valid = {{"a", "b\n"}};
  EXPECT_EQ(dump_json(valid), valid.dump());
}

}  // namespace
}  // namespace photon
