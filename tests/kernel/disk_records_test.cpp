// DiskIo records in both layouts decoded by name with exact values; rwbs
// to operation and IrpFlags; device numbers to disk numbers.
#include "kernel_etl.hpp"

#include "kernel/disk_records.hpp"

#include <gtest/gtest.h>

using namespace openetw::kernel;
using kerneltest::expect_perfinfo;
using kerneltest::ptr_text;
using kerneltest::Seen;

namespace {} // namespace

TEST(DiskRecords, ReadAndWriteInBothLayoutsDecodeAsDiskIoV3)
{
    DiskIoFields d;
    d.disk_number = 1;
    d.irp_flags = kIrpWriteOperation | kIrpSynchronousApi;
    d.transfer_size = 1 << 20;
    d.byte_offset = 0x1234567800;
    d.file_object = 0;
    d.irp = 0xFFFF9A0011223344ull;
    d.high_res_response_time = 12345;
    d.issuing_thread_id = 4321;
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen = kerneltest::round_trip(
            {disk_io_record(DiskOp::Read, 777, d, ptr), disk_io_record(DiskOp::Write, 777, d, ptr)}, ptr);
        ASSERT_EQ(seen.size(), 2u);
        expect_perfinfo(seen[0], 0x010A, 3, ptr, 777);
        expect_perfinfo(seen[1], 0x010B, 3, ptr, 777);
        EXPECT_EQ(seen[0].event_name, "DiskIo/Read");
        EXPECT_EQ(seen[1].event_name, "DiskIo/Write");
        const kerneltest::Pairs want = {{"DiskNumber", "1"},           {"IrpFlags", "0x204"},
                                        {"TransferSize", "1048576"},   {"Reserved", "0"},
                                        {"ByteOffset", "78187493376"}, {"FileObject", "0x0"},
                                        {"Irp", ptr_text(d.irp, ptr)}, {"HighResResponseTime", "12345"},
                                        {"IssuingThreadId", "4321"}};
        EXPECT_EQ(seen[1].values, want) << ptr;
        EXPECT_EQ(disk_io_payload(d, ptr).size(), 24u + 2 * ptr + 12);
    }
    EXPECT_TRUE(disk_io_record(DiskOp::ReadInit, 1, d, 8).empty()) << "Init events have their own class";
}

TEST(DiskRecords, InitAndFlushInBothLayoutsDecode)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        DiskIoInitFields i;
        i.irp = 0xFFFF9A0011223344ull;
        i.issuing_thread_id = 99;
        DiskFlushFields f;
        f.disk_number = 2;
        f.irp_flags = 0x4;
        f.high_res_response_time = 500;
        f.irp = 0xABCD;
        f.issuing_thread_id = 7;
        const std::vector<Seen> seen = kerneltest::round_trip(
            {disk_io_init_record(DiskOp::ReadInit, 777, i, ptr), disk_io_init_record(DiskOp::WriteInit, 777, i, ptr),
             disk_io_init_record(DiskOp::FlushInit, 777, i, ptr), disk_flush_record(777, f, ptr)},
            ptr);
        ASSERT_EQ(seen.size(), 4u);
        const std::uint16_t hooks[] = {0x010C, 0x010D, 0x010F, 0x010E};
        const char *names[] = {"DiskIo/ReadInit", "DiskIo/WriteInit", "DiskIo/FlushInit", "DiskIo/FlushBuffers"};
        for (int k = 0; k < 4; ++k) {
            SCOPED_TRACE(names[k]);
            expect_perfinfo(seen[k], hooks[k], 3, ptr, 777);
            EXPECT_EQ(seen[k].event_name, names[k]);
        }
        EXPECT_EQ(seen[1].values, (kerneltest::Pairs{{"Irp", ptr_text(i.irp, ptr)}, {"IssuingThreadId", "99"}}));
        EXPECT_EQ(seen[3].values, (kerneltest::Pairs{{"DiskNumber", "2"},
                                                     {"IrpFlags", "0x4"},
                                                     {"HighResResponseTime", "500"},
                                                     {"Irp", "0xABCD"},
                                                     {"IssuingThreadId", "7"}}));
    }
    EXPECT_TRUE(disk_io_init_record(DiskOp::Write, 1, DiskIoInitFields{}, 8).empty());
}

