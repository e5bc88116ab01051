// Record framing and decoding of every header kind, and damaged records.
#include "etl_builder.hpp"
#include "format/record_reader.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace openetw::format;
using namespace etltest;

namespace {

using Step = RecordReader::Step;

// A buffer image holding the records, filled up to the last aligned record.
struct Image {
    Bytes bytes;
    std::uint32_t filled;
    explicit Image(const std::vector<Bytes> &records, std::uint32_t size = 4096)
    {
        BufferSpec spec;
        spec.size = size;
        spec.records = records;
        bytes = make_buffer(spec);
        filled = std::uint32_t(bytes[0x30] | bytes[0x31] << 8);
    }
};

struct Walk {
    std::vector<Record> records;
    std::vector<std::vector<ExtendedItem>> items;
    std::vector<Problem> problems;
    std::vector<Step> steps;
};

Walk walk(const Bytes &image, std::uint32_t filled)
{
    Walk w;
    RecordReader reader(image, filled);
    for (int guard = 0; guard < 10000; ++guard) {
        Record r;
        std::vector<ExtendedItem> items;
        Problem p;
        const Step s = reader.next(r, items, p);
        w.steps.push_back(s);
        if (s == Step::Record) {
            w.records.push_back(r);
            w.items.push_back(items);
        } else if (s != Step::End) {
            w.problems.push_back(p);
        }
        if (s == Step::End || s == Step::StopCorrupt)
            break;
    }
    return w;
}

bool same_guid(const etw_guid &a, const etw_guid &b) { return std::memcmp(&a, &b, sizeof a) == 0; }

} // namespace

TEST(RecordDecoder, SystemRecords64And32)
{
    Image img({system_record(0x02, 0x0050, 1, 2, 300, Bytes(48, 0xAB)), system_record(0x01, 0x0105, 3, 4, 400, {})});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 2u);
    const Record &a = w.records[0];
    EXPECT_EQ(a.kind, RecordKind::System);
    EXPECT_EQ(a.header_type, 0x02);
    EXPECT_EQ(a.marker_flags, 0xC0);
    EXPECT_EQ(a.offset, 0x48u);
    EXPECT_EQ(a.size, 0x20 + 48);
    EXPECT_EQ(a.header_size, 0x20u);
    EXPECT_EQ(a.payload_offset, 0x20u);
    EXPECT_EQ(a.payload_size, 48u);
    EXPECT_EQ(a.pointer_size, 8u);
    EXPECT_EQ(a.hook_id, 0x0050);
    EXPECT_EQ(a.version_word, 2);
    EXPECT_EQ(a.thread_id, 1u);
    EXPECT_EQ(a.process_id, 2u);
    EXPECT_EQ(a.timestamp, 300);
    EXPECT_EQ(a.kernel_time, 5u);
    EXPECT_EQ(a.user_time, 6u);
    EXPECT_EQ(a.present, unsigned(kHasHookId | kHasTimestamp | kHasThreadId | kHasCpuTime));
    const Record &b = w.records[1];
    EXPECT_EQ(b.pointer_size, 4u);
    EXPECT_EQ(b.offset, 0x48u + 0x20 + 48);
    EXPECT_EQ(b.hook_id, 0x0105);
}

TEST(RecordDecoder, CompactAndPerfInfoWithExtensionItems)
{
    // PEBS (8 bytes) + 2 PMC counters (16 bytes) follow the fixed header.
    const std::uint16_t ext = 0x8000 | 0x0200 | 3;
    Image img({system_record(0x04, 0x0A0B, 7, 8, 900, Bytes(5, 1), ext),
               perfinfo_record(0x11, 0x0042, 1000, Bytes(9, 2), ext),
               perfinfo_record(0x10, 0x0040, 1001, Bytes(3, 3))});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 3u);
    EXPECT_EQ(w.records[0].kind, RecordKind::Compact);
    EXPECT_EQ(w.records[0].header_size, 0x18u + 24);
    EXPECT_EQ(w.records[0].payload_size, 5u);
    EXPECT_EQ(w.records[0].version_word, ext);
    EXPECT_EQ(w.records[0].timestamp, 900);
    EXPECT_EQ(w.records[0].present & kHasCpuTime, 0u);
    EXPECT_EQ(w.records[1].kind, RecordKind::PerfInfo);
    EXPECT_EQ(w.records[1].header_size, 0x10u + 24);
    EXPECT_EQ(w.records[1].payload_size, 9u);
    EXPECT_EQ(w.records[1].timestamp, 1000);
    EXPECT_EQ(w.records[1].present & kHasThreadId, 0u);
    EXPECT_EQ(w.records[2].pointer_size, 4u);
    EXPECT_EQ(w.records[2].payload_size, 3u);
}

