// Provider binaries through the shared library: etw_decoder_load_binary on
// real Microsoft DLLs that carry a WEVT_TEMPLATE resource (found at their
// installed paths: the .NET SDK's Web Deploy tracing DLL, the code coverage
// runtime of the Microsoft.CodeCoverage NuGet package in its PE32+ and PE32
// builds, the Windows SDK build tools' appxpackaging.dll), decoding records
// built from their events; then damaged copies of one of them, each with its
// status and message. The expected names, ids, versions and types were read
// from the bytes by hand (a hex dump of each resource), not from this code.
#include <openetw/openetw.h>

#include "provider_binaries.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using provbin::appx;
using provbin::covrun;
using provbin::web_deploy;

etw_guid guid(uint32_t d1, uint16_t d2, uint16_t d3, std::initializer_list<uint8_t> d4)
{
    etw_guid g{d1, d2, d3, {}};
    std::copy(d4.begin(), d4.end(), g.Data4);
    return g;
}

const etw_guid kWebDeploy = guid(0xab77e98e, 0x0138, 0x4c77, {0x8b, 0xfb, 0xde, 0xcd, 0x33, 0xed, 0xfe, 0x3c});
const etw_guid kCovrun = guid(0xf43843f1, 0x86d6, 0x493a, {0x96, 0x31, 0x30, 0xdb, 0x0a, 0xcf, 0xbd, 0xd8});
const etw_guid kAppx = guid(0xba723d81, 0x0d0c, 0x4f1e, {0x80, 0xc8, 0x54, 0x74, 0x0f, 0x50, 0x8d, 0xdf});

// Little-endian payload builder.
struct Payload {
    std::vector<uint8_t> b;
    Payload &u32(uint32_t v)
    {
        for (int i = 0; i < 4; ++i)
            b.push_back(uint8_t(v >> (8 * i)));
        return *this;
    }
    Payload &w(const char16_t *s)
    {
        for (; *s; ++s)
            b.push_back(uint8_t(*s)), b.push_back(uint8_t(*s >> 8));
        b.push_back(0), b.push_back(0);
        return *this;
    }
};

struct Event {
    etw_status status = ETW_OK;
    std::string name, provider, task, opcode, level, keywords;
    std::vector<std::pair<std::string, std::string>> fields;
    std::vector<std::pair<uint16_t, uint16_t>> types; // in, out
};

Event decode(etw_decoder *d, const etw_guid &provider, uint16_t id, uint8_t version, const Payload &p)
{
    etw_record r;
    std::memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.kind = ETW_RECORD_KIND_EVENT;
    r.pointer_size = 8;
    r.guid = provider;
    r.event_id = id;
    r.version = version;
    r.payload = p.b.data();
    r.payload_size = static_cast<uint32_t>(p.b.size());
    Event out;
    const etw_decoded_event *e = nullptr;
    out.status = etw_decoder_decode(&e, d, &r);
    if (out.status != ETW_OK)
        return out;
    out.name = e->event_name;
    out.provider = e->provider_name;
    out.task = e->task_name;
    out.opcode = e->opcode_name;
    out.level = e->level_name;
    out.keywords = e->keywords_name;
    for (uint32_t i = 0; i < e->property_count; ++i) {
        out.fields.emplace_back(e->properties[i].name, e->properties[i].value);
        out.types.emplace_back(e->properties[i].in_type, e->properties[i].out_type);
    }
    return out;
}

using Fields = std::vector<std::pair<std::string, std::string>>;
using Types = std::vector<std::pair<uint16_t, uint16_t>>;

class Binary : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(etw_decoder_create(&d_), ETW_OK); }
    void TearDown() override { etw_decoder_destroy(d_); }
    // Loads path, or skips (saying so) when that package is not installed here.
    bool load(const std::string &path, const char *what)
    {
        if (path.empty()) {
            std::printf("[  NOTE    ] %s is not installed here\n", what);
            return false;
        }
        std::printf("[  BINARY  ] %s\n", path.c_str());
        RecordProperty("binary", path);
        EXPECT_EQ(etw_decoder_load_binary(d_, path.c_str()), ETW_OK) << etw_last_error_message();
        return true;
    }
    etw_decoder *d_ = nullptr;
};

// The suite proves nothing where none of the binaries is installed: that is a failure.
TEST(BinaryInstalled, AtLeastOneProviderBinaryIsPresent)
{
    const bool any = !web_deploy().empty() || !covrun("amd64/covrun64.dll").empty() || !appx().empty();
    EXPECT_TRUE(any) << "none of Microsoft.Web.Deployment.Tracing.dll (.NET SDK), covrun64.dll "
                        "(NuGet microsoft.codecoverage), appxpackaging.dll (NuGet microsoft.windows.sdk.buildtools) "
                        "is installed: restore them (see tests/decode/binary_test.cpp)";
}

