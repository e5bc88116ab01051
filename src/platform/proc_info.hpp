// What the system says about running processes: their ids, threads, user,
// executable, command line, CPU times and file mappings (Linux: /proc).
// The system logger's rundown (kernel/rundown.hpp) turns them into
// Windows' Process/Thread/Image DCStart records.
//
// Rules (every header of src/platform): nothing here is on the
// event-writing path; nothing throws; failures are etw_status values. A
// process or thread that ends while it is read gives ETW_ERROR_NOT_FOUND.
// posix/proc_info_posix.cpp reads /proc; windows/proc_info_windows.cpp
// returns ETW_ERROR_NOT_SUPPORTED. proc_text.cpp parses /proc's text on
// every OS (the parsers are pure, and tested on their own).
#pragma once

#include <openetw/status.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openetw::platform {

// One task (a thread, or a whole process for its /proc/PID/stat).
struct ProcTask {
    std::uint32_t tid = 0;
    std::uint32_t ppid = 0;
    std::uint32_t session = 0;
    char state = 0;
    std::string comm;
    std::int32_t nice = 0;
    std::uint64_t user_time = 0;   // 100 ns units
    std::uint64_t kernel_time = 0; // 100 ns units
    std::uint64_t start_time = 0;  // clock ticks after boot (an identity with the id)
    std::uint64_t affinity = 0;    // processors 0..63 it may run on (0: not read)
};

struct ProcProcess {
    std::uint32_t pid = 0;
    ProcTask stat;          // /proc/PID/stat: ppid, session, comm, the process's total times
    std::uint32_t uid = 0;  // real user id
    std::string executable; // path of the executable; empty when unreadable (kernel threads, others' processes)
    std::string cmdline;    // raw: arguments separated by NULs
};

struct ProcMapping {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
    std::string perms; // "r-xp"
    std::uint64_t offset = 0;
    std::string device; // "08:01"
    std::uint64_t inode = 0;
    std::string path; // a file's path, "[heap]"-like names, or empty
};

// Ids of the running processes.
etw_status proc_list_processes(std::vector<std::uint32_t> *pids) noexcept;
// Ids of the threads of pid (ETW_ERROR_NOT_FOUND when it has ended).
etw_status proc_list_threads(std::uint32_t pid, std::vector<std::uint32_t> *tids) noexcept;
// One process; ETW_ERROR_NOT_FOUND when it has ended (or is a zombie).
etw_status proc_read_process(std::uint32_t pid, ProcProcess *out) noexcept;
// One thread of pid, with its affinity.
etw_status proc_read_thread(std::uint32_t pid, std::uint32_t tid, ProcTask *out) noexcept;
// The mappings of pid; ETW_ERROR_ACCESS_DENIED for a process the caller may not inspect.
etw_status proc_read_mappings(std::uint32_t pid, std::vector<ProcMapping> *out) noexcept;

// A whole disk of /sys/block and its device number (its dev file, "254:0").
struct SysBlockDisk {
    std::string name; // "vda", "nvme0n1"
    std::uint32_t major = 0;
    std::uint32_t minor = 0;
};
// The whole disks of /sys/block (partitions are not listed there), in no order.
etw_status sys_block_disks(std::vector<SysBlockDisk> *out) noexcept;

// ---- Parsers of /proc text (proc_text.cpp) ----
// A stat line ("pid (comm) state ppid ..."); comm may hold spaces and
// parentheses. ticks_per_second converts utime/stime. False when malformed.
bool parse_proc_stat(std::string_view line, std::uint64_t ticks_per_second, ProcTask *out);
// One line of /proc/PID/maps. False when malformed.
bool parse_proc_maps_line(std::string_view line, ProcMapping *out);
// The value of "Key:" in a status file ("Uid:\t1000\t1000..." -> "1000\t1000..."), or empty.
std::string_view proc_status_value(std::string_view status, std::string_view key);
// A Cpus_allowed mask ("ff,ffffffff"): processors 0..63.
std::uint64_t parse_cpu_mask(std::string_view hex);

} // namespace openetw::platform
