// FileIoTracker on synthetic syscall samples and a fake process: a call's
// init record and its OperationEnd share an IrpPtr across drains; write
// offsets advance, lseek sets them, pread carries its own; an open's path
// is the descriptor's link unless a close of it follows in the same drain
// (then the string the call passed); a missing file ends with
// STATUS_OBJECT_NAME_NOT_FOUND; sockets make no record; dup2 and exec make
// the table forget; the flags choose which records are made.
#include "kernel/file_io_tracker.hpp"
#include "tracepoint_fixtures.hpp"

#include "format/etl_layout.hpp"

#include <openetw/constants.h>

#include <gtest/gtest.h>

#include <map>

using namespace openetw::kernel;
using openetw::etl::rd_le;

namespace {

constexpr std::uint32_t kPid = 700, kTid = 701;
constexpr std::uint32_t kAll = ETW_FLAG_DISK_FILE_IO | ETW_FLAG_FILE_IO | ETW_FLAG_FILE_IO_INIT;

struct Record {
    std::uint8_t type;
    std::uint32_t tid;
    std::int64_t time;
    Bytes payload;
    std::uint64_t ptr(std::size_t at) const { return rd_le<std::uint64_t>(payload.data() + at); }
    std::uint32_t u32(std::size_t at) const { return rd_le<std::uint32_t>(payload.data() + at); }
    std::string text(std::size_t at) const
    {
        std::string s;
        for (std::size_t i = at; i + 1 < payload.size() && payload[i] | payload[i + 1]; i += 2)
            s.push_back(char(payload[i]));
        return s;
    }
};

class Tracker : public ::testing::Test {
protected:
    std::map<std::pair<std::uint32_t, int>, FdTarget> fds;
    std::map<std::uint64_t, std::string> strings;
    FileIoTracker tracker{reader(), 8, kMaxRecordSize};
    std::map<std::string, TracepointFormat> formats;
    std::vector<Record> out;
    std::uint64_t now = 1000000;

    Tracker()
    {
        const std::vector<std::pair<std::string, std::vector<std::string>>> calls = {
            {"openat", {"dfd", "filename", "flags", "mode"}},
            {"write", {"fd", "buf", "count"}},
            {"read", {"fd", "buf", "count"}},
            {"pread64", {"fd", "buf", "count", "pos"}},
            {"close", {"fd"}},
            {"lseek", {"fd", "offset", "whence"}},
            {"dup2", {"oldfd", "newfd"}},
            {"execve", {"filename", "argv", "envp"}}};
        std::uint32_t id = 100;
        for (const auto &[call, args] : calls) {
            formats["sys_enter_" + call] = kerneltest::syscall_format("sys_enter_" + call, id++, args);
            formats["sys_exit_" + call] = kerneltest::syscall_format("sys_exit_" + call, id++, {"ret"});
        }
        tracker.set_flags(kAll);
    }
    ProcessReader reader()
    {
        ProcessReader r;
        r.fd = [this](std::uint32_t pid, int fd, FdTarget *t) {
            const auto i = fds.find({pid, fd});
            return i != fds.end() && (*t = i->second, true);
        };
        r.dir = [](std::uint32_t, int, std::string *out) { return *out = "/cwd", true; };
        r.string = [this](std::uint32_t, std::uint64_t a, std::string *out) {
            const auto i = strings.find(a);
            return i != strings.end() && (*out = i->second, true);
        };
        r.alive = [](std::uint32_t) { return true; };
        return r;
    }
    // One sample of this thread, added for the next flush.
    void call(const std::string &tracepoint, const std::vector<std::int64_t> &args)
    {
        const TracepointFormat &f = formats.at(tracepoint);
        Bytes raw(16 + 8 * args.size(), 0);
        for (std::size_t i = 0; i < args.size(); ++i)
            for (int b = 0; b < 8; ++b)
                raw[16 + 8 * i + b] = std::uint8_t(std::uint64_t(args[i]) >> (8 * b));
        TracepointSample s;
        s.pid = kPid;
        s.tid = kTid;
        s.cpu = 1;
        s.time = now += 1000;
        s.raw = raw;
        tracker.add(f, s);
    }
    void flush()
    {
        tracker.flush(PerfClock{}, [this](std::uint32_t, std::int64_t time, Bytes &&r, std::span<const std::uint64_t>) {
            EXPECT_EQ(rd_le<std::int64_t>(r.data() + 16), time) << "stamped as emitted";
            out.push_back({std::uint8_t(rd_le<std::uint16_t>(r.data() + 6) & 0xFF), rd_le<std::uint32_t>(r.data() + 8),
                           time, Bytes(r.begin() + 0x20, r.end())});
        });
    }
    std::vector<const Record *> of(FileIoType type) const
    {
        std::vector<const Record *> v;
        for (const Record &r : out)
            if (r.type == std::uint8_t(type))
                v.push_back(&r);
        return v;
    }
    const Record *end_of(std::uint64_t irp) const
    {
        for (const Record *r : of(FileIoType::OperationEnd))
            if (r->ptr(0) == irp)
                return r;
        return nullptr;
    }
};

} // namespace

