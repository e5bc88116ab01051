// The event record callback: EVENT_HEADER records (manifest-based and
// TraceLogging) reach it EVENT_RECORD-style, after the record callback,
// with the same facts; classic records do not; a non-zero return stops.
#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct Seen {
    std::vector<etw_record> records;      // EVENT kind records from the record callback
    std::vector<etw_event_record> events; // copies (pointers compared while borrowed)
    std::vector<std::string> names;       // decoded from event->record
    etw_decoder *decoder = nullptr;
    int stop_after = -1;
    bool pointers_match = true;
    std::string message; // of etw_consumer_process
};

int32_t on_record(void *user, const etw_record *r)
{
    auto *s = static_cast<Seen *>(user);
    if (r->kind == ETW_RECORD_KIND_EVENT)
        s->records.push_back(*r);
    return 0;
}

int32_t on_event_record(void *user, const etw_event_record *e)
{
    auto *s = static_cast<Seen *>(user);
    s->events.push_back(*e);
    const etw_record *r = e->record;
    s->pointers_match = s->pointers_match && r && e->user_data == r->payload && e->extended_data == r->extended &&
                        r->kind == ETW_RECORD_KIND_EVENT;
    const etw_decoded_event *d = nullptr;
    if (s->decoder && etw_decoder_decode(&d, s->decoder, r) == ETW_OK)
        s->names.push_back(d->event_name);
    if (s->stop_after >= 0 && int(s->events.size()) == s->stop_after)
        return 7;
    return 0;
}

etw_status read(const char *name, Seen &s, bool with_record_callback = true)
{
    const std::string path = std::string(OPENETW_SAMPLES_DIR) + "/" + name;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.record = with_record_callback ? on_record : nullptr;
    o.event_record = on_event_record;
    o.user_data = &s;
    etw_consumer *c = nullptr;
    const char *paths[] = {path.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK);
    const etw_status status = etw_consumer_process(c);
    s.message = etw_last_error_message();
    etw_consumer_close(c);
    return status;
}

TEST(EventRecordCallback, TraceLoggingRecordsOfTheAmsiSample)
{
    Seen s;
    ASSERT_EQ(etw_decoder_create(&s.decoder), ETW_OK);
    EXPECT_EQ(read("etlparser_AMSITrace.etl", s), ETW_OK);
    etw_decoder_destroy(s.decoder);
    ASSERT_EQ(s.events.size(), 19u); // golden: event:19, system:2
    ASSERT_EQ(s.records.size(), 19u);
    EXPECT_TRUE(s.pointers_match);
    EXPECT_EQ(s.names, std::vector<std::string>(19, "AmsiScript"));
    for (std::size_t i = 0; i < s.events.size(); ++i) {
        const etw_event_record &e = s.events[i];
        const etw_record &r = s.records[i];
        EXPECT_EQ(e.struct_size, sizeof(etw_event_record));
        EXPECT_EQ(e.id, r.event_id);
        EXPECT_EQ(e.version, r.version);
        EXPECT_EQ(e.level, r.level);
        EXPECT_EQ(e.opcode, r.opcode);
        EXPECT_EQ(e.task, r.task);
        EXPECT_EQ(e.channel, r.channel);
        EXPECT_EQ(e.keyword, r.keyword);
        EXPECT_EQ(e.flags, r.event_flags);
        EXPECT_EQ(e.thread_id, r.thread_id);
        EXPECT_EQ(e.process_id, r.process_id);
        EXPECT_EQ(e.timestamp, r.timestamp);
        EXPECT_EQ(0, std::memcmp(&e.provider_id, &r.guid, sizeof r.guid));
        EXPECT_EQ(e.user_data_length, r.payload_size);
        EXPECT_EQ(e.extended_data_count, r.extended_count);
        EXPECT_EQ(e.extended_data_count, 2u); // PROV_TRAITS and EVENT_SCHEMA_TL
    }
}

TEST(EventRecordCallback, ManifestRecordsAloneAndNoClassicOnes)
{
    Seen s;
    EXPECT_EQ(read("krabs_powershell.etl", s, false), ETW_OK); // no record callback: the view is still built
    EXPECT_EQ(s.events.size(), 112u);                          // golden: event:112, system:2
    EXPECT_TRUE(s.pointers_match);
    Seen classic;
    EXPECT_EQ(read("pv_SelfDescribingSingleEvent.etl", classic), ETW_OK);
    ASSERT_EQ(classic.events.size(), 1u); // event:1; the 18 full and 4 system records are not EVENT_HEADER ones
    EXPECT_EQ(classic.events[0].id, 3u);
}

TEST(EventRecordCallback, NonZeroReturnStops)
{
    Seen s;
    s.stop_after = 5;
    EXPECT_EQ(read("tx_HTTP_Server.etl", s), ETW_ERROR_CANCELLED);
    EXPECT_EQ(s.events.size(), 5u);
    EXPECT_NE(s.message.find("event record callback returned 7"), std::string::npos) << s.message;
}

} // namespace
