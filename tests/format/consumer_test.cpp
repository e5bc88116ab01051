// The consumer through the C API: file and time order, several files,
// what each callback receives, timestamps, compressed and 32-bit files.
#include "consumer_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace etltest;

namespace {

// An EVENT record tagged by its id; its raw timestamp is `ts`.
Bytes tagged(int id, std::int64_t ts)
{
    EventSpec e;
    e.id = std::uint16_t(id);
    e.ts = ts;
    e.tid = 100 + std::uint32_t(id);
    e.pid = 7;
    e.provider = make_guid(9);
    e.level = 4;
    return event_record(e, Bytes(std::size_t(id % 13), std::uint8_t(id)));
}

BufferSpec buffer(std::uint64_t seq, std::uint16_t cpu, std::vector<int> ids_and_ts)
{
    BufferSpec b;
    b.sequence = seq;
    b.cpu = cpu;
    b.ts = ids_and_ts.empty() ? 0 : ids_and_ts.back();
    for (int v : ids_and_ts)
        b.records.push_back(tagged(v, v));
    return b;
}

// Two processors; buffers stored out of sequence order, as Windows flushes them.
FileBuilder interleaved_file(std::uint32_t buffer_size = 4096)
{
    LogfileSpec s;
    s.buffer_size = buffer_size;
    s.reference_raw = 50;
    s.processors = 2;
    FileBuilder f(s);
    f.add(buffer(3, 1, {110, 210}));
    f.add(buffer(2, 0, {200, 220}));
    f.add(buffer(1, 0, {100, 120, 140}));
    f.add(buffer(4, 1, {230}));
    return f;
}

} // namespace

TEST(Consumer, FileOrderIsStoredOrder)
{
    TempDir dir;
    const std::string path = dir.write("a.etl", interleaved_file().build());
    const RunResult run = run_consumer({path}, ETW_CONSUMER_ORDER_FILE);
    ASSERT_EQ(run.status, ETW_OK) << run.message;
    EXPECT_EQ(event_ids(run), (std::vector<int>{110, 210, 200, 220, 100, 120, 140, 230}));
    ASSERT_EQ(run.buffers.size(), 5u);
    for (std::size_t i = 0; i < run.buffers.size(); ++i)
        EXPECT_EQ(run.buffers[i].info.buffer_index, i);
    EXPECT_EQ(run.records.front().record.kind, ETW_RECORD_KIND_SYSTEM);
    EXPECT_EQ(run.records.front().record.hook_id, 0);
}

TEST(Consumer, TimeOrderMergesProcessorsBySequence)
{
    TempDir dir;
    const std::string path = dir.write("a.etl", interleaved_file().build());
    const RunResult run = run_consumer({path}, ETW_CONSUMER_ORDER_TIME);
    ASSERT_EQ(run.status, ETW_OK) << run.message;
    EXPECT_EQ(event_ids(run), (std::vector<int>{100, 110, 120, 140, 200, 210, 220, 230}));
    EXPECT_EQ(run.records.front().record.hook_id, 0); // the header record, at the start time
    // Each buffer's callback follows its last record.
    std::vector<std::uint64_t> seqs;
    for (const auto &b : run.buffers)
        seqs.push_back(b.info.sequence_number);
    EXPECT_EQ(seqs, (std::vector<std::uint64_t>{0, 1, 3, 2, 4}));
    // The default (flags 0) is time order.
    EXPECT_EQ(event_ids(run_consumer({path}, 0)), event_ids(run));
}

TEST(Consumer, TimeOrderKeepsRawOrderWithinA100NanosecondTick)
{
    // A 1 GHz clock: raw 1005 and 1003 are the same FILETIME tick, and the
    // second processor's record is the earlier one.
    LogfileSpec s;
    s.perf_freq = 1000000000;
    s.reference_raw = 1000;
    s.processors = 2;
    FileBuilder f(s);
    f.add(buffer(1, 0, {1005, 1090}));
    f.add(buffer(2, 1, {1003, 1050}));
    TempDir dir;
    const std::string path = dir.write("fine.etl", f.build());
    EXPECT_EQ(event_ids(run_consumer({path}, ETW_CONSUMER_ORDER_TIME)), (std::vector<int>{1003, 1005, 1050, 1090}));
}

