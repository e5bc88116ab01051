// Damaged provider binaries: a real one (the .NET SDK's Web Deploy tracing
// DLL, else covrun64.dll) altered in one place at a time. Each load fails
// with its status and a message naming the part and offset, and the decoder
// keeps the schemas it had.
#include <openetw/openetw.h>

#include "provider_binaries.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace {

uint32_t rd32(const std::vector<uint8_t> &b, size_t at)
{
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
}
void wr32(std::vector<uint8_t> &b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

size_t find(const std::vector<uint8_t> &b, const std::vector<uint8_t> &what)
{
    const auto it = std::search(b.begin(), b.end(), what.begin(), what.end());
    return it == b.end() ? std::string::npos : static_cast<size_t>(it - b.begin());
}

std::vector<uint8_t> utf16(const char *s)
{
    std::vector<uint8_t> out;
    for (; *s; ++s)
        out.push_back(uint8_t(*s)), out.push_back(0);
    return out;
}

class BinaryErrors : public ::testing::Test {
protected:
    void SetUp() override
    {
        path_ = provbin::small_binary();
        ASSERT_FALSE(path_.empty()) << "neither Microsoft.Web.Deployment.Tracing.dll (.NET SDK) nor covrun64.dll "
                                       "(NuGet microsoft.codecoverage) is installed";
        RecordProperty("binary", path_);
        std::ifstream in(path_, std::ios::binary);
        good_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        ASSERT_GT(good_.size(), 1024u);
        crim_ = find(good_, {'C', 'R', 'I', 'M'});
        ASSERT_NE(crim_, std::string::npos);
        ASSERT_EQ(etw_decoder_create(&d_), ETW_OK);
        // A first load that the failing ones must not undo.
        ASSERT_EQ(etw_decoder_load_binary(d_, path_.c_str()), ETW_OK) << etw_last_error_message();
        known_ = events();
        ASSERT_GT(known_, 0u);
    }
    void TearDown() override { etw_decoder_destroy(d_); }

    // How many events of the first provider's EVNT list (read from the good bytes) have a schema.
    size_t events()
    {
        etw_record r;
        std::memset(&r, 0, sizeof r);
        r.struct_size = sizeof r;
        r.kind = ETW_RECORD_KIND_EVENT;
        std::memcpy(&r.guid, good_.data() + crim_ + 16, sizeof r.guid);
        const size_t evnt = element(good_, "EVNT");
        size_t n = 0;
        for (uint32_t i = 0; evnt != std::string::npos && i < rd32(good_, evnt + 8); ++i) {
            r.event_id = uint16_t(rd32(good_, evnt + 16 + 48 * i));
            r.version = good_[evnt + 16 + 48 * i + 2];
            const etw_decoded_event *e = nullptr;
            n += etw_decoder_decode(&e, d_, &r) != ETW_ERROR_NOT_FOUND;
        }
        return n;
    }

    // Loads `bad`; expects `status` and a message holding `what`, and the known events still there.
    void expect_fails(const std::vector<uint8_t> &bad, etw_status status, const std::string &what)
    {
        EXPECT_EQ(etw_decoder_load_binary_image(d_, bad.data(), bad.size()), status);
        const std::string message = etw_last_error_message();
        EXPECT_NE(message.find("binary '(memory)'"), std::string::npos) << message;
        EXPECT_NE(message.find(what), std::string::npos) << message;
        EXPECT_EQ(events(), known_);
    }

    // The offset in the file of the CRIM's provider element with signature sig (npos if none).
    size_t element(const std::vector<uint8_t> &b, const char *sig)
    {
        const size_t wevt = crim_ + rd32(b, crim_ + 32);
        for (uint32_t i = 0; i < rd32(b, wevt + 12); ++i) {
            const size_t e = crim_ + rd32(b, wevt + 20 + 8 * i);
            if (std::memcmp(b.data() + e, sig, 4) == 0)
                return e;
        }
        return std::string::npos;
    }

    std::string path_;
    std::vector<uint8_t> good_;
    size_t crim_ = 0, known_ = 0;
    etw_decoder *d_ = nullptr;
};

TEST_F(BinaryErrors, NotAPeImage)
{
    const std::string text = "<instrumentationManifest/> is not a DLL";
    expect_fails({text.begin(), text.end()}, ETW_ERROR_INVALID_DATA, "PE: the file does not start with a DOS header");
}

TEST_F(BinaryErrors, TruncatedImages)
{
    std::vector<uint8_t> b(good_.begin(), good_.begin() + 0x40);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "does not point at a \"PE\\0\\0\" signature");
    const uint32_t pe = rd32(good_, 0x3C);
    b.assign(good_.begin(), good_.begin() + pe + 24 + 40); // inside the optional header
    expect_fails(b, ETW_ERROR_INVALID_DATA, "the optional header");
    b.assign(good_.begin(), good_.begin() + crim_ + 64); // the WEVT_TEMPLATE data cut short
    expect_fails(b, ETW_ERROR_INVALID_DATA, "is not in the file");
}