TEST_F(Binary, WebDeployEventsDecodeWithTheirMessageTableNames)
{
    if (!load(web_deploy(), "Microsoft.Web.Deployment.Tracing.dll"))
        GTEST_SKIP();
    // Event 27000 version 1: template ErrorCode (win:Int32), Message, StackTrace (win:UnicodeString);
    // level win:Error, message 0x50000002 "Error"; provider message 0x90000001.
    const Event e = decode(d_, kWebDeploy, 27000, 1, Payload().u32(uint32_t(-5)).w(u"boom").w(u"at Main()"));
    ASSERT_EQ(e.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(e.provider, "Microsoft-Windows-WebDeploy");
    EXPECT_EQ(e.level, "Error");
    EXPECT_EQ(e.task, "");
    EXPECT_EQ(e.opcode, "");
    EXPECT_EQ(e.fields, (Fields{{"ErrorCode", "-5"}, {"Message", "boom"}, {"StackTrace", "at Main()"}}));
    EXPECT_EQ(e.types, (Types{{7, 7}, {1, 1}, {1, 1}}));
    // 27002 version 0: Message, ErrorCode (a string here), User, SiteName; 27004: level win:Warning.
    const Event f = decode(d_, kWebDeploy, 27002, 0, Payload().w(u"m").w(u"E1").w(u"u").w(u"s"));
    ASSERT_EQ(f.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(f.fields, (Fields{{"Message", "m"}, {"ErrorCode", "E1"}, {"User", "u"}, {"SiteName", "s"}}));
    const Event g = decode(d_, kWebDeploy, 27004, 0, Payload().w(u"m").w(u"u").w(u"s"));
    ASSERT_EQ(g.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(g.level, "Warning");
    EXPECT_EQ(g.fields, (Fields{{"Message", "m"}, {"User", "u"}, {"SiteName", "s"}}));
    // The version is part of the key: 27000 exists only as version 1.
    EXPECT_EQ(decode(d_, kWebDeploy, 27000, 0, Payload()).status, ETW_ERROR_NOT_FOUND);
    EXPECT_EQ(decode(d_, kWebDeploy, 27006, 0, Payload()).status, ETW_ERROR_NOT_FOUND);
}

// covrun64.dll (PE32+) and covrun32.dll (PE32) carry the same manifest: opcodes of their own
// (OPCO "AssertFailure" = 12 for event 2), no message for the provider or the opcodes.
void check_covrun(etw_decoder *d)
{
    const Event e = decode(d, kCovrun, 2, 0, Payload().u32(7).u32(0x10).w(u"assert"));
    ASSERT_EQ(e.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(e.provider, "{F43843F1-86D6-493A-9631-30DB0ACFBDD8}");
    EXPECT_EQ(e.opcode, "AssertFailure");
    EXPECT_EQ(e.name, "AssertFailure");
    EXPECT_EQ(e.level, "Warning");
    EXPECT_EQ(e.fields, (Fields{{"ComponentId", "7"}, {"CorrelationId", "16"}, {"Message", "assert"}}));
    EXPECT_EQ(e.types, (Types{{8, 8}, {8, 8}, {1, 1}}));
    const Event f = decode(d, kCovrun, 4, 0, Payload().u32(1).u32(2).w(u"n"));
    ASSERT_EQ(f.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(f.opcode, "Noteworthy");
    EXPECT_EQ(f.level, "Information");
    EXPECT_EQ(decode(d, kCovrun, 5, 0, Payload()).status, ETW_ERROR_NOT_FOUND);
}

TEST_F(Binary, CodeCoverage64)
{
    if (!load(covrun("amd64/covrun64.dll"), "covrun64.dll"))
        GTEST_SKIP();
    check_covrun(d_);
}

TEST_F(Binary, CodeCoverage32IsAPe32Image)
{
    if (!load(covrun("covrun32.dll"), "covrun32.dll"))
        GTEST_SKIP();
    check_covrun(d_);
}

TEST_F(Binary, AppxPackagingNamesTasksOpcodesKeywordsWithoutAMessageTable)
{
    if (!load(appx(), "appxpackaging.dll"))
        GTEST_SKIP();
    // PRVA names the provider; event 302: task 9 "AppXPackaging.Task.PackageWriter.AddPayloadFile",
    // opcode win:Start, level win:Informational, keyword 0x400000000000 "ms:Measures";
    // template fileName, contentType (win:UnicodeString), compressionOption (win:UInt32, map
    // CompressionOptionsMap, whose values have message ids only: shown as numbers).
    const Event e = decode(d_, kAppx, 302, 0, Payload().w(u"a.txt").w(u"text/plain").u32(2));
    ASSERT_EQ(e.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(e.provider, "Microsoft-Windows-AppxPackagingOM");
    EXPECT_EQ(e.task, "AppXPackaging.Task.PackageWriter.AddPayloadFile");
    EXPECT_EQ(e.opcode, "Start");
    EXPECT_EQ(e.name, "AppXPackaging.Task.PackageWriter.AddPayloadFile/Start");
    EXPECT_EQ(e.level, "Information");
    EXPECT_EQ(e.keywords, "ms:Measures");
    EXPECT_EQ(e.fields, (Fields{{"fileName", "a.txt"}, {"contentType", "text/plain"}, {"compressionOption", "2"}}));
    // Event 100: task 4 "Manifest", opcode 11 of task 4 ("Parse"), level win:Error; template
    // errorCode (in-type 0x14 HexInt32, out-type 0x12 HexInt32), lineNumber, columnNumber, reason.
    const Event f = decode(d_, kAppx, 100, 0, Payload().u32(0x80070057).u32(3).u32(9).w(u"bad"));
    ASSERT_EQ(f.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(f.types, (Types{{20, 18}, {8, 8}, {8, 8}, {1, 1}}));
    EXPECT_EQ(f.fields,
              (Fields{{"errorCode", "0x80070057"}, {"lineNumber", "3"}, {"columnNumber", "9"}, {"reason", "bad"}}));
    EXPECT_EQ(f.task, "Manifest");
    EXPECT_EQ(f.opcode, "Parse");
    EXPECT_EQ(f.level, "Error");
}

} // namespace
