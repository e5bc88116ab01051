// Exported buffers as messages: subjects, headers, message ids, spool records.
#include "export/buffer_message.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace openetw;
using namespace openetw::exporter;

namespace {

BufferTag sample_tag()
{
    BufferTag t;
    t.machine = "web-01.example.com";
    t.session = "My Session*>";
    t.start_time = 134404010316630394;
    t.sequence = 42;
    t.kind = BufferTag::Kind::Buffer;
    return t;
}

} // namespace

TEST(BufferMessage, SubjectIsStreamMachineSessionWithNamesEscapedToOneTokenEach)
{
    const std::string subject = subject_of("ETW", sample_tag());
    EXPECT_EQ(subject, "ETW.web-01%2Eexample%2Ecom.My%20Session%2A%3E");
    // Exactly three tokens, no wildcard or white space: a subject a filter can name.
    EXPECT_EQ(std::count(subject.begin(), subject.end(), '.'), 2);
    EXPECT_EQ(subject.find_first_of("*> \t"), std::string::npos);
    EXPECT_EQ(stream_subjects("ETW"), "ETW.>");
}

TEST(BufferMessage, EscapingIsOneToOne)
{
    for (const std::string name : {"", "a", "a.b", "a%2Eb", "%", "Ünïcode", "x y", "a_b-c"}) {
        std::string back;
        ASSERT_TRUE(unescape_token(escape_token(name), &back)) << name;
        EXPECT_EQ(back, name);
    }
    EXPECT_NE(escape_token("a.b"), escape_token("a%2Eb"));
    std::string out;
    EXPECT_FALSE(unescape_token("%61", &out)) << "a plain byte escaped: no name escapes to it";
    EXPECT_FALSE(unescape_token("a%2", &out));
    EXPECT_FALSE(unescape_token("a.b", &out));
    EXPECT_FALSE(unescape_token("", &out));
}

TEST(BufferMessage, TheMessageIdNamesMachineSessionStartAndSequence)
{
    BufferTag t = sample_tag();
    const std::string id = message_id(t);
    EXPECT_EQ(id, "web-01%2Eexample%2Ecom/My%20Session%2A%3E/134404010316630394/42");
    BufferTag other = t;
    other.sequence = 43;
    EXPECT_NE(message_id(other), id);
    other = t;
    other.start_time += 1; // another instance of the same session name
    EXPECT_NE(message_id(other), id);
    other = t;
    other.machine = "web-02.example.com";
    EXPECT_NE(message_id(other), id);
}

TEST(BufferMessage, HeadersCarryTheIdFirstAndReadBackToTheSameTag)
{
    const BufferTag t = sample_tag();
    const auto headers = message_headers(t);
    ASSERT_FALSE(headers.empty());
    EXPECT_EQ(headers[0].first, "Nats-Msg-Id");
    EXPECT_EQ(headers[0].second, message_id(t));
    std::map<std::string, std::string> h(headers.begin(), headers.end());
    BufferTag back;
    ASSERT_TRUE(tag_from_headers(
        [&](const char *name, std::string *v) {
            auto it = h.find(name);
            if (it == h.end())
                return false;
            *v = it->second;
            return true;
        },
        &back));
    EXPECT_EQ(back.machine, t.machine);
    EXPECT_EQ(back.session, t.session);
    EXPECT_EQ(back.start_time, t.start_time);
    EXPECT_EQ(back.sequence, t.sequence);
    EXPECT_EQ(back.kind, t.kind);
}

TEST(BufferMessage, AMissingOrMalformedHeaderIsInvalidDataNamingIt)
{
    const auto headers = message_headers(sample_tag());
    for (const char *name : {kHeaderMachine, kHeaderSession, kHeaderStart, kHeaderSequence, kHeaderKind}) {
        std::map<std::string, std::string> h(headers.begin(), headers.end());
        h.erase(name);
        BufferTag back;
        const Status st = tag_from_headers(
            [&](const char *n, std::string *v) {
                auto it = h.find(n);
                if (it == h.end())
                    return false;
                *v = it->second;
                return true;
            },
            &back);
        EXPECT_EQ(st.code, ETW_ERROR_INVALID_DATA) << name;
        EXPECT_NE(st.message.find(name), std::string::npos) << st.message;
    }
    std::map<std::string, std::string> h(headers.begin(), headers.end());
    h[kHeaderSequence] = "0"; // a data buffer claiming the header's place
    BufferTag back;
    EXPECT_EQ(tag_from_headers(
                  [&](const char *n, std::string *v) {
                      *v = h[n];
                      return true;
                  },
                  &back)
                  .code,
              ETW_ERROR_INVALID_DATA);
}

TEST(BufferMessage, ASpoolRecordKeepsTheTagAndTheBytes)
{
    const BufferTag t = sample_tag();
    const std::uint8_t payload[5] = {1, 2, 3, 0xFF, 0};
    const std::vector<std::uint8_t> rec = encode_record(t, payload, sizeof payload);
    BufferTag back;
    std::size_t at = 0;
    ASSERT_TRUE(decode_record(rec, &back, &at));
    EXPECT_EQ(back.machine, t.machine);
    EXPECT_EQ(back.session, t.session);
    EXPECT_EQ(back.start_time, t.start_time);
    EXPECT_EQ(back.sequence, t.sequence);
    EXPECT_EQ(back.kind, t.kind);
    ASSERT_EQ(rec.size() - at, sizeof payload);
    EXPECT_TRUE(std::equal(payload, payload + sizeof payload, rec.begin() + std::ptrdiff_t(at)));
    std::vector<std::uint8_t> cut(rec.begin(), rec.begin() + 20);
    EXPECT_EQ(decode_record(cut, &back, &at).code, ETW_ERROR_INVALID_DATA);
}
