// decode.h through the shared library: the property view of decoded
// samples, the statuses and messages of every bad input.
#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct Prop {
    std::string name, value;
    uint32_t parent, child_count, kind, flags;
    uint16_t in_type;
};

struct Event {
    std::string name, provider;
    uint32_t source = 0;
    std::vector<Prop> props;
};

struct DecodeRun {
    etw_decoder *decoder = nullptr;
    std::vector<Event> events;
    std::vector<etw_status> failures;
    std::string last_not_found_message;
};

int32_t on_record(void *user, const etw_record *r)
{
    auto *run = static_cast<DecodeRun *>(user);
    const etw_decoded_event *e = nullptr;
    const etw_status s = etw_decoder_decode(&e, run->decoder, r);
    if (s != ETW_OK) {
        EXPECT_EQ(e, nullptr);
        run->failures.push_back(s);
        if (s == ETW_ERROR_NOT_FOUND)
            run->last_not_found_message = etw_last_error_message();
        return 0;
    }
    Event ev{e->event_name, e->provider_name, e->source, {}};
    EXPECT_EQ(e->struct_size, sizeof(etw_decoded_event));
    for (uint32_t i = 0; i < e->property_count; ++i) {
        const etw_event_property &p = e->properties[i];
        EXPECT_TRUE(p.data_size == 0 || (p.data >= r->payload && p.data + p.data_size <= r->payload + r->payload_size));
        ev.props.push_back(Prop{p.name, p.value, p.parent, p.child_count, p.kind, p.flags, p.in_type});
    }
    run->events.push_back(std::move(ev));
    return 0;
}

DecodeRun read(const char *name)
{
    DecodeRun run;
    EXPECT_EQ(etw_decoder_create(&run.decoder), ETW_OK);
    const std::string path = std::string(OPENETW_SAMPLES_DIR) + "/" + name;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.record = on_record;
    o.user_data = &run;
    etw_consumer *c = nullptr;
    const char *paths[] = {path.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK);
    EXPECT_EQ(etw_consumer_process(c), ETW_OK);
    etw_consumer_close(c);
    etw_decoder_destroy(run.decoder);
    return run;
}

TEST(DecodeApi, StructTreeOfTheSelfDescribingSample)
{
    DecodeRun run = read("pv_SelfDescribingSingleEvent.etl");
    ASSERT_EQ(run.events.size(), 2u);
    EXPECT_EQ(run.events[0].name, "EventTrace/Header"); // the kernel class of the first record
    EXPECT_EQ(run.events[0].source, ETW_DECODE_SOURCE_KERNEL);
    const Event &e = run.events[1];
    EXPECT_EQ(e.name, "TestEvent");
    EXPECT_EQ(e.provider, "MySource");
    EXPECT_EQ(e.source, ETW_DECODE_SOURCE_TRACELOGGING);
    ASSERT_EQ(e.props.size(), 3u);
    EXPECT_EQ(e.props[0].name, "a");
    EXPECT_EQ(e.props[0].kind, ETW_PROPERTY_KIND_STRUCT);
    EXPECT_EQ(e.props[0].child_count, 2u);
    EXPECT_EQ(e.props[0].parent, ETW_PROPERTY_NO_PARENT);
    EXPECT_EQ(e.props[0].value, "");
    EXPECT_EQ(e.props[1].name, "b");
    EXPECT_EQ(e.props[1].value, "Hello");
    EXPECT_EQ(e.props[1].parent, 0u);
    EXPECT_EQ(e.props[1].in_type, 1u); // TDH_INTYPE_UNICODESTRING
    EXPECT_EQ(e.props[2].value, "World!");
    EXPECT_EQ(e.props[2].parent, 0u);
    // The other 21 records are classic records of unknown classes and EventTrace type 0x50: no schema.
    EXPECT_EQ(run.failures, std::vector<etw_status>(21, ETW_ERROR_NOT_FOUND));
    EXPECT_EQ(run.last_not_found_message, "no schema describes this event");
}

TEST(DecodeApi, JsonFlagsOfTheLxCoreSample)
{
    DecodeRun run = read("etlparser_lxcore_kernel.etl");
    ASSERT_EQ(run.events.size(), 3u); // the header record, two TraceLogging events
    const auto &p = run.events[1].props;
    ASSERT_EQ(p.size(), 9u);
    EXPECT_EQ(p[0].flags, ETW_PROPERTY_JSON_NUMBER); // ErrorLevel 2
    EXPECT_EQ(p[1].flags, 0u);                       // instanceId: a GUID string
    EXPECT_EQ(p[2].value, "-1");
    EXPECT_EQ(p[2].flags, ETW_PROPERTY_JSON_NUMBER);
    EXPECT_EQ(p[7].name, "Line");
    EXPECT_EQ(p[7].value, "2659");
}

TEST(DecodeApi, BadArgumentsAndBadMetadata)
{
    etw_decoder *d = nullptr;
    EXPECT_EQ(etw_decoder_create(nullptr), ETW_ERROR_INVALID_PARAMETER);
    ASSERT_EQ(etw_decoder_create(&d), ETW_OK);
    etw_record r{};
    r.struct_size = sizeof r;
    r.kind = ETW_RECORD_KIND_EVENT;
    const etw_decoded_event *e = reinterpret_cast<const etw_decoded_event *>(&r); // must be reset to NULL
    EXPECT_EQ(etw_decoder_decode(&e, nullptr, &r), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(e, nullptr);
    EXPECT_EQ(std::string(etw_last_error_message()), "decoder is NULL");
    EXPECT_EQ(etw_decoder_decode(&e, d, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_decoder_decode(nullptr, d, &r), ETW_ERROR_INVALID_PARAMETER);
    r.struct_size = 8;
    EXPECT_EQ(etw_decoder_decode(&e, d, &r), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("struct_size"), std::string::npos);
    r.struct_size = sizeof r;

    // TraceLogging metadata whose size field claims more than the item holds.
    const uint8_t meta[] = {0x40, 0x00, 0x00, 'E', 'v', 0, 'f', 0, 8};
    etw_extended_item item{};
    item.ext_type = 11;
    item.data = meta;
    item.data_size = sizeof meta;
    r.extended = &item;
    r.extended_count = 1;
    EXPECT_EQ(etw_decoder_decode(&e, d, &r), ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(e, nullptr);
    EXPECT_NE(std::string(etw_last_error_message()).find("metadata size 64 does not fit its 9 bytes"),
              std::string::npos)
        << etw_last_error_message();

    // Good metadata (one UINT32 "f"), payload of 2 bytes.
    const uint8_t good[] = {0x09, 0x00, 0x00, 'E', 'v', 0, 'f', 0, 8};
    item.data = good;
    const uint8_t payload[] = {1, 2};
    r.payload = payload;
    r.payload_size = 2;
    EXPECT_EQ(etw_decoder_decode(&e, d, &r), ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(std::string(etw_last_error_message()),
              "event 'Ev' does not decode: field 'f' needs 4 bytes at payload offset 0; the payload has 2");
    const uint8_t payload4[] = {1, 2, 0, 0, 9};
    r.payload = payload4;
    r.payload_size = 5;
    ASSERT_EQ(etw_decoder_decode(&e, d, &r), ETW_OK);
    ASSERT_EQ(e->property_count, 1u);
    EXPECT_STREQ(e->properties[0].value, "513");
    EXPECT_EQ(e->payload_used, 4u);
    etw_decoder_destroy(d);
    etw_decoder_destroy(nullptr);
}

} // namespace
