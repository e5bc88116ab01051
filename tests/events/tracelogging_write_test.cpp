// TraceLogging through etw_provider_write_event: data descriptors of Type
// EVENT_METADATA / PROVIDER_METADATA become the record's EVENT_SCHEMA_TL and
// PROV_TRAITS items (byte for byte as docs/TRACELOGGING.md lays them out),
// the provider's traits go with every event and win over a descriptor's,
// and bad types, frames and sizes get their statuses. In-process sessions.
#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

std::uint16_t r16(const std::uint8_t *p) { return std::uint16_t(p[0] | p[1] << 8); }

etw_guid guid_of(std::uint32_t n)
{
    etw_guid g{};
    g.Data1 = n;
    g.Data2 = 0x7117;
    g.Data3 = 0x4B4B;
    for (int i = 0; i < 8; ++i)
        g.Data4[i] = std::uint8_t(0x21 * i + 1);
    return g;
}

struct Record {
    std::vector<std::uint8_t> bytes; // the whole record
    std::vector<std::pair<std::uint16_t, std::vector<std::uint8_t>>> items;
    std::vector<std::uint8_t> user_data;
    std::string event_name, provider_name;
    std::vector<std::pair<std::string, std::string>> fields;
};

struct ReadBack {
    etw_guid provider{};
    etw_decoder *decoder = nullptr;
    std::vector<Record> records;
};

int32_t on_event_record(void *ud, const etw_event_record *e)
{
    auto *rb = static_cast<ReadBack *>(ud);
    if (std::memcmp(&e->provider_id, &rb->provider, 16) != 0)
        return 0;
    Record r;
    r.bytes.assign(e->record->bytes, e->record->bytes + e->record->size);
    for (std::uint16_t i = 0; i < e->extended_data_count; ++i)
        r.items.emplace_back(e->extended_data[i].ext_type,
                             std::vector<std::uint8_t>(e->extended_data[i].data,
                                                       e->extended_data[i].data + e->extended_data[i].data_size));
    r.user_data.assign(e->user_data, e->user_data + e->user_data_length);
    const etw_decoded_event *d = nullptr;
    if (etw_decoder_decode(&d, rb->decoder, e->record) == ETW_OK) {
        r.event_name = d->event_name;
        r.provider_name = d->provider_name;
        for (std::uint32_t i = 0; i < d->property_count; ++i)
            r.fields.emplace_back(d->properties[i].name, d->properties[i].value);
    }
    rb->records.push_back(std::move(r));
    return 0;
}

// An in-process file session enabling one provider at level 5.
struct Trace {
    etw_session *s = nullptr;
    std::string file;
    etw_guid guid;
    explicit Trace(const etw_guid &g) : guid(g)
    {
        static int n = 0;
        const std::string name = "tlw-" + std::to_string(getpid()) + "-" + std::to_string(n);
        file = (getenv("TMPDIR") ? std::string(getenv("TMPDIR")) : std::string("/tmp")) + "/" + name + ".etl";
        ++n;
        etw_properties *p = nullptr;
        EXPECT_EQ(etw_properties_create(&p, name.c_str()), ETW_OK);
        EXPECT_EQ(etw_properties_set_log_file_name(p, file.c_str()), ETW_OK);
        etw_session_options o{};
        o.struct_size = sizeof o;
        o.flags = ETW_SESSION_IN_PROCESS;
        EXPECT_EQ(etw_session_start_ex(&s, p, &o), ETW_OK) << etw_last_error_message();
        etw_properties_destroy(p);
        EXPECT_EQ(etw_session_enable_provider(s, &guid, ETW_CONTROL_CODE_ENABLE_PROVIDER, 5, 0, 0), ETW_OK);
    }
    ReadBack stop_and_read()
    {
        EXPECT_EQ(etw_session_stop(s, nullptr), ETW_OK);
        etw_session_close(s);
        s = nullptr;
        ReadBack rb;
        rb.provider = guid;
        EXPECT_EQ(etw_decoder_create(&rb.decoder), ETW_OK);
        etw_consumer_options o{};
        o.struct_size = sizeof o;
        o.event_record = on_event_record;
        o.user_data = &rb;
        etw_consumer *c = nullptr;
        const char *paths[1] = {file.c_str()};
        EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK);
        if (c) {
            EXPECT_EQ(etw_consumer_process(c), ETW_OK);
            etw_consumer_close(c);
        }
        etw_decoder_destroy(rb.decoder);
        rb.decoder = nullptr;
        unlink(file.c_str());
        return rb;
    }
    ~Trace()
    {
        if (s) {
            etw_session_stop(s, nullptr);
            etw_session_close(s);
        }
    }
};

