// Strict UTF-8/UTF-16 conversion and GUID text, used by every layer.
#include "base/guid.hpp"
#include "base/utf.hpp"

#include <openetw/constants.h>

#include <gtest/gtest.h>

using namespace openetw;

TEST(Utf, RoundTripsAllPlanes)
{
    const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z"; // a, e-acute, euro, emoji, z
    auto u16 = utf8_to_utf16(text);
    ASSERT_TRUE(u16);
    EXPECT_EQ(*u16, std::u16string(u"a\u00e9\u20ac\U0001F600z"));
    auto back = utf16_to_utf8(*u16);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, text);
}

TEST(Utf, RejectsInvalidUtf8)
{
    for (const char *bad :
         {"\x80", "\xC3", "\xC0\x80", "\xE0\x80\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80"})
        EXPECT_FALSE(utf8_to_utf16(bad)) << static_cast<int>(static_cast<unsigned char>(bad[0]));
}

TEST(Utf, FindsUnpairedSurrogates)
{
    EXPECT_EQ(find_unpaired_surrogate(u"ok"), std::u16string_view::npos);
    EXPECT_EQ(find_unpaired_surrogate(u"\U0001F600"), std::u16string_view::npos);
    const char16_t high[] = {u'a', 0xD800, u'b', 0};
    const char16_t low[] = {0xDC00, 0};
    const char16_t trailing_high[] = {u'x', 0xDBFF, 0};
    EXPECT_EQ(find_unpaired_surrogate(high), 1u);
    EXPECT_EQ(find_unpaired_surrogate(low), 0u);
    EXPECT_EQ(find_unpaired_surrogate(trailing_high), 1u);
    EXPECT_FALSE(utf16_to_utf8(high));
    EXPECT_EQ(utf16_to_utf8_lossy(high), "a\xEF\xBF\xBD"
                                         "b");
}

TEST(Utf, LittleEndianUnitsAtAnyAlignment)
{
    std::uint8_t bytes[9] = {0};
    write_utf16le(bytes + 1, u"\u00e9Z");
    EXPECT_EQ(bytes[1], 0xE9);
    EXPECT_EQ(bytes[2], 0x00);
    EXPECT_EQ(bytes[3], 'Z');
    EXPECT_EQ(read_utf16le(bytes + 1, 2), std::u16string(u"\u00e9Z"));
}

TEST(Guid, CanonicalTextBothWays)
{
    const etw_guid g = ETW_SYSTEM_TRACE_CONTROL_GUID_INIT;
    EXPECT_EQ(guid_to_string(g), "9e814aad-3204-11d2-9a82-006008a86939");
    auto parsed = guid_from_string("{9E814AAD-3204-11D2-9A82-006008A86939}");
    ASSERT_TRUE(parsed);
    EXPECT_TRUE(guid_equal(*parsed, g));
    EXPECT_FALSE(guid_from_string("9e814aad-3204-11d2-9a82-006008a8693"));
    EXPECT_FALSE(guid_from_string("9e814aad+3204-11d2-9a82-006008a86939"));
    EXPECT_FALSE(guid_from_string("9e814aad-3204-11d2-9a82-006008a8693g"));
    EXPECT_TRUE(guid_is_null(etw_guid{}));
}
