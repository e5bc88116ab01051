// Bad manifests: each gives its status and a message that names the line
// and the fault, and a failed load keeps what the decoder had.
#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <string>

namespace {

const char kHead[] = R"(<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
 xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
<instrumentation><events>
<provider name="P" guid="{11111111-2222-3333-4444-555555555555}">
)";
const char kTail[] = "</provider></events></instrumentation></instrumentationManifest>\n";

// A manifest with the given provider content (provider on line 4).
std::string manifest(const std::string &body) { return kHead + body + kTail; }

struct Loaded {
    etw_status status;
    std::string message;
};

Loaded load(const std::string &text)
{
    etw_decoder *d = nullptr;
    EXPECT_EQ(etw_decoder_create(&d), ETW_OK);
    const etw_status s = etw_decoder_load_manifest_text(d, text.data(), text.size());
    Loaded out{s, s == ETW_OK ? "" : etw_last_error_message()};
    etw_decoder_destroy(d);
    return out;
}

void expect_error(const std::string &text, etw_status status, const std::string &part)
{
    const Loaded l = load(text);
    EXPECT_EQ(l.status, status) << l.message;
    EXPECT_NE(l.message.find(part), std::string::npos) << "message: " << l.message << "\nexpected: " << part;
    EXPECT_NE(l.message.find("manifest '(memory)'"), std::string::npos) << l.message;
}

