// JSON string escaping (base/json.hpp): what RFC 8259 requires escaped is
// escaped, and every other byte is copied as it is.
#include "base/json.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace openetw;

namespace {

std::string as_json(std::string_view text)
{
    std::string out;
    append_json_string(out, text);
    return out;
}

} // namespace

TEST(Json, EscapesTheQuoteAndTheBackslash)
{
    EXPECT_EQ(as_json("\""), "\"\\\"\"");
    EXPECT_EQ(as_json("\\"), "\"\\\\\"");
    EXPECT_EQ(as_json("a\"b\\c"), "\"a\\\"b\\\\c\"");
}

TEST(Json, EscapesEveryByteBelow0x20)
{
    for (int c = 0; c < 0x20; ++c) {
        std::string expected;
        switch (c) {
        case '\n':
            expected = "\\n";
            break;
        case '\r':
            expected = "\\r";
            break;
        case '\t':
            expected = "\\t";
            break;
        default: {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            expected = buf;
        }
        }
        const std::string text(1, char(c));
        EXPECT_EQ(as_json(text), "\"" + expected + "\"") << "byte " << c;
        EXPECT_EQ(as_json("x" + text + "y"), "\"x" + expected + "y\"") << "byte " << c;
    }
}

TEST(Json, EscapesANulInsideTheTextRatherThanStoppingAtIt)
{
    EXPECT_EQ(as_json(std::string_view("a\0b", 3)), "\"a\\u0000b\"");
}

TEST(Json, CopiesEveryOtherByteAsItIs)
{
    for (int c = 0x20; c < 0x100; ++c) {
        if (c == '"' || c == '\\')
            continue;
        const std::string text(1, char(c));
        EXPECT_EQ(as_json(text), "\"" + text + "\"") << "byte " << c;
    }
    // UTF-8 as it is, U+2028 and U+2029 included (JSON allows them unescaped).
    EXPECT_EQ(as_json("\xC3\xA9\xE2\x80\xA8\xE2\x80\xA9"), "\"\xC3\xA9\xE2\x80\xA8\xE2\x80\xA9\"");
}

TEST(Json, AppendsToWhatIsThere)
{
    std::string out = "{\"k\":";
    append_json_string(out, "");
    append_json_string(out, "v");
    EXPECT_EQ(out, "{\"k\":\"\"\"v\"");
}
