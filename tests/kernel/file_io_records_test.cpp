// FileIo records in both pointer layouts, decoded by name with exact values
// against the documented MOF layouts (FileIo_Name, _Create, _SimpleOp,
// _ReadWrite, _Info, _OpEnd, version 2) under a SYSTEM_TRACE_HEADER; long
// names cut to fit a record.
#include "kernel_etl.hpp"

#include "kernel/file_io_records.hpp"

#include <gtest/gtest.h>

using namespace openetw::kernel;
using kerneltest::ptr_text;
using kerneltest::Seen;

namespace {

HeaderFields header() { return kerneltest::header_of(4242, 4240, 777); }

void expect_system(const Seen &s, std::uint16_t hook, std::uint32_t ptr)
{
    EXPECT_EQ(s.kind, ETW_RECORD_KIND_SYSTEM);
    EXPECT_EQ(s.header_type, ptr == 8 ? 0x02u : 0x01u);
    EXPECT_EQ(s.pointer_size, ptr);
    EXPECT_EQ(s.hook_id, hook);
    EXPECT_EQ(s.version_word, kFileIoVersion);
    EXPECT_EQ(s.thread_id, 4242u);
    EXPECT_EQ(s.process_id, 4240u);
    EXPECT_EQ(s.timestamp_raw, 777);
    EXPECT_EQ(s.problem, "");
    EXPECT_EQ(s.consumed, s.payload_size) << "the class must account for every payload byte";
}

} // namespace

TEST(FileIoRecords, NameCreateAndOpEndInBothLayouts)
{
    const std::uint64_t irp = 0xFFFF9A0011223340ull, fo = 0xFFFF9A0055667780ull, key = 0xFFFF9A0099AABBC0ull;
    for (std::uint32_t ptr : {4u, 8u}) {
        SCOPED_TRACE(ptr);
        const FileNameFields name{key, u"/tmp/d/f\u00e9.txt"};
        FileCreateFields c;
        c.irp = irp;
        c.ttid = 4242;
        c.file_object = fo;
        c.create_options = kFileCreate << 24 | 0x20;
        c.file_attributes = 0x80;
        c.share_access = 7;
        c.open_path = u"/tmp/d/f.txt";
        const FileOpEndFields end{irp, kFileCreated, 0xC0000034};
        const std::vector<Seen> seen = kerneltest::round_trip(
            {file_io_record(FileIoType::Name, header(), file_name_payload(name, ptr), ptr),
             file_io_record(FileIoType::FileCreate, header(), file_name_payload(name, ptr), ptr),
             file_io_record(FileIoType::FileDelete, header(), file_name_payload(name, ptr), ptr),
             file_io_record(FileIoType::FileRundown, header(), file_name_payload(name, ptr), ptr),
             file_io_record(FileIoType::Create, header(), file_create_payload(c, ptr), ptr),
             file_io_record(FileIoType::OperationEnd, header(), file_op_end_payload(end, ptr), ptr)},
            ptr);
        ASSERT_EQ(seen.size(), 6u);
        const char *names[] = {"FileIo/Name", "FileIo/FileCreate", "FileIo/FileDelete", "FileIo/FileRundown"};
        const std::uint16_t hooks[] = {0x0400, 0x0420, 0x0423, 0x0424};
        for (int k = 0; k < 4; ++k) {
            expect_system(seen[k], hooks[k], ptr);
            EXPECT_EQ(seen[k].event_name, names[k]);
            EXPECT_EQ(seen[k].values,
                      (kerneltest::Pairs{{"FileObject", ptr_text(key, ptr)}, {"FileName", "/tmp/d/f\u00e9.txt"}}));
        }
        expect_system(seen[4], 0x0440, ptr);
        EXPECT_EQ(seen[4].event_name, "FileIo/Create");
        EXPECT_EQ(seen[4].values, (kerneltest::Pairs{{"IrpPtr", ptr_text(irp, ptr)},
                                                     {"TTID", ptr_text(4242, ptr)},
                                                     {"FileObject", ptr_text(fo, ptr)},
                                                     {"CreateOptions", "0x2000020"},
                                                     {"FileAttributes", "0x80"},
                                                     {"ShareAccess", "0x7"},
                                                     {"OpenPath", "/tmp/d/f.txt"}}));
        EXPECT_EQ(file_create_payload(c, ptr).size(), 3u * ptr + 12 + 2 * (c.open_path.size() + 1));
        expect_system(seen[5], 0x044C, ptr);
        EXPECT_EQ(seen[5].event_name, "FileIo/OperationEnd");
        EXPECT_EQ(seen[5].values, (kerneltest::Pairs{{"IrpPtr", ptr_text(irp, ptr)},
                                                     {"ExtraInfo", ptr_text(kFileCreated, ptr)},
                                                     {"NtStatus", "0xC0000034"}}));
        EXPECT_EQ(file_op_end_payload(end, ptr).size(), 2u * ptr + 4);
    }
}