TEST(DiskRecords, RwbsGivesTheOperationAndIrpFlags)
{
    EXPECT_EQ(disk_op_from_rwbs("R"), DiskOp::Read);
    EXPECT_EQ(disk_op_from_rwbs("RA"), DiskOp::Read);
    EXPECT_EQ(disk_op_from_rwbs("WS"), DiskOp::Write);
    EXPECT_EQ(disk_op_from_rwbs("FWFS"), DiskOp::Write); // preflush + write + FUA + sync
    EXPECT_EQ(disk_op_from_rwbs("F"), DiskOp::FlushBuffers);
    EXPECT_EQ(disk_op_from_rwbs("FF"), DiskOp::FlushBuffers);
    EXPECT_FALSE(disk_op_from_rwbs("D"));
    EXPECT_FALSE(disk_op_from_rwbs("N"));
    EXPECT_FALSE(disk_op_from_rwbs(""));
    EXPECT_EQ(irp_flags_from_rwbs("R"), kIrpReadOperation);
    EXPECT_EQ(irp_flags_from_rwbs("WS"), kIrpWriteOperation | kIrpSynchronousApi);
    EXPECT_EQ(irp_flags_from_rwbs("FWFS"), kIrpWriteOperation | kIrpSynchronousApi);
    EXPECT_EQ(irp_flags_from_rwbs("F"), 0u);
}

TEST(DiskRecords, DiskNumbersFollowTheNaturalOrderOfSysBlock)
{
    // As readdir might list them: no order.
    const std::vector<BlockDisk> disks = {{"sdb", 8, 16},      {"nvme0n10", 259, 9}, {"sda", 8, 0},
                                          {"nvme1n1", 259, 2}, {"sdaa", 65, 160},    {"nvme0n2", 259, 1},
                                          {"sdz", 65, 144},    {"nvme0n1", 259, 0}};
    // Letter runs shorter first, then alphabetically: sda sdb sdz ("sd" is shorter than "nvme"),
    // nvme0n1 nvme0n2 nvme0n10 nvme1n1, then sdaa ("sdaa" sorts after "nvme").
    EXPECT_EQ(disk_number(disks, kernel_dev(8, 0)), 0u);
    EXPECT_EQ(disk_number(disks, kernel_dev(8, 16)), 1u);
    EXPECT_EQ(disk_number(disks, kernel_dev(65, 144)), 2u);
    EXPECT_EQ(disk_number(disks, kernel_dev(259, 0)), 3u);
    EXPECT_EQ(disk_number(disks, kernel_dev(259, 1)), 4u);
    EXPECT_EQ(disk_number(disks, kernel_dev(259, 9)), 5u);
    EXPECT_EQ(disk_number(disks, kernel_dev(259, 2)), 6u);
    EXPECT_EQ(disk_number(disks, kernel_dev(65, 160)), 7u);
    EXPECT_FALSE(disk_number(disks, kernel_dev(8, 1))) << "a partition is not a whole disk";
    EXPECT_EQ(kernel_dev(8, 16), 0x800010u) << "the block tracepoints' MKDEV";
    EXPECT_TRUE(disk_name_less("vda", "vdb"));
    EXPECT_FALSE(disk_name_less("vdb", "vda"));
    EXPECT_FALSE(disk_name_less("sda", "sda"));
    EXPECT_TRUE(disk_name_less("loop2", "loop10"));
    EXPECT_TRUE(disk_name_less("md0", "md00x")) << "a prefix is smaller";
}