// Metadata encoded by hand, as TraceLoggingProvider.h lays it out: UINT16
// size, one tag byte (0), "Order\0", "id\0" INT32, "who\0" ANSISTRING|chain UTF8.
std::vector<std::uint8_t> order_metadata()
{
    std::vector<std::uint8_t> m = {0, 0, 0};
    for (const char *s : {"Order", "id"})
        m.insert(m.end(), s, s + std::strlen(s) + 1);
    m.push_back(ETW_TL_IN_INT32);
    m.insert(m.end(), {'w', 'h', 'o', 0, ETW_TL_IN_ANSISTRING | 0x80, ETW_TL_OUT_UTF8});
    m[0] = std::uint8_t(m.size());
    return m;
}

std::vector<std::uint8_t> traits_of(const char *name)
{
    std::vector<std::uint8_t> t = {0, 0};
    t.insert(t.end(), name, name + std::strlen(name) + 1);
    t[0] = std::uint8_t(t.size());
    return t;
}

etw_event_data_descriptor desc(const void *p, std::size_t size, std::uint32_t type = 0)
{
    return {std::uint64_t(reinterpret_cast<std::uintptr_t>(p)), std::uint32_t(size), type};
}

const etw_event_descriptor kTl = {0, 0, ETW_TL_CHANNEL, 4, 0, 0, 0};

TEST(TraceLoggingWrite, MetadataDescriptorsBecomeTheRecordsItemsAsWindowsLaysThemOut)
{
    const etw_guid g = guid_of(1);
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    Trace t(g);
    const std::vector<std::uint8_t> meta = order_metadata(), traits = traits_of("Given.Name");
    const std::int32_t id = 4711;
    const etw_guid related = guid_of(99);
    // Metadata anywhere among the payload descriptors; the payload keeps its order.
    const etw_event_data_descriptor d[] = {
        desc(traits.data(), traits.size(), ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA), desc(&id, 4),
        desc(meta.data(), meta.size(), ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA), desc("Fabrikam", 9)};
    ASSERT_EQ(etw_provider_write_event(p, &kTl, 0, nullptr, &related, 4, d), ETW_OK);
    ASSERT_EQ(etw_provider_write_event(p, &kTl, 0, nullptr, nullptr, 4, d), ETW_OK);
    const ReadBack rb = t.stop_and_read();
    etw_provider_unregister(p);
    ASSERT_EQ(rb.records.size(), 2u);
    const Record &r = rb.records[0];
    ASSERT_EQ(r.items.size(), 3u);
    EXPECT_EQ(r.items[0].first, ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID);
    EXPECT_EQ(r.items[1].first, ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS);
    EXPECT_EQ(r.items[1].second, traits);
    EXPECT_EQ(r.items[2].first, ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL);
    EXPECT_EQ(r.items[2].second, meta);
    std::vector<std::uint8_t> payload(4 + 9);
    std::memcpy(payload.data(), &id, 4);
    std::memcpy(payload.data() + 4, "Fabrikam", 9);
    EXPECT_EQ(r.user_data, payload);
    // The item headers: ItemSize = 8 + DataSize rounded up to 8, Linkage 1 but on the last, zeroed padding.
    const std::uint8_t *item = r.bytes.data() + 0x50;
    EXPECT_EQ(r16(r.bytes.data() + 4) & ETW_EVENT_HEADER_FLAG_EXTENDED_INFO, ETW_EVENT_HEADER_FLAG_EXTENDED_INFO);
    EXPECT_EQ(r16(item), 24);
    EXPECT_EQ(r16(item + 4), 1);
    item += 24;
    EXPECT_EQ(r16(item), 8 + ((traits.size() + 7) & ~std::size_t(7)));
    EXPECT_EQ(r16(item + 2), ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS);
    EXPECT_EQ(r16(item + 4), 1);
    EXPECT_EQ(r16(item + 6), traits.size());
    for (std::size_t i = 8 + traits.size(); i < r16(item); ++i)
        EXPECT_EQ(item[i], 0) << "padding byte " << i;
    item += r16(item);
    EXPECT_EQ(r16(item + 2), ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL);
    EXPECT_EQ(r16(item + 4), 0); // the last item
    EXPECT_EQ(r16(item), 8 + ((meta.size() + 7) & ~std::size_t(7)));
    EXPECT_EQ(r16(r.bytes.data()), 0x50 + 24 + 8 + ((traits.size() + 7) & ~7u) + 8 + ((meta.size() + 7) & ~7u) + 13);
    // It decodes with its names and values.
    EXPECT_EQ(r.event_name, "Order");
    EXPECT_EQ(r.provider_name, "Given.Name");
    EXPECT_EQ(r.fields, (std::vector<std::pair<std::string, std::string>>{{"id", "4711"}, {"who", "Fabrikam"}}));
    EXPECT_EQ(rb.records[1].items.size(), 2u); // no related activity: traits and schema
}

