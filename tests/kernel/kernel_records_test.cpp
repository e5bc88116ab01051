// The kernel record encoders: headers byte for byte against records of
// real Windows files, and each class (Process V4, Thread V3, Image V3) in
// 64- and 32-bit layouts written into an .etl file, read back by the
// consumer and named and decoded by the decoder's kernel classes.
#include "kernel_etl.hpp"

#include "format/etl_layout.hpp"
#include "format/record_reader.hpp"

#include <gtest/gtest.h>

using namespace openetw::kernel;
using kerneltest::ptr_text;
using kerneltest::Seen;

namespace {

Bytes sample_bytes(const char *name) { return etltest::read_file(std::string(OPENETW_SAMPLES_DIR) + "/" + name); }

HeaderFields header(std::uint32_t tid, std::uint32_t pid)
{
    HeaderFields h;
    h.thread_id = tid;
    h.process_id = pid;
    h.timestamp = 0x0123456789AB;
    h.kernel_time = 7;
    h.user_time = 9;
    return h;
}

ProcessFields sample_process()
{
    ProcessFields p;
    p.unique_process_key = 0xFFFFA00012345678ull;
    p.process_id = 4321;
    p.parent_id = 1;
    p.session_id = 4000;
    p.exit_status = 259;
    p.directory_table_base = 0x1AB000;
    p.flags = 2;
    p.user_sid = unix_user_sid(1000);
    p.image_file_name = "bash";
    p.command_line = u"/bin/bash -c 'echo \u00e9t\u00e9 \U0001F600'";
    return p;
}

// A SYSTEM_TRACE_HEADER record as read back: its kind and size from the
// pointer size, the hook, version, thread and process, the fixture's times.
void expect_header(const Seen &s, std::uint16_t hook, std::uint16_t version, std::uint32_t ptr, std::uint32_t tid,
                   std::uint32_t pid)
{
    EXPECT_EQ(s.kind, ETW_RECORD_KIND_SYSTEM);
    EXPECT_EQ(s.header_type, ptr == 8 ? 0x02u : 0x01u);
    EXPECT_EQ(s.pointer_size, ptr);
    EXPECT_EQ(s.header_size, 0x20u);
    EXPECT_EQ(s.hook_id, hook);
    EXPECT_EQ(s.version_word, version);
    EXPECT_EQ(s.thread_id, tid);
    EXPECT_EQ(s.process_id, pid);
    EXPECT_EQ(s.timestamp_raw, 0x0123456789AB);
    EXPECT_EQ(s.kernel_time, 7u);
    EXPECT_EQ(s.user_time, 9u);
    EXPECT_EQ(s.problem, "");
    EXPECT_EQ(s.consumed, s.payload_size) << "the class must account for every payload byte";
}

} // namespace

// The logfile-header record of a Windows 10 kernel-session file: encoding
// its header fields around its payload gives the record back byte for byte.
TEST(KernelRecords, SystemHeaderIsWindowsByteForByte)
{
    const Bytes file = sample_bytes("etlparser_lxcore_kernel.etl");
    ASSERT_GE(file.size(), 72u + 0x188u);
    const std::uint8_t *rec = file.data() + 72;
    const std::uint16_t size = openetw::etl::rd16(rec + 4);
    HeaderFields h;
    h.version = openetw::etl::rd16(rec);
    h.hook_id = openetw::etl::rd16(rec + 6);
    h.thread_id = 8064; // the golden list's thread and process ids
    h.process_id = 6112;
    h.timestamp = 110988826450;
    h.kernel_time = 1; // as the sample holds
    h.user_time = 0;
    const Bytes payload(rec + 0x20, rec + size);
    const Bytes mine = encode_record(HeaderKind::System, h, 8, payload);
    EXPECT_EQ(mine, Bytes(rec, rec + size));
}