TEST_F(Tracker, WritesAndReadsCarryTheirOffsetsAndEndAcrossDrains)
{
    strings[0x1000] = "data.bin"; // relative: joined to the process's folder
    fds[{kPid, 3}] = {"/cwd/data.bin", 0, 0, -1};
    call("sys_enter_openat", {-100, 0x1000, 0102, 0600}); // O_CREAT | O_RDWR
    call("sys_exit_openat", {3});
    call("sys_enter_write", {3, 0, 100});
    flush(); // the write's exit comes with the next drain
    call("sys_exit_write", {100});
    call("sys_enter_write", {3, 0, 50});
    call("sys_exit_write", {50});
    call("sys_enter_lseek", {3, 10, 0});
    call("sys_exit_lseek", {10});
    call("sys_enter_read", {3, 0, 4096});
    call("sys_exit_read", {90});
    call("sys_enter_pread64", {3, 0, 8, 7000});
    call("sys_exit_pread64", {8});
    call("sys_enter_write", {3, 0, 1});
    call("sys_exit_write", {-28}); // ENOSPC
    flush();

    const auto creates = of(FileIoType::Create);
    ASSERT_EQ(creates.size(), 1u);
    EXPECT_EQ(creates[0]->text(36), "/cwd/data.bin");
    EXPECT_EQ(creates[0]->u32(24) >> 24, kFileOpenIf);
    const std::uint64_t object = creates[0]->ptr(16);
    const auto names = of(FileIoType::Name);
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0]->text(8), "/cwd/data.bin");
    EXPECT_LE(names[0]->time, creates[0]->time);

    const auto writes = of(FileIoType::Write);
    ASSERT_EQ(writes.size(), 3u);
    const std::uint64_t offsets[] = {0, 100, 100}, sizes[] = {100, 50, 1};
    for (int i = 0; i < 3; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(writes[i]->ptr(0), offsets[i]);
        EXPECT_EQ(writes[i]->ptr(24), object);
        EXPECT_EQ(writes[i]->ptr(32), names[0]->ptr(0)) << "FileKey: the Name's FileObject";
        EXPECT_EQ(writes[i]->u32(40), sizes[i]);
    }
    ASSERT_NE(end_of(writes[0]->ptr(8)), nullptr) << "paired across the drains";
    EXPECT_EQ(end_of(writes[0]->ptr(8))->ptr(8), 100u);
    EXPECT_EQ(end_of(writes[2]->ptr(8))->u32(16), 0xC000007Fu) << "ENOSPC: STATUS_DISK_FULL";
    EXPECT_EQ(end_of(writes[2]->ptr(8))->ptr(8), 0u);
    const auto reads = of(FileIoType::Read);
    ASSERT_EQ(reads.size(), 2u);
    EXPECT_EQ(reads[0]->ptr(0), 10u) << "lseek set the position";
    EXPECT_EQ(reads[0]->u32(40), 4096u) << "IoSize: the bytes asked";
    EXPECT_EQ(end_of(reads[0]->ptr(8))->ptr(8), 90u) << "ExtraInfo: the bytes done";
    EXPECT_EQ(reads[1]->ptr(0), 7000u) << "pread's own position";
    EXPECT_EQ(writes[2]->ptr(0), 100u) << "after lseek 10 and a read of 90 (pread moves nothing)";
    EXPECT_EQ(of(FileIoType::OperationEnd).size(), 6u) << "the open and five transfers";
}