TEST(ManifestErrors, GoodOneLoads)
{
    const Loaded l = load(manifest(R"(<templates><template tid="T"><data name="A" inType="win:UInt8"/>
<data name="B" inType="win:UInt16" count="A"/></template></templates>
<events><event value="1" template="T" level="win:Error"/></events>
)"));
    EXPECT_EQ(l.status, ETW_OK) << l.message;
}

TEST(ManifestErrors, MalformedXmlNamesTheLine)
{
    expect_error(manifest("<templates>\n<template tid=\"T\">\n</templates>\n"), ETW_ERROR_INVALID_DATA,
                 "line 7: closing tag </templates> does not match <template> (line 6)");
    expect_error(manifest("<events><event value=\"1\" value=\"2\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "line 5: attribute 'value' appears twice");
    expect_error(manifest("<events><event value=1/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "line 5: an attribute value must be quoted");
    expect_error(std::string(kHead) + "<events>\n", ETW_ERROR_INVALID_DATA,
                 "the document ends inside element <events>");
    expect_error(manifest("<events><event value=\"&bogus;\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "line 5: unknown entity '&bogus;'");
    expect_error("<!DOCTYPE x [<!ENTITY a \"b\">]><x/>", ETW_ERROR_INVALID_DATA, "line 1: DOCTYPE");
    expect_error("", ETW_ERROR_INVALID_DATA, "no root element");
    expect_error("<a/><b/>", ETW_ERROR_INVALID_DATA, "a second root element");
    expect_error("<a>\xff</a>", ETW_ERROR_NO_UNICODE_TRANSLATION, "not valid UTF-8");
    expect_error("<root/>", ETW_ERROR_INVALID_DATA, "the root element is <root>");
}

TEST(ManifestErrors, UnknownTypes)
{
    expect_error(manifest("<templates>\n<template tid=\"T\">\n<data name=\"A\" inType=\"win:UInt33\"/>\n"
                          "</template></templates>\n"),
                 ETW_ERROR_INVALID_DATA,
                 "line 7: field 'A' has inType 'win:UInt33', which is not a manifest input type");
    expect_error(manifest("<templates><template tid=\"T\"><data name=\"A\" inType=\"win:UInt32\" outType=\"xs:weird\"/>"
                          "</template></templates>\n"),
                 ETW_ERROR_INVALID_DATA, "outType 'xs:weird'");
}

TEST(ManifestErrors, CountOrLengthNamingNoEarlierIntegerField)
{
    expect_error(manifest("<templates><template tid=\"T\">\n<data name=\"A\" inType=\"win:UInt32\" count=\"Nope\"/>\n"
                          "</template></templates>\n"),
                 ETW_ERROR_INVALID_DATA,
                 "line 6: the count of 'A' names field 'Nope', which is not an earlier field of the template");
    // A later field is not earlier.
    expect_error(manifest("<templates><template tid=\"T\"><data name=\"A\" inType=\"win:Binary\" length=\"N\"/>"
                          "<data name=\"N\" inType=\"win:UInt32\"/></template></templates>\n"),
                 ETW_ERROR_INVALID_DATA, "the length of 'A' names field 'N', which is not an earlier field");
    expect_error(manifest("<templates><template tid=\"T\"><data name=\"S\" inType=\"win:UnicodeString\"/>"
                          "<data name=\"A\" inType=\"win:UInt8\" count=\"S\"/></template></templates>\n"),
                 ETW_ERROR_INVALID_DATA, "the count of 'A' is field 'S', which is not an integer");
}

TEST(ManifestErrors, MissingDefinitions)
{
    expect_error(manifest("<events>\n<event value=\"3\" template=\"Gone\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "line 6: event 3 (version 0) uses template 'Gone', which the provider does not define");
    expect_error(manifest("<events><event value=\"3\" task=\"NoTask\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "names task 'NoTask'");
    expect_error(manifest("<events><event value=\"3\" opcode=\"NoOp\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "names opcode 'NoOp'");
    expect_error(manifest("<events><event value=\"3\" level=\"win:Loud\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "names level 'win:Loud'");
    expect_error(manifest("<events><event value=\"3\" keywords=\"K1 K2\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "names keyword 'K1'");
    expect_error(manifest("<templates><template tid=\"T\"><data name=\"A\" inType=\"win:UInt8\" map=\"M\"/>"
                          "</template></templates>\n"),
                 ETW_ERROR_INVALID_DATA, "uses map 'M', which the provider does not define");
    expect_error(manifest("<tasks><task name=\"T\" value=\"1\" message=\"$(string.none)\"/></tasks>\n"),
                 ETW_ERROR_INVALID_DATA, "string 'none' is not in the string table");
    expect_error(manifest("<events><event value=\"70000\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "attribute 'value' of <event> is '70000', not a number from 0 to 65535");
    expect_error(manifest("<events><event value=\"1\"/><event value=\"1\"/></events>\n"), ETW_ERROR_INVALID_DATA,
                 "event 1 (version 0) is defined twice");
    expect_error(std::string(kHead).replace(std::string(kHead).find("{1111"), 38, "{not-a-guid}") + kTail,
                 ETW_ERROR_INVALID_DATA, "provider guid '{not-a-guid}' is not a GUID");
}

TEST(ManifestErrors, HugeNestingIsRefusedWithoutRecursion)
{
    std::string deep = "<templates><template tid=\"T\">";
    for (int i = 0; i < 40; ++i)
        deep += "<struct name=\"S\">";
    for (int i = 0; i < 40; ++i)
        deep += "</struct>";
    deep += "</template></templates>\n";
    expect_error(manifest(deep), ETW_ERROR_INVALID_DATA, "structs nest deeper than 32 levels");
    std::string huge;
    for (int i = 0; i < 200000; ++i)
        huge += "<a>";
    expect_error(huge, ETW_ERROR_INVALID_DATA, "line 1: elements nest deeper than 64 levels");
}

TEST(ManifestErrors, FailedLoadKeepsTheSchemasAlreadyLoaded)
{
    etw_decoder *d = nullptr;
    ASSERT_EQ(etw_decoder_create(&d), ETW_OK);
    const std::string good = manifest("<events><event value=\"1\" symbol=\"One\"/></events>\n");
    ASSERT_EQ(etw_decoder_load_manifest_text(d, good.data(), good.size()), ETW_OK);
    // A manifest that fails half-way (its first event is fine) adds nothing.
    const std::string bad =
        manifest("<events><event value=\"2\" symbol=\"Two\"/><event value=\"3\" template=\"X\"/></events>\n");
    EXPECT_EQ(etw_decoder_load_manifest_text(d, bad.data(), bad.size()), ETW_ERROR_INVALID_DATA);
    etw_record r{};
    r.struct_size = sizeof r;
    r.kind = ETW_RECORD_KIND_EVENT;
    r.guid = {0x11111111u, 0x2222u, 0x3333u, {0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55}};
    r.event_id = 1;
    const etw_decoded_event *e = nullptr;
    ASSERT_EQ(etw_decoder_decode(&e, d, &r), ETW_OK) << etw_last_error_message();
    EXPECT_STREQ(e->event_name, "One");
    r.event_id = 2;
    EXPECT_EQ(etw_decoder_decode(&e, d, &r), ETW_ERROR_NOT_FOUND);
    EXPECT_EQ(etw_decoder_load_manifest(d, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_decoder_load_manifest(nullptr, "x"), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_decoder_load_manifest_text(d, nullptr, 3), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_decoder_load_manifest(d, "/nonexistent/openetw/x.man"), ETW_ERROR_FILE_NOT_FOUND);
    etw_decoder_destroy(d);
}

TEST(ManifestErrors, Utf16WithBomLoads)
{
    const std::string text = manifest("<events><event value=\"1\" symbol=\"\xC3\xA9t\xC3\xA9\"/></events>\n");
    std::string utf16 = "\xFF\xFE";
    for (unsigned char c : text) // ASCII except the two é (U+00E9) bytes, re-encoded below
        utf16 += std::string{static_cast<char>(c), '\0'};
    // Replace each UTF-8 é (C3 A9 as two units) with the single unit E9 00.
    const std::string bad = std::string{'\xC3', '\0', '\xA9', '\0'};
    for (std::size_t at; (at = utf16.find(bad)) != std::string::npos;)
        utf16.replace(at, 4, std::string{'\xE9', '\0'});
    etw_decoder *d = nullptr;
    ASSERT_EQ(etw_decoder_create(&d), ETW_OK);
    ASSERT_EQ(etw_decoder_load_manifest_text(d, utf16.data(), utf16.size()), ETW_OK) << etw_last_error_message();
    etw_record r{};
    r.struct_size = sizeof r;
    r.kind = ETW_RECORD_KIND_EVENT;
    r.guid = {0x11111111u, 0x2222u, 0x3333u, {0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55}};
    r.event_id = 1;
    const etw_decoded_event *e = nullptr;
    ASSERT_EQ(etw_decoder_decode(&e, d, &r), ETW_OK);
    EXPECT_STREQ(e->event_name, "\xC3\xA9t\xC3\xA9");
    const std::string odd = utf16 + "x";
    EXPECT_EQ(etw_decoder_load_manifest_text(d, odd.data(), odd.size()), ETW_ERROR_NO_UNICODE_TRANSLATION);
    etw_decoder_destroy(d);
}

} // namespace