// The PERFINFO records of a Windows 11 file (BuildLab, DbgIdRsds) likewise.
TEST(KernelRecords, PerfInfoHeaderIsWindowsByteForByte)
{
    const Bytes file = sample_bytes("s4_CldFlt0-2025-12-21-121418.etl");
    for (std::size_t at : {std::size_t(592), std::size_t(648)}) {
        ASSERT_GE(file.size(), at + 0x10);
        const std::uint8_t *rec = file.data() + at;
        const std::uint16_t size = openetw::etl::rd16(rec + 4);
        HeaderFields h;
        h.version = 2;
        h.hook_id = at == 592 ? 0x42 : 0x40; // the golden list's hook ids
        h.timestamp = 134105812840355567;
        h.thread_id = 1; // not in a PERFINFO header: must not be written
        h.process_id = 2;
        const Bytes mine = encode_record(HeaderKind::PerfInfo, h, 8, Bytes(rec + 0x10, rec + size));
        EXPECT_EQ(mine, Bytes(rec, rec + size)) << at;
    }
}

// The compact header has ids and a time but no CPU times; the reader frames it at 0x18.
TEST(KernelRecords, CompactHeaderReadsBack)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        HeaderFields h = header(55, 66);
        h.hook_id = hook_id(kGroupThread, 36);
        h.version = 2;
        const Bytes rec = encode_record(HeaderKind::Compact, h, ptr, Bytes{1, 2, 3, 4, 5});
        ASSERT_EQ(rec.size(), 0x18u + 5);
        std::vector<std::uint8_t> image(0x48, 0);
        image.insert(image.end(), rec.begin(), rec.end());
        openetw::format::RecordReader reader(image, std::uint32_t(image.size()));
        openetw::format::Record r;
        std::vector<openetw::format::ExtendedItem> items;
        openetw::format::Problem problem;
        ASSERT_EQ(reader.next(r, items, problem), openetw::format::RecordReader::Step::Record) << problem.detail;
        EXPECT_EQ(r.kind, openetw::format::RecordKind::Compact);
        EXPECT_EQ(r.header_type, ptr == 8 ? 0x04 : 0x03);
        EXPECT_EQ(r.pointer_size, ptr);
        EXPECT_EQ(r.hook_id, 0x0524);
        EXPECT_EQ(r.thread_id, 55u);
        EXPECT_EQ(r.process_id, 66u);
        EXPECT_EQ(r.timestamp, 0x0123456789AB);
        EXPECT_EQ(r.payload_offset, 0x18u);
        EXPECT_EQ(r.payload_size, 5u);
    }
}

TEST(KernelRecords, UnixUserSidIsSid22)
{
    EXPECT_EQ(unix_user_sid(1000), (Bytes{1, 2, 0, 0, 0, 0, 0, 22, 1, 0, 0, 0, 0xE8, 0x03, 0, 0}));
    EXPECT_EQ(unix_user_sid(0x12345678), (Bytes{1, 2, 0, 0, 0, 0, 0, 22, 1, 0, 0, 0, 0x78, 0x56, 0x34, 0x12}));
}

TEST(KernelRecords, ProcessInBothLayoutsDecodesAsProcessV4)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        const ProcessFields p = sample_process();
        ProcessFields no_sid = p;
        no_sid.user_sid.clear();
        no_sid.process_id = 4322;
        const std::vector<Bytes> records = {process_record(Opcode::Start, header(11, 22), p, ptr),
                                            process_record(Opcode::End, header(11, 22), p, ptr),
                                            process_record(Opcode::DCStart, header(11, 22), p, ptr),
                                            process_record(Opcode::DCEnd, header(11, 22), no_sid, ptr)};
        const std::vector<Seen> seen = kerneltest::round_trip(records, ptr);
        ASSERT_EQ(seen.size(), 4u) << ptr;
        const char *names[] = {"Process/Start", "Process/End", "Process/DCStart", "Process/DCEnd"};
        for (std::size_t i = 0; i < 4; ++i) {
            SCOPED_TRACE(names[i]);
            expect_header(seen[i], std::uint16_t(0x0301 + i), 4, ptr, 11, 22);
            EXPECT_EQ(seen[i].event_name, names[i]);
        }
        const kerneltest::Pairs want = {{"UniqueProcessKey", ptr_text(p.unique_process_key, ptr)},
                                        {"ProcessId", "4321"},
                                        {"ParentId", "1"},
                                        {"SessionId", "4000"},
                                        {"ExitStatus", "259"},
                                        {"DirectoryTableBase", "0x1AB000"},
                                        {"Flags", "2"},
                                        {"UserSID", "S-1-22-1-1000"},
                                        {"ImageFileName", "bash"},
                                        {"CommandLine", "/bin/bash -c 'echo \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80'"},
                                        {"PackageFullName", ""},
                                        {"ApplicationId", ""}};
        EXPECT_EQ(seen[2].values, want) << ptr;
        EXPECT_EQ(seen[3].value("UserSID"), "");
        EXPECT_EQ(seen[3].value("ProcessId"), "4322");
        EXPECT_EQ(seen[3].value("ImageFileName"), "bash");
    }
}

