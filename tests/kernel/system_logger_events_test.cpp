// System logger sessions recording system calls, page faults and the
// SystemConfig rundown from real workloads: a child's failing getpgid
// calls arrive as SysClEnter with its number and SysClExit with the
// NTSTATUS of ESRCH; fresh pages touched arrive as DemandZeroFault (user
// and kernel mode) and a forked child's writes as CopyOnWrite, with their
// addresses and threads; a session ends with the machine's CPU, a PhyDisk
// per /sys/block disk numbered as DiskIo numbers them, the LogDisk of /,
// a NIC per interface, none with NO_SYSCONFIG; a thread woken through a
// pipe arrives as ReadyThread once per wakeup. Runs as root (as CI).
#include "system_logger_live.hpp"

#include "kernel/disk_records.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

namespace {

using namespace syslogtest;

std::string read_line(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// The last pid the kernel gave (to a process or thread): /proc/loadavg's last field.
long last_pid()
{
    const std::string line = read_line("/proc/loadavg");
    return std::atol(line.substr(line.rfind(' ') + 1).c_str());
}

// The threads of the machine now: each may be inside a system call.
std::size_t threads_alive()
{
    std::size_t n = 0;
    for (const auto &proc : std::filesystem::directory_iterator("/proc")) {
        std::error_code ec;
        if (proc.path().filename().string().find_first_not_of("0123456789") != std::string::npos)
            continue;
        for (auto it = std::filesystem::directory_iterator(proc.path() / "task", ec);
             !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
            ++n;
    }
    return n;
}

} // namespace

TEST(SystemLoggerEvents, SystemCallsArriveWithTheirNumberAndNtStatus)
{
    const std::string file = temp_file("openetw-syslog-syscall");
    Props props("OpenETW system logger syscalls " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    const std::size_t threads_before = threads_alive();
    const long pid_before = last_pid();
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_SYSTEMCALL), ETW_OK) << etw_last_error_message();
    constexpr int kCalls = 300;
    const pid_t child = ::fork();
    if (child == 0) {
        // getpgid of a pid that cannot exist: ESRCH every time.
        for (int i = 0; i < kCalls; ++i)
            ::syscall(SYS_getpgid, 0x3FFFFFF0);
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    const std::size_t threads_after = threads_alive();
    const long pid_after = last_pid();
    etw_session_close(s);
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u) << "system calls were dropped";
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);

    std::size_t enters = 0, getpgid = 0, exits = 0, esrch = 0;
    for (const Seen &r : seen) {
        if (r.event_name == "PerfInfo/SysClEnter") {
            ++enters;
            EXPECT_EQ(r.kind, ETW_RECORD_KIND_PERFINFO);
            getpgid += number(r, "SysCallAddress") == SYS_getpgid;
        } else if (r.event_name == "PerfInfo/SysClExit") {
            ++exits;
            esrch += number(r, "SysCallNtStatus") == 0xC000000B; // STATUS_INVALID_CID
        }
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;
    }
    EXPECT_GE(getpgid, std::size_t(kCalls)) << "SysClEnter of getpgid (" << SYS_getpgid << ")";
    EXPECT_GE(esrch, std::size_t(kCalls)) << "SysClExit with ESRCH's STATUS_INVALID_CID";
    // Every call enters and leaves but those in flight at the start (an
    // exit only) or the stop (an enter only), a new thread's first return
    // (an exit only) and a thread's exit (an enter only): one a thread at
    // most, of those alive at the start or stop or started meanwhile.
    EXPECT_GT(enters, 0u);
    const std::size_t started = pid_after >= pid_before ? std::size_t(pid_after - pid_before) : 4u << 20; // wrapped
    const std::size_t unpaired = threads_before + threads_after + started;
    EXPECT_LE(enters > exits ? enters - exits : exits - enters, unpaired)
        << enters << " enters, " << exits << " exits; threads: " << threads_before << " at the start, " << threads_after
        << " at the stop, " << started << " started";
}