TEST(Consumer, WrappedCircularFilesAreReadBySequence)
{
    // A ring that wrapped: the oldest buffers sit after the newest in the file.
    LogfileSpec s;
    s.mode = ETW_FILE_MODE_CIRCULAR;
    s.reference_raw = 1;
    s.processors = 1;
    FileBuilder f(s);
    f.add(buffer(7, 0, {70, 71}));
    f.add(buffer(8, 0, {80}));
    f.add(buffer(5, 0, {50}));
    f.add(buffer(6, 0, {60, 61}));
    TempDir dir;
    const std::string path = dir.write("ring.etl", f.build());
    EXPECT_EQ(event_ids(run_consumer({path}, ETW_CONSUMER_ORDER_TIME)), (std::vector<int>{50, 60, 61, 70, 71, 80}));
}

TEST(Consumer, SeveralFilesMergeByTime)
{
    LogfileSpec a;
    a.start_time = 130000000000000000;
    a.reference_raw = 0;
    a.logger_name = "A";
    FileBuilder fa(a);
    fa.add(buffer(1, 0, {100, 300}));
    LogfileSpec b;
    b.start_time = a.start_time + 150;
    b.reference_raw = 1000;
    b.logger_name = "B";
    FileBuilder fb(b);
    fb.add(buffer(1, 0, {1050, 1200}));
    TempDir dir;
    const std::string pa = dir.write("a.etl", fa.build());
    const std::string pb = dir.write("b.etl", fb.build());
    const RunResult run = run_consumer({pa, pb}, ETW_CONSUMER_ORDER_TIME);
    ASSERT_EQ(run.status, ETW_OK) << run.message;
    // FILETIMEs: A 100 -> +100, A 300 -> +300; B 1050 -> +200, B 1200 -> +350.
    EXPECT_EQ(event_ids(run), (std::vector<int>{100, 1050, 300, 1200}));
    std::vector<std::pair<std::uint32_t, std::int64_t>> seen;
    for (const auto &r : run.records)
        seen.emplace_back(r.record.file_index, r.record.timestamp - a.start_time);
    EXPECT_EQ(seen, (std::vector<std::pair<std::uint32_t, std::int64_t>>{{0, 0},
                                                                         {0, 100},
                                                                         {1, 150},
                                                                         {1, 200},
                                                                         {0, 300},
                                                                         {1, 350}}));
    EXPECT_EQ(run.logger_names, (std::vector<std::string>{"A", "B"}));
    // File order: one file after the other.
    EXPECT_EQ(event_ids(run_consumer({pa, pb}, ETW_CONSUMER_ORDER_FILE)), (std::vector<int>{100, 300, 1050, 1200}));
}

TEST(Consumer, RawTimestamps)
{
    TempDir dir;
    const std::string path = dir.write("a.etl", interleaved_file().build());
    const RunResult raw = run_consumer({path}, ETW_CONSUMER_ORDER_FILE | ETW_CONSUMER_RAW_TIMESTAMP);
    const RunResult ft = run_consumer({path}, ETW_CONSUMER_ORDER_FILE);
    ASSERT_EQ(raw.records.size(), ft.records.size());
    const LogfileSpec spec;
    for (std::size_t i = 0; i < raw.records.size(); ++i) {
        EXPECT_EQ(raw.records[i].record.timestamp, raw.records[i].record.timestamp_raw);
        EXPECT_EQ(ft.records[i].record.timestamp, spec.start_time + (ft.records[i].record.timestamp_raw - 50));
    }
    EXPECT_EQ(raw.buffers[1].info.timestamp, 210);
    EXPECT_EQ(ft.buffers[1].info.timestamp, spec.start_time + 160);
}