// TOKEN_USER is two pointers: 16 bytes before the SID in a 64-bit layout, 8 in a 32-bit one.
TEST(KernelRecords, UserSidIsATokenUserThenTheSid)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        const Bytes payload = process_payload(sample_process(), ptr);
        // UniqueProcessKey, ProcessId, ParentId, SessionId, ExitStatus, DirectoryTableBase, Flags.
        const std::size_t token = 2 * ptr + 20;
        ASSERT_GT(payload.size(), token + 2 * ptr + 16);
        EXPECT_NE(openetw::etl::rd32(payload.data() + token), 0u) << "readers take a zero word for no SID";
        EXPECT_EQ(Bytes(payload.begin() + std::ptrdiff_t(token + 2 * ptr),
                        payload.begin() + std::ptrdiff_t(token + 2 * ptr + 16)),
                  unix_user_sid(1000));
        EXPECT_EQ(payload[token + 2 * ptr + 16], 'b') << "ImageFileName follows the SID";
    }
}

TEST(KernelRecords, ThreadInBothLayoutsDecodesAsThreadV3)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        ThreadFields t;
        t.process_id = 4321;
        t.thread_id = 4333;
        t.stack_base = 0xFFFF800000001000ull;
        t.stack_limit = 0xFFFF800000000000ull;
        t.user_stack_base = 0x7FFE0000;
        t.user_stack_limit = 0x7FFD0000;
        t.affinity = 0xF;
        t.win32_start_addr = 0x401000;
        t.teb_base = 0x7FFDF000;
        t.sub_process_tag = 3;
        t.base_priority = 10;
        t.page_priority = 5;
        t.io_priority = 2;
        t.thread_flags = 1;
        std::vector<Bytes> records;
        for (Opcode op : {Opcode::Start, Opcode::End, Opcode::DCStart, Opcode::DCEnd})
            records.push_back(thread_record(op, header(4333, 4321), t, ptr));
        const std::vector<Seen> seen = kerneltest::round_trip(records, ptr);
        ASSERT_EQ(seen.size(), 4u);
        const char *names[] = {"Thread/Start", "Thread/End", "Thread/DCStart", "Thread/DCEnd"};
        for (std::size_t i = 0; i < 4; ++i) {
            SCOPED_TRACE(names[i]);
            expect_header(seen[i], std::uint16_t(0x0501 + i), 3, ptr, 4333, 4321);
            EXPECT_EQ(seen[i].event_name, names[i]);
        }
        const kerneltest::Pairs want = {{"ProcessId", "0x10E1"},
                                        {"TThreadId", "0x10ED"},
                                        {"StackBase", ptr_text(t.stack_base, ptr)},
                                        {"StackLimit", ptr_text(t.stack_limit, ptr)},
                                        {"UserStackBase", "0x7FFE0000"},
                                        {"UserStackLimit", "0x7FFD0000"},
                                        {"Affinity", "0xF"},
                                        {"Win32StartAddr", "0x401000"},
                                        {"TebBase", "0x7FFDF000"},
                                        {"SubProcessTag", "0x3"},
                                        {"BasePriority", "10"},
                                        {"PagePriority", "5"},
                                        {"IoPriority", "2"},
                                        {"ThreadFlags", "1"}};
        EXPECT_EQ(seen[2].values, want) << ptr;
    }
}

