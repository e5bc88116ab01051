// SysClEnter/SysClExit and PageFault_TypeGroup1 in both layouts, read back
// through the consumer and decoded by name with exact field values; the
// Linux return value to NTSTATUS and error code to fault type mappings;
// records from samples laid out by the real raw_syscalls and exceptions
// formats (tracepoints/).
#include "kernel_etl.hpp"
#include "tracepoint_fixtures.hpp"

#include "kernel/pagefault_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/syscall_records.hpp"

#include <gtest/gtest.h>

#include <cstdio>

using namespace openetw::kernel;
using kerneltest::expect_perfinfo;
using kerneltest::ptr_text;
using kerneltest::Seen;

namespace {} // namespace

TEST(SyscallRecords, SysClEnterCarriesThePointerSizedAddressInBothLayouts)
{
    EXPECT_EQ(syscall_enter_payload(0x1122334455667788ull, 8).size(), 8u);
    EXPECT_EQ(syscall_enter_payload(0x1122334455667788ull, 4).size(), 4u);
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen =
            kerneltest::round_trip({syscall_enter_record(0x0123456789AB, 0x1122334455667788ull, ptr)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_perfinfo(seen[0], 0x0F33, 2, ptr, 0x0123456789AB);
        EXPECT_EQ(seen[0].event_name, "PerfInfo/SysClEnter");
        const kerneltest::Pairs want = {{"SysCallAddress", ptr_text(0x1122334455667788ull, ptr)}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}

TEST(SyscallRecords, SysClExitCarriesAFourByteNtStatusInBothLayouts)
{
    EXPECT_EQ(syscall_exit_payload(0xC000000B).size(), 4u);
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen =
            kerneltest::round_trip({syscall_exit_record(0x0123456789AB, 0xC000000B, ptr)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_perfinfo(seen[0], 0x0F34, 2, ptr, 0x0123456789AB);
        EXPECT_EQ(seen[0].event_name, "PerfInfo/SysClExit");
        const kerneltest::Pairs want = {{"SysCallNtStatus", "0xC000000B"}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}

TEST(SyscallRecords, LinuxReturnValuesMapOntoNtStatus)
{
    EXPECT_EQ(nt_status_from_linux_return(0), 0u);                                   // STATUS_SUCCESS
    EXPECT_EQ(nt_status_from_linux_return(4096), 0u);                                // a count
    EXPECT_EQ(nt_status_from_linux_return(-4096), 0u);                               // beyond the error range: a result
    EXPECT_EQ(nt_status_from_linux_return(std::int64_t(0xFFFF800000000000ull)), 0u); // an address, as signed
    EXPECT_EQ(nt_status_from_linux_return(-1), 0xC0000061u);                         // EPERM: STATUS_PRIVILEGE_NOT_HELD
    EXPECT_EQ(nt_status_from_linux_return(-2), 0xC0000034u);   // ENOENT: STATUS_OBJECT_NAME_NOT_FOUND
    EXPECT_EQ(nt_status_from_linux_return(-3), 0xC000000Bu);   // ESRCH: STATUS_INVALID_CID
    EXPECT_EQ(nt_status_from_linux_return(-9), 0xC0000008u);   // EBADF: STATUS_INVALID_HANDLE
    EXPECT_EQ(nt_status_from_linux_return(-11), 0xC00000D8u);  // EAGAIN: STATUS_CANT_WAIT
    EXPECT_EQ(nt_status_from_linux_return(-13), 0xC0000022u);  // EACCES: STATUS_ACCESS_DENIED
    EXPECT_EQ(nt_status_from_linux_return(-14), 0xC0000005u);  // EFAULT: STATUS_ACCESS_VIOLATION
    EXPECT_EQ(nt_status_from_linux_return(-22), 0xC000000Du);  // EINVAL: STATUS_INVALID_PARAMETER
    EXPECT_EQ(nt_status_from_linux_return(-38), 0xC0000002u);  // ENOSYS: STATUS_NOT_IMPLEMENTED
    EXPECT_EQ(nt_status_from_linux_return(-111), 0xC0000236u); // ECONNREFUSED
    // No NT equivalent: severity error, customer bit, the errno kept.
    EXPECT_EQ(nt_status_from_linux_return(-4), 0xE0000004u);   // EINTR
    EXPECT_EQ(nt_status_from_linux_return(-512), 0xE0000200u); // ERESTARTSYS, as sys_exit may see it
    EXPECT_EQ(nt_status_from_linux_return(-4095), 0xE0000FFFu);
}

TEST(SyscallRecords, RawSyscallSamplesBecomeEnterAndExitRecords)
{
    const TracepointFormat enter = kerneltest::load_format("sys_enter.format");
    const TracepointFormat exit = kerneltest::load_format("sys_exit.format");
    const PerfClock clock = PerfClock::capture(1, 0);
    const auto enter_raw = kerneltest::raw_sample(enter, {{"id", 121}, {"args", 0x7FFFFFF0}});
    const auto exit_raw = kerneltest::raw_sample(exit, {{"id", 121}, {"ret", std::uint64_t(-3)}});
    TracepointSample s;
    s.time = 5000000000ull;
    s.raw = enter_raw;
    const Bytes e = syscall_enter_from_sample(enter, s, clock, 8);
    s.raw = exit_raw;
    const Bytes x = syscall_exit_from_sample(exit, s, clock, 8);
    const std::vector<Seen> seen = kerneltest::round_trip({e, x}, 8);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].event_name, "PerfInfo/SysClEnter");
    EXPECT_EQ(seen[0].value("SysCallAddress"), "0x79"); // getpgid's number on x86-64, as the sample gave it
    EXPECT_EQ(seen[0].timestamp_raw, clock.to_session(5000000000ull));
    EXPECT_EQ(seen[1].event_name, "PerfInfo/SysClExit");
    EXPECT_EQ(seen[1].value("SysCallNtStatus"), "0xC000000B");
    // A sample too short for its field gives no record.
    const std::vector<std::uint8_t> cut(exit_raw.begin(), exit_raw.begin() + 12);
    s.raw = cut;
    EXPECT_TRUE(syscall_exit_from_sample(exit, s, clock, 8).empty());
    EXPECT_TRUE(syscall_enter_from_sample(enter, s, clock, 8).empty());
}

TEST(PageFaultRecords, TypeGroup1CarriesTwoPointersAndTheFaultingThreadInBothLayouts)
{
    PageFaultFields f;
    f.virtual_address = 0x00007F1234567000ull;
    f.program_counter = 0x0000555555555123ull;
    EXPECT_EQ(page_fault_payload(f, 8).size(), 16u);
    EXPECT_EQ(page_fault_payload(f, 4).size(), 8u);
    const std::pair<PageFaultType, std::string> types[] = {
        {PageFaultType::TransitionFault, "PageFault/TransitionFault"},
        {PageFaultType::DemandZeroFault, "PageFault/DemandZeroFault"},
        {PageFaultType::CopyOnWrite, "PageFault/CopyOnWrite"},
        {PageFaultType::GuardPageFault, "PageFault/GuardPageFault"},
        {PageFaultType::HardPageFault, "PageFault/HardPageFault"},
        {PageFaultType::AccessViolation, "PageFault/AccessViolation"}};
    for (std::uint32_t ptr : {4u, 8u}) {
        std::vector<Bytes> records;
        HeaderFields h;
        h.thread_id = 11;
        h.process_id = 22;
        h.timestamp = 0x0123456789AB;
        for (const auto &[type, name] : types)
            records.push_back(page_fault_record(type, h, f, ptr));
        const std::vector<Seen> seen = kerneltest::round_trip(records, ptr);
        ASSERT_EQ(seen.size(), 6u);
        for (std::size_t i = 0; i < 6; ++i) {
            const Seen &s = seen[i];
            EXPECT_EQ(s.kind, ETW_RECORD_KIND_SYSTEM);
            EXPECT_EQ(s.header_type, ptr == 8 ? 0x02u : 0x01u);
            EXPECT_EQ(s.hook_id, 0x0200 | std::uint8_t(types[i].first));
            EXPECT_EQ(s.version_word, 2u);
            EXPECT_EQ(s.thread_id, 11u);
            EXPECT_EQ(s.process_id, 22u);
            EXPECT_EQ(s.timestamp_raw, 0x0123456789AB);
            EXPECT_EQ(s.problem, "");
            EXPECT_EQ(s.consumed, s.payload_size);
            EXPECT_EQ(s.event_name, types[i].second);
            const kerneltest::Pairs want = {{"VirtualAddress", ptr_text(f.virtual_address, ptr)},
                                            {"ProgramCounter", ptr_text(f.program_counter, ptr)}};
            EXPECT_EQ(s.values, want) << ptr << " " << types[i].second;
        }
    }
}

TEST(PageFaultRecords, TheErrorCodeChoosesTheEventType)
{
    // bit 0 present, 1 write, 2 user, 3 reserved bit, 4 fetch, 5 protection key
    EXPECT_EQ(page_fault_type(0x4), PageFaultType::DemandZeroFault);  // user read, not present
    EXPECT_EQ(page_fault_type(0x6), PageFaultType::DemandZeroFault);  // user write, not present
    EXPECT_EQ(page_fault_type(0x14), PageFaultType::DemandZeroFault); // fetch, not present
    EXPECT_EQ(page_fault_type(0x2), PageFaultType::DemandZeroFault);  // kernel write to a user page not present
    EXPECT_EQ(page_fault_type(0x7), PageFaultType::CopyOnWrite);      // user write, present
    EXPECT_EQ(page_fault_type(0x3), PageFaultType::CopyOnWrite);      // kernel write, present
    EXPECT_EQ(page_fault_type(0x5), PageFaultType::AccessViolation);  // user read, present: PROT_NONE
    EXPECT_EQ(page_fault_type(0x15), PageFaultType::AccessViolation); // fetch from a present page: NX
    EXPECT_EQ(page_fault_type(0x17), PageFaultType::AccessViolation); // fetch (the write bit aside)
    EXPECT_EQ(page_fault_type(0x26), PageFaultType::AccessViolation); // protection key
    EXPECT_EQ(page_fault_type(0xC), PageFaultType::AccessViolation);  // reserved bit
}

TEST(PageFaultRecords, ExceptionSamplesBecomeRecordsOfTheirThread)
{
    for (const char *name : {"page_fault_user.format", "page_fault_kernel.format"}) {
        const TracepointFormat f = kerneltest::load_format(name);
        const PerfClock clock = PerfClock::capture(1, 0);
        const auto raw =
            kerneltest::raw_sample(f, {{"address", 0x7F0000001000ull}, {"ip", 0x401000}, {"error_code", 0x7}});
        TracepointSample s;
        s.pid = 300;
        s.tid = 301;
        s.time = 6000000000ull;
        s.raw = raw;
        const std::vector<Seen> seen = kerneltest::round_trip({page_fault_record_from_sample(f, s, clock, 8)}, 8);
        ASSERT_EQ(seen.size(), 1u) << name;
        EXPECT_EQ(seen[0].event_name, "PageFault/CopyOnWrite") << name;
        EXPECT_EQ(seen[0].thread_id, 301u);
        EXPECT_EQ(seen[0].process_id, 300u);
        EXPECT_EQ(seen[0].timestamp_raw, clock.to_session(6000000000ull));
        EXPECT_EQ(seen[0].value("VirtualAddress"), "0x7F0000001000");
        EXPECT_EQ(seen[0].value("ProgramCounter"), "0x401000");
        const std::vector<std::uint8_t> cut(raw.begin(), raw.begin() + 20);
        s.raw = cut;
        EXPECT_TRUE(page_fault_record_from_sample(f, s, clock, 8).empty()) << name;
    }
}

TEST(PageFaultRecords, HardFaultLaysOutItsSixFieldsInBothLayoutsAndDecodesByName)
{
    HardFaultFields f;
    f.initial_time = 0x0102030405060708;
    f.read_offset = 0x1112131415161718ull;
    f.virtual_address = 0x00007F2122232425ull;
    f.file_object = 0x0000000031323334ull;
    f.thread_id = 0x41424344;
    f.byte_count = 0x51525354;
    const auto le = [](const Bytes &b, std::size_t at, std::size_t n) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i)
            v |= std::uint64_t(b[at + i]) << (8 * i);
        return v;
    };
    // InitialTime 8, ReadOffset 8, VirtualAddress ptr, FileObject ptr, TThreadId 4, ByteCount 4.
    const Bytes p64 = hard_fault_payload(f, 8);
    ASSERT_EQ(p64.size(), 40u);
    EXPECT_EQ(le(p64, 0, 8), 0x0102030405060708u);
    EXPECT_EQ(le(p64, 8, 8), 0x1112131415161718u);
    EXPECT_EQ(le(p64, 16, 8), 0x00007F2122232425u);
    EXPECT_EQ(le(p64, 24, 8), 0x31323334u);
    EXPECT_EQ(le(p64, 32, 4), 0x41424344u);
    EXPECT_EQ(le(p64, 36, 4), 0x51525354u);
    const Bytes p32 = hard_fault_payload(f, 4);
    ASSERT_EQ(p32.size(), 32u);
    EXPECT_EQ(le(p32, 0, 8), 0x0102030405060708u);
    EXPECT_EQ(le(p32, 8, 8), 0x1112131415161718u);
    EXPECT_EQ(le(p32, 16, 4), 0x22232425u); // a 32-bit layout keeps the pointer's low half
    EXPECT_EQ(le(p32, 20, 4), 0x31323334u);
    EXPECT_EQ(le(p32, 24, 4), 0x41424344u);
    EXPECT_EQ(le(p32, 28, 4), 0x51525354u);
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen = kerneltest::round_trip({hard_fault_record(0x0123456789AB, f, ptr)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_perfinfo(seen[0], 0x0220, 2, ptr, 0x0123456789AB);
        EXPECT_EQ(seen[0].event_name, "PageFault/HardFault");
        const kerneltest::Pairs want = {{"InitialTime", std::to_string(0x0102030405060708)},
                                        {"ReadOffset", "0x1112131415161718"},
                                        {"VirtualAddress", ptr_text(f.virtual_address, ptr)},
                                        {"FileObject", ptr_text(f.file_object, ptr)},
                                        {"TThreadId", "0x41424344"},
                                        {"ByteCount", std::to_string(0x51525354)}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}