TEST(Consumer, BufferCallbackFacts)
{
    TempDir dir;
    const Bytes file = interleaved_file().build();
    const std::string path = dir.write("a.etl", file);
    const RunResult run = run_consumer({path});
    ASSERT_EQ(run.buffers.size(), 5u);
    std::uint64_t offset = 0;
    for (const SeenBuffer &b : run.buffers) {
        const etw_buffer_info &i = b.info;
        EXPECT_EQ(i.struct_size, sizeof(etw_buffer_info));
        EXPECT_EQ(i.file_offset, offset);
        EXPECT_EQ(i.buffer_size, 4096u);
        EXPECT_EQ(i.stored_size, 4096u);
        EXPECT_EQ(b.data, Bytes(file.begin() + std::ptrdiff_t(offset), file.begin() + std::ptrdiff_t(offset + 4096)));
        EXPECT_EQ(i.filled_size, i.offset);
        EXPECT_EQ(i.status, ETW_OK);
        EXPECT_EQ(i.status_flags, 0u);
        EXPECT_EQ(b.message, "");
        EXPECT_EQ(i.state, 3u);
        offset += 4096;
    }
    EXPECT_EQ(run.buffers[0].info.buffer_type, 4);
    EXPECT_EQ(run.buffers[0].info.buffer_flag, 0x21);
    EXPECT_EQ(run.buffers[0].info.record_count, 1u);
    EXPECT_EQ(run.buffers[1].info.processor, 1u);
    EXPECT_EQ(run.buffers[1].info.sequence_number, 3u);
    EXPECT_EQ(run.buffers[3].info.record_count, 3u);
    EXPECT_EQ(run.stats.buffers, 5u);
    EXPECT_EQ(run.stats.records, 9u);
    EXPECT_EQ(run.stats.bytes_read, 5u * 4096);
    EXPECT_EQ(run.stats.corrupt_buffers, 0u);
    EXPECT_EQ(run.stats.first_problem, ETW_OK);
}

TEST(Consumer, RecordAndEventCallbacksSeeEveryKind)
{
    LogfileSpec s;
    s.reference_raw = 10;
    FileBuilder f(s);
    f.add_header_record(system_record(0x02, 0x0050, 1, 2, 10, Bytes(48, 0)));
    FullSpec full;
    full.type = 33;
    full.level = 2;
    full.version = 3;
    full.tid = 5;
    full.pid = 6;
    full.ts = 20;
    full.guid = make_guid(1);
    full.kernel_time = 40;
    full.user_time = 41;
    FullSpec inst = full;
    inst.header_type = 0x0B;
    inst.instance_id = 8;
    inst.parent_instance_id = 9;
    inst.parent_guid = make_guid(2);
    inst.ts = 21;
    EventSpec ev;
    ev.ts = 22;
    ev.id = 5;
    ev.items = {{0x0C, Bytes(5, 0x5A)}};
    MessageSpec msg;
    msg.number = 43;
    msg.flags = 0x02 | 0x08 | 0x20 | 0x80;
    msg.ts = 23;
    msg.tid = 4;
    msg.pid = 3;
    BufferSpec b;
    b.records = {full_record(full, Bytes{1, 2, 3}),
                 full_record(inst, Bytes{4}),
                 event_record(ev, Bytes{7, 7}),
                 message_record(msg, Bytes(6, 1)),
                 system_record(0x04, 0x0310, 1, 1, 24, {}),
                 perfinfo_record(0x11, 0x0F33, 25, Bytes(8, 0))};
    f.add(b);
    TempDir dir;
    const RunResult run = run_consumer({dir.write("k.etl", f.build())});
    ASSERT_EQ(run.status, ETW_OK) << run.message;
    std::vector<std::uint32_t> kinds;
    for (const auto &r : run.records)
        kinds.push_back(r.record.kind);
    EXPECT_EQ(kinds,
              (std::vector<std::uint32_t>{ETW_RECORD_KIND_SYSTEM, ETW_RECORD_KIND_SYSTEM, ETW_RECORD_KIND_FULL,
                                          ETW_RECORD_KIND_INSTANCE, ETW_RECORD_KIND_EVENT, ETW_RECORD_KIND_MESSAGE,
                                          ETW_RECORD_KIND_COMPACT, ETW_RECORD_KIND_PERFINFO}));
    const etw_record &e = run.records[4].record;
    EXPECT_EQ(e.extended_count, 1u);
    EXPECT_EQ(run.records[4].extended.at(0).first.ext_type, 0x0C);
    EXPECT_EQ(run.records[4].extended.at(0).second, Bytes(5, 0x5A));
    EXPECT_EQ(run.records[4].payload, (Bytes{7, 7}));
    const etw_record &m = run.records[5].record;
    EXPECT_EQ(m.message_number, 43);
    EXPECT_EQ(m.timestamp_raw, 23);
    EXPECT_EQ(m.present & (ETW_RECORD_HAS_GUID | ETW_RECORD_HAS_THREAD_ID | ETW_RECORD_HAS_TIMESTAMP),
              ETW_RECORD_HAS_GUID | ETW_RECORD_HAS_THREAD_ID | ETW_RECORD_HAS_TIMESTAMP);
    EXPECT_EQ(run.records[5].payload, Bytes(6, 1));
    EXPECT_EQ(std::string(etw_record_kind_name(m.kind)), "message");
    EXPECT_EQ(std::string(etw_record_kind_name(99)), "unknown");
    // The whole record is borrowed as stored.
    EXPECT_EQ(run.records[2].bytes, full_record(full, Bytes{1, 2, 3}));

    // The classic event callback: FULL and INSTANCE records only, Windows layout.
    ASSERT_EQ(run.events.size(), 2u);
    const etw_classic_event &c = run.events[0].event;
    EXPECT_EQ(c.header.Size, 0x33);
    EXPECT_EQ(c.header.HeaderType, 0x14);
    EXPECT_EQ(c.header.MarkerFlags, 0xC0);
    EXPECT_EQ(c.header.Class.Type, 33);
    EXPECT_EQ(c.header.Class.Level, 2);
    EXPECT_EQ(c.header.Class.Version, 3);
    EXPECT_EQ(c.header.ThreadId, 5u);
    EXPECT_EQ(c.header.ProcessId, 6u);
    EXPECT_EQ(c.header.TimeStamp, s.start_time + 10);
    EXPECT_EQ(std::memcmp(&c.header.Guid, &full.guid, sizeof(etw_guid)), 0);
    EXPECT_EQ(c.header.ClientContext, 40u);
    EXPECT_EQ(c.header.Flags, 41u);
    EXPECT_EQ(run.events[0].payload, (Bytes{1, 2, 3}));
    const etw_classic_event &i = run.events[1].event;
    EXPECT_EQ(i.instance_id, 8u);
    EXPECT_EQ(i.parent_instance_id, 9u);
    EXPECT_EQ(std::memcmp(&i.parent_guid, &inst.parent_guid, sizeof(etw_guid)), 0);
    EXPECT_EQ(run.events[1].payload, (Bytes{4}));
}