TEST(TraceLoggingWrite, TheProvidersTraitsGoWithEveryEventAndWinOverADescriptors)
{
    const etw_guid g = guid_of(2);
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    const etw_guid group = guid_of(0x6A);
    ASSERT_EQ(etw_provider_set_name(p, "Set.Name", &group), ETW_OK);
    EXPECT_EQ(etw_provider_set_name(p, "Again", nullptr), ETW_ERROR_ALREADY_EXISTS);
    EXPECT_NE(std::string(etw_last_error_message()).find("set once"), std::string::npos);
    Trace t(g);
    const std::vector<std::uint8_t> meta = order_metadata(), traits = traits_of("Given.Name");
    const std::int32_t id = 1;
    const etw_event_descriptor plain = {5, 0, 0, 4, 0, 0, 0};
    const etw_event_data_descriptor payload = desc(&id, 4);
    ASSERT_EQ(etw_provider_write_event(p, &plain, 0, nullptr, nullptr, 1, &payload), ETW_OK);
    const etw_event_data_descriptor d[] = {
        desc(traits.data(), traits.size(), ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA),
        desc(meta.data(), meta.size(), ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA), desc(&id, 4), desc("x", 2)};
    ASSERT_EQ(etw_provider_write_event(p, &kTl, 0, nullptr, nullptr, 4, d), ETW_OK);
    const ReadBack rb = t.stop_and_read();
    etw_provider_unregister(p);
    ASSERT_EQ(rb.records.size(), 2u);
    std::vector<std::uint8_t> expected = {0,   0,   'S', 'e', 't', '.', 'N',
                                          'a', 'm', 'e', 0,   19,  0,   ETW_PROVIDER_TRAIT_TYPE_GROUP};
    expected.insert(expected.end(), reinterpret_cast<const std::uint8_t *>(&group),
                    reinterpret_cast<const std::uint8_t *>(&group) + 16);
    expected[0] = std::uint8_t(expected.size());
    ASSERT_EQ(rb.records[0].items.size(), 1u); // a plain event carries the traits too
    EXPECT_EQ(rb.records[0].items[0].first, ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS);
    EXPECT_EQ(rb.records[0].items[0].second, expected);
    ASSERT_EQ(rb.records[1].items.size(), 2u);
    EXPECT_EQ(rb.records[1].items[0].second, expected); // not the descriptor's
    EXPECT_EQ(rb.records[1].provider_name, "Set.Name");
}

