// The rundown from /proc: the test process itself (its pid, parent,
// command line, user, threads, its own executable and libc among its
// images) and a child it starts, found in the records the rundown writes,
// read back through the consumer and the decoder; a zombie left out; and
// the /proc parsers on odd input.
#include "kernel_etl.hpp"

#include "kernel/rundown.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace openetw::kernel;
using kerneltest::Seen;

namespace {

// A thread that waits until released: the test process has two threads.
class SecondThread {
public:
    SecondThread()
        : t_([this] {
              std::unique_lock<std::mutex> lock(m_);
              tid_ = std::uint32_t(::syscall(SYS_gettid));
              cv_.notify_all();
              cv_.wait(lock, [this] { return done_; });
          })
    {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return tid_ != 0; });
    }
    ~SecondThread()
    {
        {
            std::lock_guard<std::mutex> lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        t_.join();
    }
    std::uint32_t tid() const { return tid_; }

private:
    std::mutex m_;
    std::condition_variable cv_;
    std::uint32_t tid_ = 0;
    bool done_ = false;
    std::thread t_;
};

// A child running `/bin/sh -c "sleep 30; :" openetw-rundown-child`, killed at the end.
class Child {
public:
    explicit Child(const char *script)
    {
        char *argv[] = {const_cast<char *>("/bin/sh"), const_cast<char *>("-c"), const_cast<char *>(script),
                        const_cast<char *>("openetw-rundown-child"), nullptr};
        // In a process group of its own: the end kills the shell and what it started.
        posix_spawnattr_t attr;
        ::posix_spawnattr_init(&attr);
        ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        ::posix_spawnattr_setpgroup(&attr, 0);
        EXPECT_EQ(::posix_spawn(&pid_, "/bin/sh", nullptr, &attr, argv, environ), 0);
        ::posix_spawnattr_destroy(&attr);
    }
    ~Child()
    {
        if (pid_ > 0) {
            ::kill(-pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    std::uint32_t pid() const { return std::uint32_t(pid_); }
    // Waits until the child has exec'ed /bin/sh (its exe link is no longer ours).
    void wait_exec() const
    {
        const auto self = std::filesystem::read_symlink("/proc/self/exe");
        for (int i = 0; i < 2000; ++i) {
            std::error_code ec;
            const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid_) + "/exe", ec);
            if (!ec && exe != self)
                return;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ADD_FAILURE() << "the child did not exec /bin/sh";
    }

private:
    pid_t pid_ = -1;
};

std::vector<Bytes> run(const RundownOptions &o, RundownCounts *counts)
{
    std::vector<Bytes> records;
    const openetw::Status s = rundown(
        o, [&](Bytes &&r) { records.push_back(std::move(r)); }, counts);
    EXPECT_TRUE(s.is_ok()) << s.message;
    return records;
}

const Seen *find(const std::vector<Seen> &seen, const std::string &event, const std::string &field,
                 const std::string &value)
{
    for (const Seen &s : seen)
        if (s.event_name == event && s.value(field) == value)
            return &s;
    return nullptr;
}

std::string hex(std::uint32_t v)
{
    char s[16];
    std::snprintf(s, sizeof s, "0x%X", v);
    return s;
}

std::uint64_t parse_hex(const std::string &s) { return std::stoull(s, nullptr, 16); }

void marker() {}

} // namespace

TEST(Rundown, FindsThisProcessItsThreadsImagesAndAChild)
{
    SecondThread second;
    Child child("sleep 30; :");
    child.wait_exec();
    const std::uint32_t self = std::uint32_t(::getpid());
    const std::string self_pid = std::to_string(self);

    RundownCounts counts;
    RundownOptions o;
    o.timestamp = 424242;
    const std::vector<Bytes> records = run(o, &counts);
    EXPECT_GT(counts.processes, 1u);
    EXPECT_GE(counts.threads, counts.processes);
    EXPECT_GT(counts.images, 0u);
    EXPECT_GT(counts.build_ids, 0u);
    EXPECT_EQ(records.size(), std::size_t(counts.processes) + counts.threads + counts.images + counts.build_ids);

    const std::vector<Seen> seen = kerneltest::round_trip(records, 8);
    ASSERT_EQ(seen.size(), records.size());
    for (const Seen &s : seen) {
        ASSERT_EQ(s.problem, "") << s.event_name;
        ASSERT_EQ(s.consumed, s.payload_size) << s.event_name;
        ASSERT_EQ(s.timestamp_raw, 424242);
    }

    // This process.
    const Seen *me = find(seen, "Process/DCStart", "ProcessId", self_pid);
    ASSERT_NE(me, nullptr);
    EXPECT_EQ(me->hook_id, 0x0303);
    EXPECT_EQ(me->process_id, self);
    EXPECT_EQ(me->value("ParentId"), std::to_string(::getppid()));
    EXPECT_EQ(me->value("SessionId"), std::to_string(::getsid(0)));
    EXPECT_EQ(me->value("ExitStatus"), "259");
    EXPECT_EQ(me->value("UserSID"), "S-1-22-1-" + std::to_string(::getuid()));
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe");
    EXPECT_EQ(me->value("ImageFileName"), exe.filename().string());
    // Its command line: the program, then gtest's arguments if any.
    const std::string cmd = me->value("CommandLine");
    EXPECT_EQ(std::filesystem::path(cmd.substr(0, cmd.find(' '))).filename(), exe.filename()) << cmd;

    // Its two threads (ids print in hex in Thread_V3).
    const Seen *main_thread = find(seen, "Thread/DCStart", "TThreadId", hex(self));
    const Seen *other = find(seen, "Thread/DCStart", "TThreadId", hex(second.tid()));
    ASSERT_NE(main_thread, nullptr);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->value("ProcessId"), hex(self));
    EXPECT_EQ(other->thread_id, second.tid());
    EXPECT_EQ(other->process_id, self);
    EXPECT_EQ(other->hook_id, 0x0503);
    EXPECT_NE(other->value("Affinity"), "0x0");