TEST(FileIoRecords, SimpleOpReadWriteAndInfoInBothLayouts)
{
    const std::uint64_t irp = 0xFFFF9A0011223340ull, fo = 0xFFFF9A0055667780ull, key = 0xFFFF9A0099AABBC0ull;
    for (std::uint32_t ptr : {4u, 8u}) {
        SCOPED_TRACE(ptr);
        const FileSimpleOpFields op{irp, 4242, fo, key};
        FileReadWriteFields rw;
        rw.offset = 0x123456789ull;
        rw.irp = irp;
        rw.ttid = 4242;
        rw.file_object = fo;
        rw.file_key = key;
        rw.io_size = 4096;
        rw.io_flags = 0x204;
        const FileInfoFields info{irp, 4242, fo, key, 1, kFileDispositionInformation};
        const std::vector<Seen> seen =
            kerneltest::round_trip({file_io_record(FileIoType::Cleanup, header(), file_simple_op_payload(op, ptr), ptr),
                                    file_io_record(FileIoType::Close, header(), file_simple_op_payload(op, ptr), ptr),
                                    file_io_record(FileIoType::Flush, header(), file_simple_op_payload(op, ptr), ptr),
                                    file_io_record(FileIoType::Read, header(), file_read_write_payload(rw, ptr), ptr),
                                    file_io_record(FileIoType::Write, header(), file_read_write_payload(rw, ptr), ptr),
                                    file_io_record(FileIoType::Delete, header(), file_info_payload(info, ptr), ptr),
                                    file_io_record(FileIoType::Rename, header(), file_info_payload(info, ptr), ptr)},
                                   ptr);
        ASSERT_EQ(seen.size(), 7u);
        const char *names[] = {"FileIo/Cleanup", "FileIo/Close",  "FileIo/Flush", "FileIo/Read",
                               "FileIo/Write",   "FileIo/Delete", "FileIo/Rename"};
        const std::uint16_t hooks[] = {0x0441, 0x0442, 0x0449, 0x0443, 0x0444, 0x0446, 0x0447};
        for (int k = 0; k < 7; ++k) {
            SCOPED_TRACE(names[k]);
            expect_system(seen[k], hooks[k], ptr);
            EXPECT_EQ(seen[k].event_name, names[k]);
        }
        const kerneltest::Pairs simple = {{"IrpPtr", ptr_text(irp, ptr)},
                                          {"TTID", ptr_text(4242, ptr)},
                                          {"FileObject", ptr_text(fo, ptr)},
                                          {"FileKey", ptr_text(key, ptr)}};
        EXPECT_EQ(seen[0].values, simple);
        EXPECT_EQ(seen[2].values, simple);
        EXPECT_EQ(file_simple_op_payload(op, ptr).size(), 4u * ptr);
        EXPECT_EQ(seen[4].values, (kerneltest::Pairs{{"Offset", "4886718345"},
                                                     {"IrpPtr", ptr_text(irp, ptr)},
                                                     {"TTID", ptr_text(4242, ptr)},
                                                     {"FileObject", ptr_text(fo, ptr)},
                                                     {"FileKey", ptr_text(key, ptr)},
                                                     {"IoSize", "4096"},
                                                     {"IoFlags", "0x204"}}));
        EXPECT_EQ(file_read_write_payload(rw, ptr).size(), 8u + 4 * ptr + 8);
        EXPECT_EQ(seen[5].values, (kerneltest::Pairs{{"IrpPtr", ptr_text(irp, ptr)},
                                                     {"TTID", ptr_text(4242, ptr)},
                                                     {"FileObject", ptr_text(fo, ptr)},
                                                     {"FileKey", ptr_text(key, ptr)},
                                                     {"ExtraInfo", ptr_text(1, ptr)},
                                                     {"InfoClass", "13"}}));
        EXPECT_EQ(file_info_payload(info, ptr).size(), 5u * ptr + 4);
    }
}

TEST(FileIoRecords, ALongNameIsCutToFitTheRecordAndNeverSplitsASurrogatePair)
{
    std::u16string name(40000, u'a');
    const Bytes full = file_io_record(FileIoType::Name, header(), file_name_payload({1, name}, 8), 8);
    ASSERT_FALSE(full.empty());
    EXPECT_LE(full.size(), kMaxRecordSize);
    // A 100-byte record: 0x20 header, 8 FileObject, 60 bytes of name (29 units + NUL).
    name = u"abcdefghijklmnopqrstuvwxyzABC\U0001F600";
    Bytes small = file_name_payload({1, name}, 8, 100);
    ASSERT_EQ(small.size(), 8u + 60);
    EXPECT_EQ(small[8 + 56], 'C');
    // One unit less room: the pair would be split, so it is left out whole.
    name = u"abcdefghijklmnopqrstuvwxyzAB\U0001F600";
    small = file_name_payload({1, name}, 8, 100);
    EXPECT_EQ(small.size(), 8u + 2 * 29) << "28 units, then NUL: the surrogate pair left out";
    EXPECT_TRUE(file_io_record(FileIoType::Read, header(), {}, 8).empty());
}
