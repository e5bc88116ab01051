// Bad TMF text: each case gets its status and a message naming the line,
// and the decoder keeps the messages it had (all or nothing).
#include "decode/tmf.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <string>

namespace {

const char *kGuid = "6f70656e-7770-7064-6465-6d6f00000002 Demo\n";

struct Case {
    const char *what;
    std::string text;
    etw_status status;
    const char *message; // a part of etw_last_error_message
};

std::string msg(const char *typev, const char *args = nullptr)
{
    std::string t = std::string(kGuid) + typev + "\n";
    if (args)
        t += std::string("{\n") + args + "}\n";
    return t;
}

TEST(TmfErrors, EveryBadLineHasItsStatusAndLine)
{
    const Case cases[] = {
        {"not a GUID line", "hello world\n", ETW_ERROR_INVALID_DATA, "line 1: expected a message GUID line"},
        {"GUID without module", "6f70656e-7770-7064-6465-6d6f00000002\n", ETW_ERROR_INVALID_DATA,
         "line 1: the message GUID line names no module"},
        {"#typev first", "#typev a 1 \"x\"\n", ETW_ERROR_INVALID_DATA, "line 1: #typev before any message GUID line"},
        {"unknown directive", std::string(kGuid) + "#typex a 1 \"x\"\n", ETW_ERROR_INVALID_DATA,
         "line 2: unknown directive '#typex'"},
        {"no number", msg("#typev a"), ETW_ERROR_INVALID_DATA, "line 2: #typev has no message number"},
        {"number too big", msg("#typev a 70000 \"x\""), ETW_ERROR_INVALID_DATA,
         "line 2: #typev message number '70000'"},
        {"no format", msg("#typev a 1 x"), ETW_ERROR_INVALID_DATA, "line 2: #typev has no quoted format string"},
        {"unterminated format", msg("#typev a 1 \"x %10!d! // FUNC=f"), ETW_ERROR_INVALID_DATA,
         "line 2: the format string has no closing quote"},
        {"unknown item", msg("#typev a 1 \"%10!d!\"", "v, ItemBogus -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 4: unknown item type 'ItemBogus'"},
        {"no item", msg("#typev a 1 \"x\"", "v -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 4: the argument has no Item type"},
        {"argument number < 10", msg("#typev a 1 \"x\"", "v, ItemLong -- 3\n"), ETW_ERROR_INVALID_DATA,
         "line 4: argument number '3'"},
        {"no argument number", msg("#typev a 1 \"x\"", "v, ItemLong\n"), ETW_ERROR_INVALID_DATA,
         "line 4: expected an argument line"},
        {"argument twice", msg("#typev a 1 \"x\"", "v, ItemLong -- 10\nw, ItemLong -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 5: argument 10 is listed twice"},
        {"undeclared argument", msg("#typev a 1 \"%10!d! %11!d!\"", "v, ItemLong -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 2: the format uses %11"},
        {"unclosed spec", msg("#typev a 1 \"%10!d\"", "v, ItemLong -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 2: the format's %10 has no closing '!'"},
        {"no closing brace", std::string(kGuid) + "#typev a 1 \"x\"\n{\nv, ItemLong -- 10\n", ETW_ERROR_INVALID_DATA,
         "the argument list has no '}'"},
        {"stray brace", std::string(kGuid) + "}\n", ETW_ERROR_INVALID_DATA, "line 2: '}' without '{'"},
        {"brace without #typev", std::string(kGuid) + "{\n", ETW_ERROR_INVALID_DATA,
         "line 2: '{' without a #typev line"},
        {"message twice", std::string(kGuid) + "#typev a 1 \"x\"\n#typev b 1 \"y\"\n", ETW_ERROR_INVALID_DATA,
         "line 3: message 1 of GUID"},
        {"bad list value", msg("#typev a 1 \"x\"", "v, ItemListLong(A,B=zz) -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 4: ItemListLong: the value of 'B' is not a number"},
        {"bad list name", msg("#typev a 1 \"x\"", "v, ItemSetByte(A,,B) -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 4: ItemSetByte: '' is not a name"},
        {"ItemEnum without name", msg("#typev a 1 \"x\"", "v, ItemEnum() -- 10\n"), ETW_ERROR_INVALID_DATA,
         "line 4: ItemEnum needs a type name"},
        {"NUL character", std::string(kGuid) + std::string("#typev a 1 \"x\0\"\n", 16), ETW_ERROR_INVALID_DATA,
         "line 2: a NUL character"},
        {"odd UTF-16", std::string("\xFF\xFE\x41", 3), ETW_ERROR_NO_UNICODE_TRANSLATION,
         "UTF-16 text of an odd number of bytes"},
    };
    etw_decoder *d = nullptr;
    ASSERT_EQ(etw_decoder_create(&d), ETW_OK);
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        EXPECT_EQ(etw_decoder_load_tmf_text(d, c.text.data(), c.text.size()), c.status);
        const std::string m = etw_last_error_message();
        EXPECT_NE(m.find(c.message), std::string::npos) << m;
        EXPECT_NE(m.find("TMF '(memory)'"), std::string::npos) << m;
    }
    etw_decoder_destroy(d);
}

TEST(TmfErrors, AFailedLoadKeepsWhatWasLoaded)
{
    using openetw::decode::TmfSchemas;
    auto bytes = [](const std::string &t) {
        return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t *>(t.data()), t.size());
    };
    TmfSchemas s;
    openetw::format::Problem problem;
    const std::string good = std::string(kGuid) + "#typev a 1 \"x\"\n";
    ASSERT_TRUE(s.load(bytes(good), problem)) << problem.detail;
    EXPECT_EQ(s.size(), 1u);
    // Message 2 is good, the line after it is not: nothing of this text is added.
    const std::string bad = std::string(kGuid) + "#typev b 2 \"y\"\n#typev c 3\n";
    EXPECT_FALSE(s.load(bytes(bad), problem));
    EXPECT_EQ(problem.detail, "line 3: #typev has no quoted format string");
    EXPECT_EQ(s.size(), 1u);
}

TEST(TmfErrors, FilesAndParameters)
{
    etw_decoder *d = nullptr;
    ASSERT_EQ(etw_decoder_create(&d), ETW_OK);
    EXPECT_EQ(etw_decoder_load_tmf(d, "/nonexistent/x.tmf"), ETW_ERROR_FILE_NOT_FOUND);
    EXPECT_EQ(etw_decoder_load_tmf(d, OPENETW_SAMPLES_DIR), ETW_ERROR_FILE_NOT_FOUND); // a directory without .tmf files
    EXPECT_NE(std::string(etw_last_error_message()).find("holds no .tmf file"), std::string::npos);
    EXPECT_EQ(etw_decoder_load_tmf(d, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_decoder_load_tmf(nullptr, "x"), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_decoder_load_tmf_text(d, nullptr, 1), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_decoder_load_tmf_text(d, nullptr, 0), ETW_OK); // empty text: nothing to add
    etw_decoder_destroy(d);
}

} // namespace