TEST(Consumer, LogfileHeaderFacts)
{
    LogfileSpec s;
    s.buffer_size = 8192;
    s.mode = 0x9;
    s.events_lost = 5;
    s.buffers_lost = 1;
    s.logger_name = "usermode_trace";
    s.log_file_name = "C:\\Users\\x\\output1.etl";
    s.end_time = s.start_time + 1000;
    FileBuilder f(s);
    f.add(buffer(1, 0, {1}));
    TempDir dir;
    const std::string path = dir.write("h.etl", f.build());
    const char *paths[] = {path.c_str()};
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, nullptr), ETW_OK);
    uint32_t count = 0;
    EXPECT_EQ(etw_consumer_file_count(&count, c), ETW_OK);
    EXPECT_EQ(count, 1u);
    etw_logfile_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(etw_consumer_logfile_header(&info, c, 0), ETW_OK);
    EXPECT_EQ(info.header.BufferSize, 8192u);
    EXPECT_EQ(info.header.LogFileMode, 0x9u);
    EXPECT_EQ(info.header.BuffersWritten, 2u);
    EXPECT_EQ(info.header.EventsLost, 5u);
    EXPECT_EQ(info.header.BuffersLost, 1u);
    EXPECT_EQ(info.header.EndTime, s.end_time);
    EXPECT_EQ(info.header.ReservedFlags, 1u);
    EXPECT_EQ(info.header_type, 2u);
    EXPECT_EQ(info.reference_timestamp, s.reference_raw);
    EXPECT_EQ(info.file_size, 2u * 8192);
    EXPECT_STREQ(info.logger_name, "usermode_trace");
    EXPECT_STREQ(info.log_file_name, "C:\\Users\\x\\output1.etl");
    EXPECT_EQ(std::string(info.path), path);
    // A caller that knows only the first fields gets only those.
    etw_logfile_info small{};
    std::memset(&small, 0xAB, sizeof small);
    small.struct_size = offsetof(etw_logfile_info, path) + sizeof(const char *);
    EXPECT_EQ(etw_consumer_logfile_header(&small, c, 0), ETW_OK);
    small.struct_size = 8;
    EXPECT_EQ(etw_consumer_logfile_header(&small, c, 0), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_consumer_logfile_header(&info, c, 1), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "file_index 1 is not below the file count 1");
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
}