TEST_F(Tracker, AnOpensLinkIsTrustedOnlyWhenNoCloseOfItFollowsInTheDrain)
{
    strings[0x1000] = "/d/asked";
    fds[{kPid, 3}] = {"/d/reused", 0, 0, -1}; // the number names another file by the time it is read
    call("sys_enter_openat", {-100, 0x1000, 0, 0});
    call("sys_exit_openat", {3});
    call("sys_enter_close", {3});
    call("sys_exit_close", {0});
    flush();
    ASSERT_EQ(of(FileIoType::Create).size(), 1u);
    EXPECT_EQ(of(FileIoType::Create)[0]->text(36), "/d/asked");
    const auto cleanup = of(FileIoType::Cleanup), close = of(FileIoType::Close);
    ASSERT_EQ(cleanup.size(), 1u);
    ASSERT_EQ(close.size(), 1u);
    EXPECT_EQ(cleanup[0]->ptr(16), of(FileIoType::Create)[0]->ptr(16));
    EXPECT_NE(cleanup[0]->ptr(0), close[0]->ptr(0)) << "an IrpPtr each";
    EXPECT_NE(end_of(cleanup[0]->ptr(0)), nullptr);
    EXPECT_NE(end_of(close[0]->ptr(0)), nullptr);

    // Still open: the link, as the file system names the file, wins over the text passed.
    out.clear();
    strings[0x2000] = "/d/./link";
    fds[{kPid, 4}] = {"/d/target", 0, 0, -1};
    call("sys_enter_openat", {-100, 0x2000, 0, 0});
    call("sys_exit_openat", {4});
    flush();
    ASSERT_EQ(of(FileIoType::Create).size(), 1u);
    EXPECT_EQ(of(FileIoType::Create)[0]->text(36), "/d/target");
}

TEST_F(Tracker, AnUnknownDescriptorMadeAnewLaterInTheDrainIsNotLookedUp)
{
    // fd 8 (inherited) is closed, then the number is opened again for
    // another file: by the time the drain runs, the link names the new one.
    fds[{kPid, 8}] = {"/d/new", 0, 0, -1};
    strings[0x1000] = "/d/new";
    call("sys_enter_write", {8, 0, 5});
    call("sys_exit_write", {5});
    call("sys_enter_close", {8});
    call("sys_exit_close", {0});
    call("sys_enter_openat", {-100, 0x1000, 0, 0});
    call("sys_exit_openat", {8});
    call("sys_enter_write", {8, 0, 7});
    call("sys_exit_write", {7});
    flush();
    const auto writes = of(FileIoType::Write);
    ASSERT_EQ(writes.size(), 1u) << "the old file's write is not taken for the new file's";
    EXPECT_EQ(writes[0]->u32(40), 7u);
    EXPECT_TRUE(of(FileIoType::Cleanup).empty());
    EXPECT_EQ(of(FileIoType::Name).size(), 1u);
}

TEST_F(Tracker, AMissingFileEndsWithObjectNameNotFoundAndGarbageIsNoName)
{
    strings[0x1000] = "/d/missing";
    call("sys_enter_openat", {-100, 0x1000, 0, 0});
    call("sys_exit_openat", {-2});
    strings[0x2000] = std::string("/d/\x01\xff", 5);
    call("sys_enter_openat", {-100, 0x2000, 0, 0});
    call("sys_exit_openat", {-13});
    flush();
    const auto creates = of(FileIoType::Create);
    ASSERT_EQ(creates.size(), 2u);
    EXPECT_EQ(creates[0]->text(36), "/d/missing");
    EXPECT_NE(creates[0]->ptr(16), 0u) << "a failed open's FileObject of its own";
    EXPECT_EQ(end_of(creates[0]->ptr(0))->u32(16), 0xC0000034u);
    EXPECT_EQ(creates[1]->text(36), "") << "bytes that are no path are not taken for one";
    EXPECT_EQ(end_of(creates[1]->ptr(0))->u32(16), 0xC0000022u) << "EACCES: STATUS_ACCESS_DENIED";
    EXPECT_TRUE(of(FileIoType::Name).empty()) << "no key: nothing was opened";
}