TEST_F(BinaryErrors, HeaderOffsetsOutOfRange)
{
    std::vector<uint8_t> b = good_;
    wr32(b, 0x3C, 0xFFFFFFF0u);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "e_lfanew 0xfffffff0");
    b = good_;
    const uint32_t pe = rd32(good_, 0x3C);
    b[pe + 6] = 0xFF, b[pe + 7] = 0xFF; // 65535 sections
    expect_fails(b, ETW_ERROR_INVALID_DATA, "the section table (65535 sections) does not fit in the file");
}

TEST_F(BinaryErrors, ResourceDirectoryLoop)
{
    // The WEVT_TEMPLATE type entry (the root's first named entry) pointed back at the root.
    const size_t name = find(good_, utf16("WEVT_TEMPLATE"));
    ASSERT_NE(name, std::string::npos);
    std::vector<uint8_t> b = good_;
    // Find the root directory: the entry whose name offset points at the counted name.
    bool patched = false;
    for (size_t at = 0; at + 8 <= b.size() && !patched; at += 2) {
        const uint32_t id = rd32(b, at);
        if ((id & 0x80000000u) == 0)
            continue;
        if ((id & 0x7FFFFFFFu) > name - 2)
            continue;
        const size_t rsrc = name - 2 - (id & 0x7FFFFFFFu);
        if (rd32(b, rsrc) != 0 || at != rsrc + 16)
            continue;
        wr32(b, at + 4, 0x80000000u); // subdirectory at offset 0: the root itself
        patched = true;
    }
    ASSERT_TRUE(patched);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "is reached twice (a loop)");
}

TEST_F(BinaryErrors, NoWevtTemplateResource)
{
    std::vector<uint8_t> b = good_;
    const size_t name = find(b, utf16("WEVT_TEMPLATE"));
    ASSERT_NE(name, std::string::npos);
    b[name + 2 * 12] = 'X';
    expect_fails(b, ETW_ERROR_NOT_FOUND, "no WEVT_TEMPLATE resource");
}

TEST_F(BinaryErrors, CrimSizesAndCounts)
{
    std::vector<uint8_t> b = good_;
    std::memcpy(b.data() + crim_, "CRIX", 4);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "WEVT_TEMPLATE offset 0x0: the resource does not start with a \"CRIM\"");
    b = good_;
    wr32(b, crim_ + 4, 0x7FFFFFFF);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "WEVT_TEMPLATE offset 0x4: the header's size 2147483647");
    b = good_;
    wr32(b, crim_ + 12, 1000000);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "1000000 providers do not fit");
    b = good_;
    wr32(b, crim_ + 32, 0xFFFFFF00u);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "does not point at a \"WEVT\" element");
    b = good_;
    const size_t wevt = crim_ + rd32(good_, crim_ + 32);
    wr32(b, wevt + 12, 0x10000000);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "the provider has 268435456 elements");
}

TEST_F(BinaryErrors, ElementCountsAndOffsets)
{
    const size_t evnt = element(good_, "EVNT"), ttbl = element(good_, "TTBL");
    ASSERT_NE(evnt, std::string::npos);
    ASSERT_NE(ttbl, std::string::npos);
    std::vector<uint8_t> b = good_;
    wr32(b, evnt + 8, 0x01000000);
    expect_fails(b, ETW_ERROR_INVALID_DATA, "EVNT has 16777216 entries");
    b = good_;
    wr32(b, evnt + 16 + 20, 0x12345); // the first event's template offset
    expect_fails(b, ETW_ERROR_INVALID_DATA, "uses a template at 0x12345, which is not in a TTBL");
    b = good_;
    wr32(b, evnt + 16 + 28, 0x3); // the first event's level offset
    expect_fails(b, ETW_ERROR_INVALID_DATA, "names a level at 0x3");
    b = good_;
    wr32(b, ttbl + 12 + 4, 8); // the first template's size
    expect_fails(b, ETW_ERROR_INVALID_DATA, "template 0's size 8 is outside its table");
    b = good_;
    wr32(b, ttbl + 12 + 8, 100000); // the first template's item count
    expect_fails(b, ETW_ERROR_INVALID_DATA, "the template has 100000 items");
    b = good_;
    const uint32_t items = rd32(good_, ttbl + 12 + 16);
    wr32(b, crim_ + items + 16, 0x7FFFFF00); // the first item's name offset
    expect_fails(b, ETW_ERROR_INVALID_DATA, "a name's size is outside the resource");
    b = good_;
    wr32(b, crim_ + items, 0x4);    // the first item: PropertyParamCount
    wr32(b, crim_ + items + 12, 0); // its count is item 0: itself, not an earlier field
    expect_fails(b, ETW_ERROR_INVALID_DATA, "which is not an earlier field");
    b = good_;
    wr32(b, evnt + 16 + 48, rd32(good_, evnt + 16)); // event 2 = event 1 (id and version)
    expect_fails(b, ETW_ERROR_INVALID_DATA, "is defined twice");
}

} // namespace