TEST(Consumer, ThirtyTwoBitSessions)
{
    LogfileSpec s;
    s.pointer_size = 4;
    FileBuilder f(s);
    FullSpec full;
    full.header_type = 0x0A;
    BufferSpec b;
    EventSpec ev32;
    ev32.header_type = 0x12;
    b.records = {full_record(full, Bytes(4, 1)), event_record(ev32, {})};
    f.add(b);
    TempDir dir;
    const RunResult run = run_consumer({dir.write("x86.etl", f.build())});
    ASSERT_EQ(run.status, ETW_OK) << run.message;
    EXPECT_EQ(run.headers.at(0).header_type, 1u);
    EXPECT_EQ(run.headers.at(0).header.PointerSize, 4u);
    EXPECT_EQ(run.logger_names.at(0), "TestSession");
    ASSERT_EQ(run.records.size(), 3u);
    EXPECT_EQ(run.records[0].record.pointer_size, 4u);
    EXPECT_EQ(run.records[1].record.pointer_size, 4u);
    EXPECT_EQ(run.records[2].record.pointer_size, 4u);
}

TEST(Consumer, CompressedFilesReadLikeTheirPlainForm)
{
    FileBuilder plain = interleaved_file(65536);
    plain.spec().version = 0x0002000A;
    FileBuilder packed = plain;
    packed.spec().mode |= ETW_COMPRESSED_MODE;
    packed.set_compressed(true);
    TempDir dir;
    const Bytes packed_bytes = packed.build();
    const RunResult a = run_consumer({dir.write("plain.etl", plain.build())});
    const RunResult b = run_consumer({dir.write("packed.etl", packed_bytes)});
    ASSERT_EQ(b.status, ETW_OK) << b.message;
    ASSERT_EQ(a.records.size(), b.records.size());
    // Record 0 is the logfile header, whose mode and version differ.
    for (std::size_t i = 1; i < a.records.size(); ++i) {
        EXPECT_EQ(a.records[i].bytes, b.records[i].bytes);
        EXPECT_EQ(a.records[i].record.buffer_offset, b.records[i].record.buffer_offset);
    }
    ASSERT_EQ(b.buffers.size(), 5u);
    EXPECT_EQ(b.buffers[1].info.status_flags, unsigned(ETW_BUFFER_STATUS_DECOMPRESSED));
    EXPECT_LT(b.buffers[1].info.buffer_size, 1000u);
    EXPECT_EQ(b.buffers[1].info.stored_size, b.buffers[1].info.buffer_size);
    EXPECT_EQ(b.buffers[1].info.image_size, b.buffers[1].info.offset);
    EXPECT_EQ(b.stats.bytes_read, packed_bytes.size());
    EXPECT_EQ(b.headers.at(0).compression_format, 3u);
    // Time order works on variable-size buffers too.
    EXPECT_EQ(event_ids(run_consumer({dir.path("packed.etl")}, 0)),
              (std::vector<int>{100, 110, 120, 140, 200, 210, 220, 230}));
}

TEST(Consumer, ProcessingTwiceDeliversTheSame)
{
    TempDir dir;
    const std::string path = dir.write("a.etl", interleaved_file().build());
    RunResult run;
    const char *paths[] = {path.c_str()};
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.record = [](void *u, const etw_record *r) -> int32_t {
        static_cast<std::vector<int> *>(u)->push_back(r->event_id);
        return 0;
    };
    std::vector<int> ids;
    o.user_data = &ids;
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK);
    ASSERT_EQ(etw_consumer_process(c), ETW_OK);
    const std::vector<int> first = ids;
    ids.clear();
    ASSERT_EQ(etw_consumer_process(c), ETW_OK);
    EXPECT_EQ(ids, first);
    etw_consumer_close(c);
}