TEST(SystemLoggerEvents, FreshPagesFaultAsDemandZeroAndAForkedChildsWritesAsCopyOnWrite)
{
    const long page = ::sysconf(_SC_PAGESIZE);
    constexpr int kPages = 64;
    auto *mem = static_cast<volatile char *>(
        ::mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE((void *)mem, MAP_FAILED);
    ::madvise((void *)mem, kPages * page, MADV_NOHUGEPAGE); // a fault a page, not one for all
    auto *kbuf =
        static_cast<char *>(::mmap(nullptr, 16 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE((void *)kbuf, MAP_FAILED);
    ::madvise(kbuf, 16 * page, MADV_NOHUGEPAGE);
    const int zero = ::open("/dev/zero", O_RDONLY);
    ASSERT_GE(zero, 0);

    const std::string file = temp_file("openetw-syslog-faults");
    Props props("OpenETW system logger faults " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_MEMORY_PAGE_FAULTS), ETW_OK) << etw_last_error_message();
    for (int i = 0; i < kPages; ++i)
        mem[i * page] = 1; // first touch, by this thread
    // The kernel writes into fresh pages on this thread's behalf: kernel-mode faults.
    const ssize_t got = ::read(zero, kbuf, 16 * page);
    const pid_t child = ::fork();
    if (child == 0) {
        for (int i = 0; i < kPages; ++i)
            mem[i * page] = 2; // shared with the parent since the fork: copied on write
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    ::close(zero);
    EXPECT_EQ(got, 16 * page);
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);

    const auto base = (unsigned long long)(std::uintptr_t)mem, end = base + kPages * page;
    const auto kbase = (unsigned long long)(std::uintptr_t)kbuf, kend = kbase + 16 * page;
    const long long me = ::getpid(), kid = child;
    std::vector<bool> zeroed(kPages), copied(kPages);
    std::size_t kernel_mode = 0;
    for (const Seen &r : seen) {
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;
        const auto va = (unsigned long long)number(r, "VirtualAddress");
        if (r.event_name == "PageFault/DemandZeroFault" && r.process_id == me && va >= base && va < end) {
            zeroed[(va - base) / page] = true;
            EXPECT_EQ(r.thread_id, std::uint32_t(::gettid()));
        }
        if (r.event_name == "PageFault/CopyOnWrite" && r.process_id == kid && va >= base && va < end)
            copied[(va - base) / page] = true;
        // A kernel-mode fault's program counter is the kernel's (the top half).
        if (r.event_name == "PageFault/DemandZeroFault" && r.process_id == me && va >= kbase && va < kend &&
            (unsigned long long)number(r, "ProgramCounter") >= 0xFFFF800000000000ull)
            ++kernel_mode;
    }
    for (int i = 0; i < kPages; ++i) {
        EXPECT_TRUE(zeroed[i]) << "no DemandZeroFault of page " << i;
        EXPECT_TRUE(copied[i]) << "no CopyOnWrite of page " << i << " by the child";
    }
    EXPECT_GT(kernel_mode, 0u) << "no kernel-mode fault on the read buffer";
    ::munmap((void *)mem, kPages * page);
    ::munmap(kbuf, 16 * page);
}

TEST(SystemLoggerEvents, ASessionEndsWithTheMachinesSystemConfigUnlessNoSysconfig)
{
    // No flags at all: a system logger still ends with SystemConfig, as Windows' does.
    const std::string file = temp_file("openetw-syslog-config");
    Props props("OpenETW system logger config " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, 0), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);
    for (const Seen &r : seen)
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;

    const auto cpus = named(seen, "SystemConfig/CPU");
    ASSERT_EQ(cpus.size(), 1u);
    EXPECT_EQ(number(*cpus[0], "NumberOfProcessors"), ::sysconf(_SC_NPROCESSORS_ONLN));
    EXPECT_EQ(number(*cpus[0], "PageSize"), ::sysconf(_SC_PAGESIZE));
    EXPECT_EQ(number(*cpus[0], "MemSize"),
              (long long)((unsigned long long)::sysconf(_SC_PHYS_PAGES) * ::sysconf(_SC_PAGESIZE) >> 20));
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    EXPECT_EQ(cpus[0]->value("ComputerName"), host);

    // A PhyDisk per /sys/block disk, each numbered as DiskIo numbers it.
    std::vector<openetw::kernel::BlockDisk> disks;
    for (const auto &e : std::filesystem::directory_iterator("/sys/block")) {
        unsigned major = 0, minor = 0;
        if (std::sscanf(read_line(e.path() / "dev").c_str(), "%u:%u", &major, &minor) == 2)
            disks.push_back({e.path().filename().string(), major, minor});
    }
    const auto phys = named(seen, "SystemConfig/PhyDisk");
    ASSERT_EQ(phys.size(), disks.size());
    for (const auto &d : disks) {
        const auto n = openetw::kernel::disk_number(disks, openetw::kernel::kernel_dev(d.major, d.minor));
        ASSERT_TRUE(n.has_value()) << d.name;
        const Seen *match = nullptr;
        for (const Seen *p : phys)
            if (number(*p, "DiskNumber") == *n)
                match = p;
        ASSERT_NE(match, nullptr) << "no PhyDisk numbered " << *n << " (" << d.name << ")";
        const unsigned long long bytes = std::stoull(read_line("/sys/block/" + d.name + "/size")) * 512;
        EXPECT_EQ((unsigned long long)number(*match, "Cylinders") * number(*match, "BytesPerSector") *
                      number(*match, "TracksPerCylinder") * number(*match, "SectorsPerTrack"),
                  bytes)
            << d.name << " is DiskNumber " << *n;
    }

    // The filesystem of / (when it is on one of those disks) as a LogDisk.
    struct stat root {};
    ASSERT_EQ(::stat("/", &root), 0);
    bool root_on_disk = false;
    for (const auto &d : disks)
        root_on_disk |= d.major == major(root.st_dev);
    if (root_on_disk) {
        struct statvfs v {};
        ASSERT_EQ(::statvfs("/", &v), 0);
        bool found = false;
        for (const Seen *l : named(seen, "SystemConfig/LogDisk"))
            found |= (unsigned long long)number(*l, "TotalNumberOfClusters") * number(*l, "SectorsPerCluster") *
                         number(*l, "BytesPerSector") ==
                     (unsigned long long)v.f_blocks * v.f_frsize;
        EXPECT_TRUE(found) << "no LogDisk the size of / (device " << major(root.st_dev) << ":" << minor(root.st_dev)
                           << ")";
    }

    // A NIC per interface but loopback.
    std::size_t interfaces = 0;
    for (const auto &e : std::filesystem::directory_iterator("/sys/class/net"))
        interfaces += read_line(e.path() / "type") != "772";
    EXPECT_EQ(named(seen, "SystemConfig/NIC").size(), interfaces);

    // NO_SYSCONFIG: accepted at the start and by an update, and no SystemConfig at all.
    const std::string quiet = temp_file("openetw-syslog-noconfig");
    Props props2("OpenETW system logger no config " + std::to_string(::getpid()));
    ASSERT_EQ(start(&s, props2, quiet, ETW_FLAG_NO_SYSCONFIG), ETW_OK) << etw_last_error_message();
    etw_properties_set_enable_flags(props2.p, ETW_FLAG_NO_SYSCONFIG | ETW_FLAG_PROCESS);
    EXPECT_EQ(etw_session_update(s, props2.p), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_stop(s, props2.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> none = read_back(quiet);
    std::filesystem::remove(quiet);
    std::size_t config = 0;
    for (const Seen &r : none)
        config += (r.hook_id >> 8) == 0x15;
    EXPECT_EQ(config, 0u) << "SystemConfig written despite NO_SYSCONFIG";
    EXPECT_FALSE(named(none, "Process/DCEnd").empty()) << "the update's PROCESS flag did not take";
}

TEST(SystemLoggerEvents, AThreadWokenThroughAPipeIsReadiedOncePerWakeup)
{
    const std::string file = temp_file("openetw-syslog-ready");
    Props props("OpenETW system logger ready " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_DISPATCHER), ETW_OK) << etw_last_error_message();
    // Ping-pong: the echo thread sleeps in read() each time a byte is sent
    // (the sender waits first), so each byte wakes it once.
    constexpr int kRounds = 200;
    int ping[2], pong[2];
    ASSERT_EQ(::pipe(ping), 0);
    ASSERT_EQ(::pipe(pong), 0);
    std::atomic<pid_t> echo_tid{0};
    std::thread echo([&] {
        echo_tid = pid_t(::syscall(SYS_gettid));
        char c;
        while (::read(ping[0], &c, 1) == 1 && c != 'q')
            (void)!::write(pong[1], &c, 1);
    });
    char c = 'p';
    for (int i = 0; i < kRounds; ++i) {
        ::usleep(300); // the echo thread is asleep in read() by now
        ASSERT_EQ(::write(ping[1], &c, 1), 1);
        ASSERT_EQ(::read(pong[0], &c, 1), 1);
    }
    c = 'q';
    ::usleep(300); // asleep again: the last byte wakes it too (else it may read it running)
    ASSERT_EQ(::write(ping[1], &c, 1), 1);
    echo.join();
    for (int fd : {ping[0], ping[1], pong[0], pong[1]})
        ::close(fd);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);

    std::size_t readied = 0, all = 0;
    for (const Seen &r : seen) {
        if (r.event_name != "Thread/ReadyThread")
            continue;
        ++all;
        EXPECT_EQ(r.kind, ETW_RECORD_KIND_PERFINFO);
        EXPECT_TRUE(r.problem.empty()) << r.problem;
        EXPECT_EQ(r.value("AdjustReason"), "0");
        readied += number(r, "TThreadId") == echo_tid.load();
    }
    // Each byte woke it, and the last one too; a signal or the exit may add a few.
    EXPECT_GE(readied, std::size_t(kRounds + 1)) << all << " ReadyThread records in all";
    EXPECT_LE(readied, std::size_t(kRounds + 20));
}