TEST(RecordDecoder, FullAndInstanceHeaders)
{
    FullSpec f;
    f.header_type = 0x0A;
    f.type = 33;
    f.level = 4;
    f.version = 0x102;
    f.tid = 10;
    f.pid = 20;
    f.ts = 5555;
    f.guid = make_guid(1);
    f.kernel_time = 77;
    f.user_time = 88;
    FullSpec inst = f;
    inst.header_type = 0x15;
    inst.instance_id = 123;
    inst.parent_instance_id = 456;
    inst.parent_guid = make_guid(2);
    Image img({full_record(f, Bytes(17, 9)), full_record(inst, Bytes(1, 1))});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 2u);
    const Record &a = w.records[0];
    EXPECT_EQ(a.kind, RecordKind::Full);
    EXPECT_EQ(a.pointer_size, 4u);
    EXPECT_EQ(a.opcode, 33);
    EXPECT_EQ(a.level, 4);
    EXPECT_EQ(a.version, 0x102);
    EXPECT_EQ(a.thread_id, 10u);
    EXPECT_EQ(a.timestamp, 5555);
    EXPECT_TRUE(same_guid(a.guid, f.guid));
    EXPECT_EQ(a.kernel_time, 77u);
    EXPECT_EQ(a.payload_offset, 0x30u);
    EXPECT_EQ(a.payload_size, 17u);
    const Record &b = w.records[1];
    EXPECT_EQ(b.kind, RecordKind::Instance);
    EXPECT_EQ(b.pointer_size, 8u);
    EXPECT_EQ(b.instance_id, 123u);
    EXPECT_EQ(b.parent_instance_id, 456u);
    EXPECT_TRUE(same_guid(b.parent_guid, inst.parent_guid));
    EXPECT_EQ(b.payload_offset, 0x48u);
    EXPECT_TRUE(b.present & kHasInstance);
}

TEST(RecordDecoder, EventHeaderWithExtendedItems)
{
    EventSpec e;
    e.tid = 1;
    e.pid = 2;
    e.ts = 42;
    e.provider = make_guid(3);
    e.id = 7937;
    e.version = 1;
    e.channel = 16;
    e.level = 4;
    e.opcode = 20;
    e.task = 0x55;
    e.keyword = 0x8000000000000001ull;
    e.activity = make_guid(4);
    e.items = {{0x0C, Bytes(0x38, 0x11)}, {0x0B, Bytes(13, 0x22)}};
    EventSpec plain = e;
    plain.header_type = 0x12;
    plain.items.clear();
    Image img({event_record(e, Bytes(10, 0x33)), event_record(plain, Bytes(3, 0x44))});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 2u);
    const Record &a = w.records[0];
    EXPECT_EQ(a.kind, RecordKind::Event);
    EXPECT_EQ(a.event_id, 7937);
    EXPECT_EQ(a.version, 1);
    EXPECT_EQ(a.channel, 16);
    EXPECT_EQ(a.level, 4);
    EXPECT_EQ(a.opcode, 20);
    EXPECT_EQ(a.task, 0x55);
    EXPECT_EQ(a.keyword, 0x8000000000000001ull);
    EXPECT_TRUE(same_guid(a.guid, e.provider));
    EXPECT_TRUE(same_guid(a.activity_id, e.activity));
    EXPECT_EQ(a.event_flags, 1);
    ASSERT_EQ(w.items[0].size(), 2u);
    EXPECT_EQ(w.items[0][0].ext_type, 0x0C);
    EXPECT_EQ(w.items[0][0].item_size, 0x40);
    EXPECT_EQ(w.items[0][0].data_size, 0x38);
    EXPECT_EQ(w.items[0][0].data_offset, 0x58u);
    EXPECT_EQ(w.items[0][1].ext_type, 0x0B);
    EXPECT_EQ(w.items[0][1].data_size, 13);
    EXPECT_EQ(a.payload_offset, 0x50u + 0x40 + 0x18);
    EXPECT_EQ(a.payload_size, 10u);
    EXPECT_EQ(w.records[1].pointer_size, 4u);
    EXPECT_TRUE(w.items[1].empty());
    EXPECT_EQ(w.records[1].payload_offset, 0x50u);
}