TEST_F(Tracker, SocketsMakeNoRecordAndDup2AndExecMakeTheTableForget)
{
    fds[{kPid, 5}] = {"socket:[99]", 0, 0, -1};
    fds[{kPid, 6}] = {"/var/log/a", 40, 0, -1};
    call("sys_enter_write", {5, 0, 10});
    call("sys_exit_write", {10});
    call("sys_enter_write", {6, 0, 10});
    call("sys_exit_write", {10});
    flush();
    ASSERT_EQ(of(FileIoType::Write).size(), 1u) << "the socket's write makes none";
    EXPECT_EQ(of(FileIoType::Write)[0]->ptr(0), 40u) << "the position the lookup read";
    EXPECT_EQ(tracker.files().size(), 2u) << "the socket remembered as not a file";

    out.clear();
    fds[{kPid, 6}] = {"/var/log/b", 0, 0, -1};
    call("sys_enter_dup2", {7, 6});
    call("sys_exit_dup2", {6});
    call("sys_enter_write", {6, 0, 10});
    call("sys_exit_write", {10});
    flush();
    ASSERT_EQ(of(FileIoType::Name).size(), 1u);
    EXPECT_EQ(of(FileIoType::Name)[0]->text(8), "/var/log/b") << "fd 6 looked up anew after dup2";

    call("sys_exit_execve", {0});
    flush();
    EXPECT_EQ(tracker.files().size(), 0u) << "exec: every descriptor looked up anew";
}

TEST_F(Tracker, TheFlagsChooseTheRecords)
{
    fds[{kPid, 3}] = {"/d/f", 0, 0, -1};
    strings[0x1000] = "/d/f";
    tracker.set_flags(ETW_FLAG_FILE_IO);
    call("sys_enter_openat", {-100, 0x1000, 0, 0});
    call("sys_exit_openat", {3});
    call("sys_enter_write", {3, 0, 10});
    call("sys_exit_write", {10});
    flush();
    EXPECT_EQ(of(FileIoType::OperationEnd).size(), 2u);
    EXPECT_EQ(out.size(), 2u) << "FILE_IO alone: OperationEnds only";
    out.clear();
    tracker.set_flags(ETW_FLAG_DISK_FILE_IO);
    call("sys_enter_close", {3});
    call("sys_exit_close", {0});
    fds[{kPid, 4}] = {"/d/g", 0, 0, -1};
    strings[0x2000] = "/d/g";
    call("sys_enter_openat", {-100, 0x2000, 0300, 0}); // O_CREAT | O_EXCL
    call("sys_exit_openat", {4});
    flush();
    ASSERT_EQ(out.size(), 2u) << "DISK_FILE_IO alone: names only";
    EXPECT_EQ(out[0].type, std::uint8_t(FileIoType::Name));
    EXPECT_EQ(out[1].type, std::uint8_t(FileIoType::FileCreate));
    EXPECT_EQ(out[1].text(8), "/d/g");
}

TEST(FileIoMapping, OpenFlagsAsCreateDispositionsAndResults)
{
    EXPECT_EQ(create_options_from_open_flags(0), kFileOpen << 24 | 0x20);
    EXPECT_EQ(create_options_from_open_flags(0100 | 0200), kFileCreate << 24 | 0x20);
    EXPECT_EQ(create_options_from_open_flags(0100 | 01000), kFileOverwriteIf << 24 | 0x20);
    EXPECT_EQ(create_options_from_open_flags(0100), kFileOpenIf << 24 | 0x20);
    EXPECT_EQ(create_options_from_open_flags(01000), kFileOverwrite << 24 | 0x20);
    EXPECT_EQ(create_options_from_open_flags(0200000 | 040000 | 04010000), kFileOpen << 24 | 0x20 | 0x1 | 0x8 | 0x2);
    EXPECT_EQ(create_result(0100 | 0200, false), kFileCreated);
    EXPECT_EQ(create_result(0100, true), kFileCreated);
    EXPECT_EQ(create_result(0100, false), kFileOpened);
    EXPECT_EQ(create_result(0100 | 01000, false), kFileOverwritten);
    EXPECT_EQ(create_result(0, true), kFileOpened) << "without O_CREAT nothing is made";
}