    // Its images: libc, and its own executable around one of its functions.
    bool libc = false, own = false;
    const auto here = reinterpret_cast<std::uintptr_t>(&marker);
    for (const Seen &s : seen) {
        if (s.event_name != "Image/DCStart" || s.value("ProcessId") != self_pid)
            continue;
        EXPECT_EQ(s.hook_id, 0x1403);
        const std::string file = s.value("FileName");
        const std::uint64_t base = parse_hex(s.value("ImageBase")), size = parse_hex(s.value("ImageSize"));
        EXPECT_GT(size, 0u) << file;
        libc = libc || std::filesystem::path(file).filename().string().rfind("libc.so", 0) == 0;
        if (std::filesystem::equivalent(file, exe)) {
            own = true;
            EXPECT_LE(base, here);
            EXPECT_GT(base + size, here);
            // Followed by its build id, read from the file (docs/KERNEL_LOGGER.md, "Build ids").
            const Seen *next = &s + 1;
            ASSERT_LT(next, seen.data() + seen.size());
            ASSERT_EQ(next->event_name, "ImageID/DbgID_RSDS") << file;
            EXPECT_EQ(next->value("ImageBase"), s.value("ImageBase"));
            EXPECT_EQ(next->value("ProcessId"), self_pid);
            EXPECT_EQ(next->value("PdbFileName"), file);
            const std::vector<std::uint8_t> id = read_file_build_id(exe.string());
            ASSERT_GE(id.size(), 16u) << "the test program has no build id (linked without --build-id?)";
            std::string guid_sig = next->value("GuidSig");
            std::erase_if(guid_sig, [](char ch) { return ch == '{' || ch == '}' || ch == '-'; });
            // GuidSig shows Data1..Data3 little-endian, as a GUID: the id's bytes 0-3, 4-5, 6-7 reversed.
            char want[40];
            std::snprintf(want, sizeof want, "%02X%02X%02X%02X%02X%02X%02X%02X", id[3], id[2], id[1], id[0], id[5],
                          id[4], id[7], id[6]);
            for (int k = 8; k < 16; ++k)
                std::snprintf(want + 16 + 2 * (k - 8), 3, "%02X", id[k]);
            EXPECT_EQ(guid_sig, want);
        }
    }
    EXPECT_TRUE(libc);
    EXPECT_TRUE(own);

    // The child: its parent is this process, its command line is exact.
    const Seen *c = find(seen, "Process/DCStart", "ProcessId", std::to_string(child.pid()));
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->value("ParentId"), self_pid);
    EXPECT_EQ(c->value("CommandLine"), "/bin/sh -c sleep 30; : openetw-rundown-child");
    EXPECT_EQ(c->value("ImageFileName"), std::filesystem::canonical("/bin/sh").filename().string());
}