TEST(RecordDecoder, MessageOptionalFields)
{
    MessageSpec all;
    all.number = 43;
    all.flags = 0x01 | 0x02 | 0x08 | 0x20 | 0x80;
    all.sequence = 9;
    all.guid = make_guid(5);
    all.ts = 777;
    all.tid = 244;
    all.pid = 4;
    MessageSpec component;
    component.number = 2;
    component.flags = 0x04 | 0x10 | 0x40;
    component.component = 0xABCD;
    component.ts = 778;
    MessageSpec bare;
    bare.number = 3;
    Image img({message_record(all, Bytes(20, 1)), message_record(component, Bytes(4, 2)), message_record(bare, {})});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 3u);
    const Record &a = w.records[0];
    EXPECT_EQ(a.kind, RecordKind::Message);
    EXPECT_EQ(a.header_type, 0x0F);
    EXPECT_EQ(a.marker_flags, 0x90);
    EXPECT_EQ(a.message_number, 43);
    EXPECT_EQ(a.message_sequence, 9u);
    EXPECT_TRUE(same_guid(a.guid, all.guid));
    EXPECT_EQ(a.timestamp, 777);
    EXPECT_EQ(a.thread_id, 244u);
    EXPECT_EQ(a.process_id, 4u);
    EXPECT_EQ(a.pointer_size, 8u);
    EXPECT_EQ(a.header_size, 8u + 4 + 16 + 8 + 8);
    EXPECT_EQ(a.payload_size, 20u);
    const Record &b = w.records[1];
    EXPECT_EQ(b.component_id, 0xABCDu);
    EXPECT_EQ(b.timestamp, 778);
    EXPECT_EQ(b.pointer_size, 4u);
    EXPECT_EQ(b.present & (kHasGuid | kHasThreadId), 0u);
    const Record &c = w.records[2];
    EXPECT_EQ(c.present, unsigned(kHasMessage));
    EXPECT_EQ(c.header_size, 8u);
}

TEST(RecordDecoder, EndsAtTheEndMarkerAndTheFilledEnd)
{
    Image img({system_record(0x02, 1, 0, 0, 0, {})});
    // Filled end: exactly after the record.
    EXPECT_EQ(walk(img.bytes, img.filled).records.size(), 1u);
    // Past Offset the 0xFF fill reads as the end marker.
    EXPECT_EQ(walk(img.bytes, 4096).records.size(), 1u);
    // Fewer than 4 bytes left: end, not an error.
    const Walk w = walk(img.bytes, img.filled + 3);
    EXPECT_EQ(w.records.size(), 1u);
    EXPECT_TRUE(w.problems.empty());
}

TEST(RecordDecoder, PaddingBytesAreNotChecked)
{
    Bytes rec = system_record(0x02, 1, 0, 0, 0, Bytes(3, 0)); // Size 0x23, 5 padding bytes
    Image img({rec, system_record(0x02, 2, 0, 0, 0, {})});
    for (std::size_t i = 0x48 + 0x23; i < 0x48 + 0x28; ++i)
        img.bytes[i] = 0xEE; // stale bytes, as Windows leaves them
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 2u);
    EXPECT_EQ(w.records[1].offset, 0x48u + 0x28);
}

TEST(RecordDecoder, UnknownMarkersStop)
{
    Image img({system_record(0x02, 1, 0, 0, 0, {}), system_record(0x02, 2, 0, 0, 0, {})});
    img.bytes[0x48 + 0x20 + 3] = 0x40; // flags byte neither 0xC0 nor 0x90
    Walk w = walk(img.bytes, img.filled);
    EXPECT_EQ(w.records.size(), 1u);
    ASSERT_EQ(w.problems.size(), 1u);
    EXPECT_EQ(w.problems[0].code, ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(w.problems[0].at, 0x68u);
    EXPECT_EQ(w.problems[0].detail, "unknown record marker 0x40020002");
    img.bytes[0x48 + 0x20 + 3] = 0xC0;
    img.bytes[0x48 + 0x20 + 2] = 0x07; // header type 7 does not exist
    w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.problems.size(), 1u);
    EXPECT_EQ(w.problems[0].detail, "unknown header type 0x07 in marker 0xC0070002");
    EXPECT_EQ(w.steps.back(), Step::StopCorrupt);
}