TEST(KernelRecords, ImageInBothLayoutsDecodesAsImageV3)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        ImageFields i;
        i.image_base = 0x7F0012340000ull;
        i.image_size = 0x1D6000;
        i.process_id = 4321;
        i.image_checksum = 0xABCD;
        i.time_date_stamp = 0x5F000000;
        i.default_base = 0x10000;
        i.reserved[3] = 4;
        i.file_name = u"/usr/lib/x86_64-linux-gnu/libc.so.6";
        std::vector<Bytes> records;
        for (Opcode op : {Opcode::Load, Opcode::End, Opcode::DCStart, Opcode::DCEnd})
            records.push_back(image_record(op, header(4333, 4321), i, ptr));
        const std::vector<Seen> seen = kerneltest::round_trip(records, ptr);
        ASSERT_EQ(seen.size(), 4u);
        // Windows logs a load under the process group.
        const std::uint16_t hooks[] = {0x030A, 0x1402, 0x1403, 0x1404};
        const char *names[] = {"Image/Load", "Image/UnLoad", "Image/DCStart", "Image/DCEnd"};
        for (std::size_t k = 0; k < 4; ++k) {
            SCOPED_TRACE(names[k]);
            expect_header(seen[k], hooks[k], 3, ptr, 4333, 4321);
            EXPECT_EQ(seen[k].event_name, names[k]);
        }
        const kerneltest::Pairs want = {{"ImageBase", ptr_text(i.image_base, ptr)},
                                        {"ImageSize", "0x1D6000"},
                                        {"ProcessId", "4321"},
                                        {"ImageCheckSum", "43981"},
                                        {"TimeDateStamp", "1593835520"},
                                        {"Reserved0", "0"},
                                        {"DefaultBase", "0x10000"},
                                        {"Reserved1", "0"},
                                        {"Reserved2", "0"},
                                        {"Reserved3", "0"},
                                        {"Reserved4", "4"},
                                        {"FileName", "/usr/lib/x86_64-linux-gnu/libc.so.6"}};
        EXPECT_EQ(seen[2].values, want) << ptr;
    }
}

// A command line longer than a record holds is cut to fit, never inside a
// surrogate pair, and the record still decodes.
TEST(KernelRecords, LongCommandLineIsCutToFit)
{
    ProcessFields huge = sample_process();
    huge.command_line = std::u16string(40000, u'a');
    const Bytes whole = process_record(Opcode::Start, header(1, 2), huge, 8);
    ASSERT_FALSE(whole.empty());
    EXPECT_LE(whole.size(), kMaxRecordSize);
    EXPECT_GT(whole.size(), kMaxRecordSize - 8);

    // A smaller limit (a small buffer's) that falls inside the pair at the end.
    ProcessFields p = sample_process();
    p.command_line = std::u16string(20000, u'a') + u"\U0001F600";
    const std::size_t fixed = process_record(Opcode::Start, header(1, 2), sample_process(), 8).size() -
                              2 * sample_process().command_line.size(); // with the NUL
    for (std::size_t limit : {fixed + 2 * 20000 + 2, fixed + 2 * 20000 + 3}) {
        const Bytes rec = process_record(Opcode::Start, header(1, 2), p, 8, limit);
        ASSERT_FALSE(rec.empty());
        EXPECT_LE(rec.size(), limit);
        const std::vector<Seen> seen = kerneltest::round_trip({rec}, 8);
        ASSERT_EQ(seen.size(), 1u);
        EXPECT_EQ(seen[0].problem, "");
        EXPECT_EQ(seen[0].value("CommandLine"), std::string(20000, 'a')) << limit;
        EXPECT_EQ(seen[0].value("ApplicationId"), "");
    }
    const Bytes room = process_record(Opcode::Start, header(1, 2), p, 8, fixed + 2 * 20002);
    const std::vector<Seen> seen = kerneltest::round_trip({room}, 8);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].value("CommandLine"), std::string(20000, 'a') + "\xF0\x9F\x98\x80");
}