TEST(Rundown, EndRecordsIn32BitLayout)
{
    RundownOptions o;
    o.end = true;
    o.pointer_size = 4;
    RundownCounts counts;
    const std::vector<Bytes> records = run(o, &counts);
    const std::vector<Seen> seen = kerneltest::round_trip(records, 4);
    ASSERT_EQ(seen.size(), records.size());
    std::size_t process = 0, thread = 0, image = 0;
    for (const Seen &s : seen) {
        // ImageID's classic EVENT_TRACE_HEADER: 0x0A in a 32-bit layout.
        EXPECT_EQ(s.header_type, s.event_name.starts_with("ImageID/") ? 0x0Au : 0x01u) << s.event_name;
        EXPECT_EQ(s.problem, "") << s.event_name;
        EXPECT_EQ(s.consumed, s.payload_size) << s.event_name;
        process += s.event_name == "Process/DCEnd" && s.hook_id == 0x0304;
        thread += s.event_name == "Thread/DCEnd" && s.hook_id == 0x0504;
        image += s.event_name == "Image/DCEnd" && s.hook_id == 0x1404;
    }
    EXPECT_EQ(process, counts.processes);
    EXPECT_EQ(thread, counts.threads);
    EXPECT_EQ(image, counts.images);
    EXPECT_NE(find(seen, "Process/DCEnd", "ProcessId", std::to_string(::getpid())), nullptr);
}

// One process's images as classic records (the module map of a session
// whose events carry user stacks): each Image/DCStart an EVENT_TRACE_HEADER
// of the Image class by GUID, version 3, followed by its DbgID_RSDS when the
// file has a build id; this program's own file and libc among them.
TEST(Rundown, OneProcessImagesAsClassicRecords)
{
    RundownOptions o;
    o.classic = true;
    RundownCounts counts;
    std::vector<Bytes> records;
    const openetw::Status st = image_rundown(
        std::uint32_t(::getpid()), o, [&](Bytes &&r) { records.push_back(std::move(r)); }, &counts);
    ASSERT_TRUE(st.is_ok()) << st.message;
    const std::vector<Seen> seen = kerneltest::round_trip(records, 8);
    ASSERT_EQ(seen.size(), records.size());
    std::size_t images = 0, ids = 0;
    bool self = false, libc = false;
    for (const Seen &s : seen) {
        EXPECT_EQ(s.header_type, 0x14u) << s.event_name; // EVENT_TRACE_HEADER, 64-bit
        EXPECT_EQ(s.problem, "") << s.event_name;
        EXPECT_EQ(s.value("ProcessId"), std::to_string(::getpid())) << s.event_name;
        if (s.event_name == "Image/DCStart") {
            ++images;
            EXPECT_EQ(s.kind, 4u); // ETW_RECORD_KIND_FULL
            self |= s.value("FileName") == std::filesystem::read_symlink("/proc/self/exe").string();
            libc |= s.value("FileName").find("libc.so") != std::string::npos;
        }
        ids += s.event_name == "ImageID/DbgID_RSDS";
    }
    EXPECT_EQ(images, counts.images);
    EXPECT_EQ(ids, counts.build_ids);
    EXPECT_GT(ids, 0u);
    EXPECT_TRUE(self);
    EXPECT_TRUE(libc);
    EXPECT_EQ(counts.processes, 0u); // images only
    // A process that is gone: its mappings cannot be read.
    EXPECT_FALSE(image_rundown(0x7FFFFFF0u, o, [](Bytes &&) {}).is_ok());
}

// A process that has ended but is not yet reaped has nothing left to
// describe: it is counted as vanished and gets no records.
TEST(Rundown, AZombieIsLeftOut)
{
    Child child("exit 3");
    siginfo_t info{};
    ASSERT_EQ(::waitid(P_PID, id_t(child.pid()), &info, WEXITED | WNOWAIT), 0);
    openetw::platform::ProcProcess p;
    EXPECT_EQ(openetw::platform::proc_read_process(child.pid(), &p), ETW_ERROR_NOT_FOUND);

    RundownOptions o;
    o.threads = false;
    o.images = false;
    RundownCounts counts;
    const std::vector<Seen> seen = kerneltest::round_trip(run(o, &counts), 8);
    EXPECT_GE(counts.vanished, 1u);
    EXPECT_EQ(find(seen, "Process/DCStart", "ProcessId", std::to_string(child.pid())), nullptr);
    EXPECT_NE(find(seen, "Process/DCStart", "ProcessId", std::to_string(::getpid())), nullptr);
    for (const Seen &s : seen)
        EXPECT_EQ(s.event_name, "Process/DCStart");
}