TEST(RecordDecoder, SizeSmallerThanTheHeader)
{
    for (std::uint16_t bad : {0, 8, 0x1F}) {
        Image img({system_record(0x02, 1, 0, 0, 0, {}), system_record(0x02, 2, 0, 0, 0, {})});
        put16(img.bytes, 0x48 + 0x20 + 4, bad);
        const Walk w = walk(img.bytes, img.filled);
        EXPECT_EQ(w.records.size(), 1u);
        ASSERT_EQ(w.problems.size(), 1u);
        EXPECT_EQ(w.problems[0].code, ETW_ERROR_BAD_LENGTH);
        EXPECT_EQ(w.problems[0].at, 0x68u);
        EXPECT_NE(w.problems[0].detail.find("smaller than its 0x20-byte system header"), std::string::npos);
    }
    // Extension items count toward the header.
    Image img({perfinfo_record(0x11, 1, 0, Bytes(8, 0), 0x8000)});
    put16(img.bytes, 0x48 + 4, 0x10 + 4);
    EXPECT_EQ(walk(img.bytes, img.filled).problems.at(0).code, ETW_ERROR_BAD_LENGTH);
}

TEST(RecordDecoder, SizeCrossingTheFilledEnd)
{
    Image img({full_record(FullSpec{}, Bytes(16, 0))});
    put16(img.bytes, 0x48, 0x30 + 17);
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.problems.size(), 1u);
    EXPECT_EQ(w.problems[0].code, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(w.problems[0].detail, "record Size 0x41 crosses the filled end 0x88 of the buffer");
    // A SYSTEM header whose Size field lies past the filled end.
    Image sys({system_record(0x02, 1, 0, 0, 0, {})});
    const Walk w2 = walk(sys.bytes, 0x48 + 6);
    ASSERT_EQ(w2.problems.size(), 1u);
    EXPECT_EQ(w2.problems[0].code, ETW_ERROR_BAD_LENGTH);
}

TEST(RecordDecoder, DamagedExtendedItemsSkipOnlyTheirRecord)
{
    EventSpec e;
    e.items = {{0x0C, Bytes(8, 1)}};
    Bytes bad = event_record(e, Bytes(4, 0));
    put16(bad, 0x50, 0x200); // item size past the record
    Bytes bad_data = event_record(e, Bytes(4, 0));
    put16(bad_data, 0x56, 0x20); // data size larger than the item
    Bytes no_room = event_record(EventSpec{}, {});
    put16(no_room, 4, 1); // EXTENDED_INFO but no item header fits
    Image img({bad, bad_data, no_room, system_record(0x02, 9, 0, 0, 0, {})});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 1u);
    EXPECT_EQ(w.records[0].hook_id, 9);
    ASSERT_EQ(w.problems.size(), 3u);
    for (const Problem &p : w.problems)
        EXPECT_EQ(p.code, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(w.steps[0], Step::SkipCorrupt);
}

TEST(RecordDecoder, MessageFieldsLargerThanTheRecord)
{
    MessageSpec m;
    m.flags = 0x02;
    Bytes r = message_record(m, {});
    put16(r, 6, 0x02 | 0x08 | 0x20); // claims a timestamp and ids that are not there
    Image img({r, system_record(0x02, 9, 0, 0, 0, {})});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 1u);
    ASSERT_EQ(w.problems.size(), 1u);
    EXPECT_EQ(w.problems[0].code, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(w.steps[0], Step::SkipCorrupt);
}

TEST(RecordDecoder, ErrorRecordsAreDeliveredRaw)
{
    Bytes r(0x50, 0);
    put16(r, 0, 0x50);
    r[2] = 0x0D;
    r[3] = 0xC0;
    Image img({r});
    const Walk w = walk(img.bytes, img.filled);
    ASSERT_EQ(w.records.size(), 1u);
    EXPECT_EQ(w.records[0].kind, RecordKind::Error);
    EXPECT_EQ(w.records[0].payload_size, 0x4Cu);
}

TEST(RecordDecoder, KindNames)
{
    EXPECT_STREQ(record_kind_name(RecordKind::System), "system");
    EXPECT_STREQ(record_kind_name(RecordKind::PerfInfo), "perfinfo");
    EXPECT_STREQ(record_kind_name(RecordKind::Event), "event");
    EXPECT_STREQ(record_kind_name(RecordKind::Message), "message");
}