TEST(TraceLoggingWrite, BadTypesFramesAndSizesGetTheirStatuses)
{
    const etw_guid g = guid_of(3);
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    Trace t(g);
    std::vector<std::uint8_t> meta = order_metadata();
    const std::vector<std::uint8_t> traits = traits_of("N");
    const std::int32_t id = 1;
    auto write = [&](std::vector<etw_event_data_descriptor> d) {
        return etw_provider_write_event(p, &kTl, 0, nullptr, nullptr, std::uint32_t(d.size()), d.data());
    };
    const std::uint32_t kMeta = ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA;
    const std::uint32_t kTraits = ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA;
    EXPECT_EQ(write({desc(&id, 4, 3)}), ETW_ERROR_INVALID_PARAMETER);     // TIMESTAMP_OVERRIDE: not supported
    EXPECT_EQ(write({desc(&id, 4, 4)}), ETW_ERROR_INVALID_PARAMETER);     // no such type
    EXPECT_EQ(write({desc(&id, 4, 0x100)}), ETW_ERROR_INVALID_PARAMETER); // Reserved1 set
    EXPECT_EQ(write({desc(meta.data(), meta.size(), kMeta), desc(meta.data(), meta.size(), kMeta)}),
              ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(write({desc(traits.data(), traits.size(), kTraits), desc(traits.data(), traits.size(), kTraits)}),
              ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(write({desc(meta.data(), meta.size() - 1, kMeta)}), ETW_ERROR_INVALID_PARAMETER); // size prefix != Size
    EXPECT_EQ(write({desc(meta.data(), 3, kMeta)}), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(write({desc(traits.data(), traits.size() + 1, kTraits)}), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(write({desc(nullptr, 0, kMeta)}), ETW_ERROR_INVALID_PARAMETER);
    // The items count toward the 0xFFFF limit.
    std::vector<std::uint8_t> big(0xFFFF - 0x50 - 16); // alone it fits 0xFFFF; with the schema item it does not
    EXPECT_EQ(write({desc(meta.data(), meta.size(), kMeta), desc(big.data(), big.size())}),
              ETW_ERROR_ARITHMETIC_OVERFLOW);
    EXPECT_EQ(write({desc(meta.data(), meta.size(), kMeta), desc(&id, 4), desc("Fabrikam", 9)}), ETW_OK);
    const ReadBack rb = t.stop_and_read();
    etw_provider_unregister(p);
    ASSERT_EQ(rb.records.size(), 1u); // nothing of the refused writes
    EXPECT_EQ(rb.records[0].event_name, "Order");
}

// The first TraceLogging record of a Windows sample: its bytes from the
// first extended item on, its descriptor, traits, metadata and payload.
struct WindowsEvent {
    std::vector<std::uint8_t> tail; // from offset 0x50 to the record's end
    etw_event_descriptor descriptor{};
    std::vector<std::uint8_t> traits, metadata, payload;
    bool found = false;
};

int32_t first_tracelogging(void *ud, const etw_event_record *e)
{
    auto *w = static_cast<WindowsEvent *>(ud);
    if (w->found || e->extended_data_count != 2 ||
        e->extended_data[1].ext_type != ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL)
        return 0;
    w->found = true;
    w->tail.assign(e->record->bytes + 0x50, e->record->bytes + e->record->size);
    w->descriptor = {e->id, e->version, e->channel, e->level, e->opcode, e->task, e->keyword};
    const etw_extended_item &t = e->extended_data[0], &m = e->extended_data[1];
    w->traits.assign(t.data, t.data + t.data_size);
    w->metadata.assign(m.data, m.data + m.data_size);
    w->payload.assign(e->user_data, e->user_data + e->user_data_length);
    return 0;
}

TEST(TraceLoggingWrite, AWindowsTraceLoggingEventWrittenAgainHasWindowsItemsByteForByte)
{
    WindowsEvent w;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.event_record = first_tracelogging;
    o.user_data = &w;
    etw_consumer *c = nullptr;
    const std::string sample = std::string(OPENETW_SAMPLES_DIR) + "/etlparser_lxcore_kernel.etl";
    const char *paths[1] = {sample.c_str()};
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK) << etw_last_error_message();
    etw_consumer_process(c);
    etw_consumer_close(c);
    ASSERT_TRUE(w.found);
    ASSERT_EQ(w.traits[2], 'M'); // "Microsoft.Windows.Subsystem.LxCore", a group trait after it

    const etw_guid g = guid_of(5);
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    Trace t(g);
    const etw_event_data_descriptor d[] = {
        desc(w.traits.data(), w.traits.size(), ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA),
        desc(w.metadata.data(), w.metadata.size(), ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA),
        desc(w.payload.data(), w.payload.size())};
    ASSERT_EQ(etw_provider_write_event(p, &w.descriptor, 0, nullptr, nullptr, 3, d), ETW_OK);
    const ReadBack rb = t.stop_and_read();
    etw_provider_unregister(p);
    ASSERT_EQ(rb.records.size(), 1u);
    const std::vector<std::uint8_t> ours(rb.records[0].bytes.begin() + 0x50, rb.records[0].bytes.end());
    // Windows pads items with whatever was there; compare all but the padding.
    ASSERT_EQ(ours.size(), w.tail.size());
    std::size_t at = 0;
    for (int item = 0; item < 2; ++item) {
        const std::size_t size = r16(&w.tail[at]), data = r16(&w.tail[at + 6]);
        EXPECT_TRUE(std::equal(w.tail.begin() + at, w.tail.begin() + at + 8 + data, ours.begin() + at))
            << "item " << item;
        at += size;
    }
    EXPECT_TRUE(std::equal(w.tail.begin() + at, w.tail.end(), ours.begin() + at)) << "payload";
    EXPECT_EQ(rb.records[0].provider_name, "Microsoft.Windows.Subsystem.LxCore");
    EXPECT_EQ(rb.records[0].event_name, "BreakPoint");
}

TEST(TraceLoggingWrite, TraitsBlobsAreChecked)
{
    const etw_guid g = guid_of(4);
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    const std::uint8_t short_blob[2] = {2, 0};
    EXPECT_EQ(etw_provider_set_traits(p, short_blob, 2), ETW_ERROR_INVALID_PARAMETER);
    const std::uint8_t wrong_size[4] = {5, 0, 'a', 0};
    EXPECT_EQ(etw_provider_set_traits(p, wrong_size, 4), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("TraitsSize 5"), std::string::npos);
    const std::uint8_t no_nul[4] = {4, 0, 'a', 'b'};
    EXPECT_EQ(etw_provider_set_traits(p, no_nul, 4), ETW_ERROR_INVALID_PARAMETER);
    const std::uint8_t overrun[8] = {8, 0, 'a', 0, 9, 0, 1, 0}; // a trait of 9 bytes in 4
    EXPECT_EQ(etw_provider_set_traits(p, overrun, 8), ETW_ERROR_INVALID_PARAMETER);
    const std::uint8_t stub[6] = {6, 0, 'a', 0, 1, 0}; // 2 bytes left: shorter than a trait's header
    EXPECT_EQ(etw_provider_set_traits(p, stub, 6), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_provider_set_traits(p, nullptr, 4), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_provider_set_traits(nullptr, wrong_size, 4), ETW_ERROR_INVALID_PARAMETER);
    const std::uint8_t good[7] = {7, 0, 'a', 0, 3, 0, 200}; // a custom trait with no data
    EXPECT_EQ(etw_provider_set_traits(p, good, 7), ETW_OK);
    EXPECT_EQ(etw_provider_set_traits(p, good, 7), ETW_ERROR_ALREADY_EXISTS);
    etw_provider_unregister(p);
}

} // namespace