TEST(Rundown, StatWithOddCommParses)
{
    openetw::platform::ProcTask t;
    const char *line = "1234 (a) (b c) S 1 1234 77 0 -1 4194560 100 0 0 0 250 50 0 0 20 -5 2 0 98765 1 2 3\n";
    ASSERT_TRUE(openetw::platform::parse_proc_stat(line, 100, &t));
    EXPECT_EQ(t.tid, 1234u);
    EXPECT_EQ(t.comm, "a) (b c");
    EXPECT_EQ(t.state, 'S');
    EXPECT_EQ(t.ppid, 1u);
    EXPECT_EQ(t.session, 77u);
    EXPECT_EQ(t.user_time, 25'000'000u); // 250 ticks of 10 ms
    EXPECT_EQ(t.kernel_time, 5'000'000u);
    EXPECT_EQ(t.nice, -5);
    EXPECT_EQ(t.start_time, 98765u);
    EXPECT_FALSE(openetw::platform::parse_proc_stat("1234 (x S 1", 100, &t));
    EXPECT_FALSE(openetw::platform::parse_proc_stat("1234 (x) S 1 2", 100, &t));
    EXPECT_EQ(openetw::platform::parse_cpu_mask("ff,0000000f"), 0xFF0000000Full);
    EXPECT_EQ(openetw::platform::parse_cpu_mask("3"), 3u);
}

// One image per file with an executable mapping, spanning all its mappings;
// anonymous, pseudo and data-only files are none.
TEST(Rundown, ImagesSpanTheirFilesMappings)
{
    const char *maps[] = {
        "55d000000000-55d000002000 r--p 00000000 08:01 100 /usr/bin/my prog",
        "55d000002000-55d000005000 r-xp 00002000 08:01 100 /usr/bin/my prog",
        "55d000005000-55d000006000 rw-p 00005000 08:01 100 /usr/bin/my prog",
        "55d000010000-55d000031000 rw-p 00000000 00:00 0 [heap]",
        "7f0000000000-7f0000001000 r--p 00000000 08:01 200 /usr/share/locale/data",
        "7f0000100000-7f0000128000 r--p 00000000 08:01 300 /usr/lib/libc.so.6",
        "7f0000128000-7f000029d000 r-xp 00028000 08:01 300 /usr/lib/libc.so.6",
        "7f00002f0000-7f00002f2000 rw-p 001f0000 08:01 300 /usr/lib/libc.so.6",
        "7ffc00000000-7ffc00002000 r-xp 00000000 00:00 0 [vdso]",
    };
    std::vector<openetw::platform::ProcMapping> m;
    for (const char *line : maps) {
        openetw::platform::ProcMapping one;
        ASSERT_TRUE(openetw::platform::parse_proc_maps_line(line, &one)) << line;
        m.push_back(one);
    }
    EXPECT_EQ(m[0].path, "/usr/bin/my prog");
    EXPECT_EQ(m[1].offset, 0x2000u);
    EXPECT_EQ(m[1].inode, 100u);
    const std::vector<ImageSpan> images = images_of(m);
    ASSERT_EQ(images.size(), 2u);
    EXPECT_EQ(images[0].path, "/usr/bin/my prog");
    EXPECT_EQ(images[0].base, 0x55d000000000u);
    EXPECT_EQ(images[0].size, 0x6000u);
    EXPECT_EQ(images[1].path, "/usr/lib/libc.so.6");
    EXPECT_EQ(images[1].base, 0x7f0000100000u);
    EXPECT_EQ(images[1].size, 0x1f2000u);
    openetw::platform::ProcMapping bad;
    EXPECT_FALSE(openetw::platform::parse_proc_maps_line("zz-10 r-xp 0 08:01 1 /x", &bad));
}

// What the rundown makes of one process: invalid UTF-8 kept as U+FFFD, a
// deleted executable's name, a kernel thread named by its comm.
TEST(Rundown, ProcessFieldsFromProc)
{
    openetw::platform::ProcProcess p;
    p.pid = 77;
    p.uid = 1001;
    p.stat.ppid = 2;
    p.stat.session = 77;
    p.stat.start_time = 5;
    p.stat.comm = "worker";
    p.executable = "/opt/app/server (deleted)";
    p.cmdline = std::string("server\0--name=\xFF\0", 16);
    ProcessFields f = process_fields(p);
    EXPECT_EQ(f.image_file_name, "server");
    EXPECT_EQ(f.command_line, u"server --name=\uFFFD");
    EXPECT_EQ(f.unique_process_key, (std::uint64_t(5) << 32) | 77);
    EXPECT_EQ(f.user_sid, unix_user_sid(1001));
    p.executable.clear();
    p.cmdline.clear();
    f = process_fields(p);
    EXPECT_EQ(f.image_file_name, "worker");
    EXPECT_EQ(f.command_line, u"");
}
