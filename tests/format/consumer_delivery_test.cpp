// Delivery paths that depend on which callbacks are set and on how many
// processor streams time order merges: the same records, fields and order
// whichever path runs.
#include "consumer_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <tuple>

using namespace etltest;

namespace {

// What an event callback alone sees, event->record included.
struct EventOnly {
    std::vector<etw_classic_event> events;
    std::vector<etw_record> records; // *event->record, copied
    std::vector<Bytes> record_bytes;
};

int32_t on_event_only(void *user, const etw_classic_event *e)
{
    auto *seen = static_cast<EventOnly *>(user);
    seen->events.push_back(*e);
    seen->records.push_back(*e->record);
    seen->record_bytes.emplace_back(e->record->bytes, e->record->bytes + e->record->size);
    return 0;
}

EventOnly run_event_only(const std::string &path, std::uint32_t flags)
{
    EventOnly seen;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = flags;
    o.event = on_event_only;
    o.user_data = &seen;
    const char *paths[] = {path.c_str()};
    etw_consumer *c = nullptr;
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK);
    EXPECT_EQ(etw_consumer_process(c), ETW_OK);
    etw_consumer_stats stats{};
    stats.struct_size = sizeof stats;
    EXPECT_EQ(etw_consumer_get_stats(&stats, c), ETW_OK);
    EXPECT_EQ(stats.records, 9u); // every record is counted, with or without a view built for it
    etw_consumer_close(c);
    return seen;
}

// Every field except the pointers, which point into buffers reused later.
void expect_same_record(const etw_record &a, const etw_record &b)
{
    etw_record x = a, y = b;
    x.bytes = y.bytes = nullptr;
    x.payload = y.payload = nullptr;
    x.extended = y.extended = nullptr;
    EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0);
}

} // namespace

// etw_classic_event.record points at the full record even when no record
// callback is set (consumer.h): the same facts the record callback gets.
TEST(ConsumerDelivery, EventCallbackAloneSeesTheFullRecord)
{
    LogfileSpec spec;
    spec.reference_raw = 40;
    FileBuilder f(spec);
    FullSpec full;
    full.type = 33;
    full.level = 2;
    full.version = 3;
    full.tid = 5;
    full.pid = 6;
    full.ts = 1000;
    full.guid = make_guid(3);
    full.kernel_time = 7;
    full.user_time = 8;
    FullSpec inst = full;
    inst.header_type = 0x15;
    inst.ts = 1001;
    inst.instance_id = 11;
    inst.parent_instance_id = 12;
    inst.parent_guid = make_guid(4);
    EventSpec ev;
    ev.ts = 1002;
    ev.id = 9;
    ev.items = {{0x0C, Bytes(5, 0x5A)}};
    BufferSpec b;
    b.records = {full_record(full, Bytes{1, 2, 3}), event_record(ev, Bytes{7}), full_record(inst, Bytes{4}),
                 system_record(0x02, 0x0310, 1, 1, 1003, Bytes(8, 0)), full_record(full, {})};
    b.cpu = 1;
    f.add(b);
    BufferSpec b2;
    b2.cpu = 0;
    b2.records = {perfinfo_record(0x11, 0x0F33, 999, Bytes(8, 0)), full_record(inst, Bytes(9, 9)),
                  event_record(ev, {})};
    f.add(b2);
    TempDir dir;
    const std::string path = dir.write("e.etl", f.build());
    for (std::uint32_t flags :
         {ETW_CONSUMER_ORDER_FILE, ETW_CONSUMER_ORDER_TIME, ETW_CONSUMER_ORDER_TIME | ETW_CONSUMER_RAW_TIMESTAMP}) {
        const RunResult all = run_consumer({path}, flags);
        ASSERT_EQ(all.status, ETW_OK) << all.message;
        const EventOnly only = run_event_only(path, flags);
        std::vector<const SeenRecord *> classic;
        for (const SeenRecord &r : all.records)
            if (r.record.kind == ETW_RECORD_KIND_FULL || r.record.kind == ETW_RECORD_KIND_INSTANCE)
                classic.push_back(&r);
        ASSERT_EQ(classic.size(), 4u);
        ASSERT_EQ(only.records.size(), classic.size());
        ASSERT_EQ(all.events.size(), classic.size());
        for (std::size_t i = 0; i < classic.size(); ++i) {
            expect_same_record(only.records[i], classic[i]->record);
            EXPECT_EQ(only.record_bytes[i], classic[i]->bytes);
            EXPECT_EQ(only.records[i].extended_count, 0u);
            etw_classic_event x = only.events[i], y = all.events[i].event;
            x.payload = y.payload = nullptr;
            x.record = y.record = nullptr;
            EXPECT_EQ(std::memcmp(&x, &y, sizeof x), 0) << i;
        }
    }
}

// Time order picks the smallest (timestamp, stream) whether it scans a few
// streams or uses a heap for many: ties go to the lower processor, and each
// processor's records keep their order.
TEST(ConsumerDelivery, TimeOrderWithFewAndManyProcessors)
{
    for (std::uint16_t processors : {1, 2, 3, 8, 9, 12, 40}) {
        LogfileSpec spec;
        spec.processors = processors;
        spec.reference_raw = 0;
        FileBuilder f(spec);
        std::vector<std::tuple<std::int64_t, std::uint16_t, int>> expected; // (ts, cpu, id)
        int id = 0;
        // Two buffers per processor, stored newest first; timestamps collide across processors.
        for (std::uint16_t cpu = processors; cpu-- > 0;) {
            for (std::uint64_t seq : {2u, 1u}) {
                BufferSpec b;
                b.cpu = cpu;
                b.sequence = seq;
                for (int k = 0; k < 3; ++k) {
                    const std::int64_t ts = std::int64_t(seq) * 100 + (k + cpu % 4) * 10;
                    EventSpec e;
                    e.id = std::uint16_t(++id);
                    e.ts = ts;
                    b.records.push_back(event_record(e, {}));
                    expected.emplace_back(ts, cpu, id);
                }
                b.ts = b.records.empty() ? 0 : std::int64_t(seq) * 100;
                f.add(b);
            }
        }
        // Within a processor, buffer sequence then record order: sort by (ts, cpu), stable on id order per cpu.
        std::stable_sort(expected.begin(), expected.end(), [](const auto &a, const auto &b) {
            if (std::get<0>(a) != std::get<0>(b))
                return std::get<0>(a) < std::get<0>(b);
            return std::get<1>(a) < std::get<1>(b);
        });
        std::vector<int> want;
        for (const auto &e : expected)
            want.push_back(std::get<2>(e));
        TempDir dir;
        const RunResult run = run_consumer({dir.write("p.etl", f.build())}, ETW_CONSUMER_ORDER_TIME);
        ASSERT_EQ(run.status, ETW_OK) << run.message;
        EXPECT_EQ(event_ids(run), want) << processors << " processors";
    }
}
