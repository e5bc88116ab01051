// The harness shared by the three benchmark programs (openetw-bench, the
// OpenETW engine; floor-bench, the physical floor; lttng-bench, LTTng-UST).
//
// Every program takes the same arguments (--kind=... --key=value ...), runs
// one measurement in a fresh process and prints one JSON object on stdout:
//   {"ok":true,"impl":"ours","kind":"write",...,"result":{...}}
//   {"ok":false,"impl":"ours","status":"not_built","message":"..."}
// bench/run interleaves the programs, repeats, and aggregates. The loops
// they measure with are in workloads.hpp.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace bench {

// ---------------------------------------------------------------- arguments

class Args {
public:
    Args(int argc, char **argv)
    {
        for (int i = 1; i < argc; ++i) {
            std::string a = argv[i];
            if (a.rfind("--", 0) != 0)
                continue;
            const auto eq = a.find('=');
            if (eq == std::string::npos)
                kv_[a.substr(2)] = std::string(1, '1'); // not = "1": a g++ 12 -O2 -Wrestrict false positive
            else
                kv_[a.substr(2, eq - 2)] = a.substr(eq + 1);
        }
    }
    std::string str(const std::string &k, const std::string &def = "") const
    {
        auto it = kv_.find(k);
        return it == kv_.end() ? def : it->second;
    }
    std::uint64_t num(const std::string &k, std::uint64_t def) const
    {
        auto it = kv_.find(k);
        return it == kv_.end() ? def : std::strtoull(it->second.c_str(), nullptr, 10);
    }
    double real(const std::string &k, double def) const
    {
        auto it = kv_.find(k);
        return it == kv_.end() ? def : std::strtod(it->second.c_str(), nullptr);
    }
    const std::map<std::string, std::string> &all() const { return kv_; }

private:
    std::map<std::string, std::string> kv_;
};

// ---------------------------------------------------------------- JSON out

// A flat JSON object built in order; values are numbers or strings.
class Json {
public:
    Json &num(const std::string &k, double v)
    {
        char buf[64];
        if (std::isfinite(v))
            std::snprintf(buf, sizeof buf, "%.6g", v);
        else
            std::snprintf(buf, sizeof buf, "null");
        add(k, buf);
        return *this;
    }
    Json &integer(const std::string &k, std::uint64_t v)
    {
        add(k, std::to_string(v));
        return *this;
    }
    Json &str(const std::string &k, const std::string &v)
    {
        add(k, quote(v));
        return *this;
    }
    Json &raw(const std::string &k, const std::string &json)
    {
        add(k, json);
        return *this;
    }
    std::string text() const { return "{" + body_ + "}"; }

    static std::string quote(const std::string &s)
    {
        std::string o = "\"";
        for (char c : s) {
            if (c == '"' || c == '\\') {
                o += '\\';
                o += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", c);
                o += b;
            } else {
                o += c;
            }
        }
        return o + "\"";
    }

private:
    void add(const std::string &k, const std::string &v)
    {
        if (!body_.empty())
            body_ += ",";
        body_ += quote(k) + ":" + v;
    }
    std::string body_;
};

inline std::string params_json(const Args &a)
{
    Json j;
    for (const auto &[k, v] : a.all())
        j.str(k, v);
    return j.text();
}

inline int emit_ok(const char *impl, const Args &a, const Json &result)
{
    Json j;
    j.raw("ok", "true")
        .str("impl", impl)
        .str("kind", a.str("kind"))
        .raw("params", params_json(a))
        .raw("result", result.text());
    std::printf("%s\n", j.text().c_str());
    std::fflush(stdout);
    return 0;
}

// status: "not_built" (the feature is absent from this build or system),
// "error" (the measurement failed).
inline int emit_fail(const char *impl, const Args &a, const std::string &status, const std::string &message)
{
    Json j;
    j.raw("ok", "false")
        .str("impl", impl)
        .str("kind", a.str("kind"))
        .raw("params", params_json(a))
        .str("status", status)
        .str("message", message);
    std::printf("%s\n", j.text().c_str());
    std::fflush(stdout);
    return status == "not_built" ? 0 : 1;
}

// ---------------------------------------------------------------- time

inline std::int64_t now_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// CPU time of the calling thread / the whole process (all threads, living
// and ended), nanoseconds.
inline std::int64_t thread_cpu_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
inline std::int64_t process_cpu_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// utime + stime of another process, nanoseconds (clock-tick resolution).
inline std::int64_t other_process_cpu_ns(int pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = std::fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char *p = std::strrchr(buf, ')');
    if (!p)
        return -1;
    // Fields after the comm: state(3) ... utime(14) stime(15).
    unsigned long long ut = 0, st = 0;
    int field = 2;
    for (const char *q = p + 1; *q; ++q) {
        if (*q == ' ') {
            ++field;
            if (field == 14)
                ut = std::strtoull(q + 1, nullptr, 10);
            else if (field == 15) {
                st = std::strtoull(q + 1, nullptr, 10);
                break;
            }
        }
    }
    const long hz = sysconf(_SC_CLK_TCK);
    return std::int64_t((ut + st) * (1000000000ull / std::uint64_t(hz)));
}

// ---------------------------------------------------------------- memory

// Proportional set size of a process in bytes (smaps_rollup), -1 on error.
inline std::int64_t pss_bytes(int pid = 0)
{
    char path[64];
    if (pid == 0)
        std::snprintf(path, sizeof path, "/proc/self/smaps_rollup");
    else
        std::snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
    FILE *f = std::fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    std::int64_t kb = -1;
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "Pss:", 4) == 0) {
            kb = std::strtoll(line + 4, nullptr, 10);
            break;
        }
    std::fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

// One mapping of /proc/<pid>/smaps with its size and Pss.
struct Mapping {
    std::uintptr_t start = 0, end = 0;
    std::string name;
    std::int64_t pss = 0; // bytes
};

inline std::vector<Mapping> mappings(int pid = 0)
{
    std::vector<Mapping> out;
    char path[64];
    if (pid == 0)
        std::snprintf(path, sizeof path, "/proc/self/smaps");
    else
        std::snprintf(path, sizeof path, "/proc/%d/smaps", pid);
    FILE *f = std::fopen(path, "r");
    if (!f)
        return out;
    char line[1024];
    while (std::fgets(line, sizeof line, f)) {
        // A mapping line: "start-end perms offset dev inode [name]";
        // attribute lines: "Name:   value kB".
        const char *sp = std::strchr(line, ' ');
        if (!sp)
            continue;
        if (sp[-1] == ':') {
            if (std::strncmp(line, "Pss:", 4) == 0 && !out.empty())
                out.back().pss = std::strtoll(line + 4, nullptr, 10) * 1024;
            continue;
        }
        Mapping m;
        char *endp = nullptr;
        m.start = std::strtoull(line, &endp, 16);
        if (!endp || *endp != '-')
            continue;
        m.end = std::strtoull(endp + 1, nullptr, 16);
        // Skip perms, offset, dev, inode: the name follows the fifth field.
        const char *q = sp;
        for (int field = 1; field < 5 && q; ++field) {
            while (*q == ' ')
                ++q;
            q = std::strchr(q, ' ');
        }
        if (q) {
            while (*q == ' ')
                ++q;
            m.name = q;
        }
        while (!m.name.empty() && (m.name.back() == '\n' || m.name.back() == ' '))
            m.name.pop_back();
        out.push_back(m);
    }
    std::fclose(f);
    return out;
}

// ---------------------------------------------------------------- files

inline std::uint64_t file_bytes(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? std::uint64_t(st.st_size) : 0;
}

// Apparent bytes of every regular file below dir.
inline std::uint64_t tree_bytes(const std::string &dir)
{
    std::uint64_t total = 0;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return file_bytes(dir);
    while (dirent *e = readdir(d)) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
            continue;
        const std::string p = dir + "/" + e->d_name;
        struct stat st;
        if (lstat(p.c_str(), &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            total += tree_bytes(p);
        else if (S_ISREG(st.st_mode))
            total += std::uint64_t(st.st_size);
    }
    closedir(d);
    return total;
}

inline void remove_tree(const std::string &path)
{
    struct stat st;
    if (lstat(path.c_str(), &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        if (DIR *d = opendir(path.c_str())) {
            while (dirent *e = readdir(d)) {
                if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
                    continue;
                remove_tree(path + "/" + e->d_name);
            }
            closedir(d);
        }
        ::rmdir(path.c_str());
    } else {
        ::unlink(path.c_str());
    }
}

// ---------------------------------------------------------------- event

// The event every program writes: an EVENT_TRACE_HEADER-shaped 48-byte
// header followed by the payload (OpenETW writes header + payload as one
// record of 48 + payload bytes; with 64 bytes that is the 112-byte record).
struct alignas(8) EventImage {
    std::uint8_t header[48];
    std::uint8_t payload[512];
};

inline void fill_payload(std::uint8_t *p, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        p[i] = std::uint8_t(i * 7 + 1);
}

inline std::uint32_t cpu_count() { return std::uint32_t(std::max(1L, sysconf(_SC_NPROCESSORS_CONF))); }

inline std::string machine_cpu()
{
    FILE *f = std::fopen("/proc/cpuinfo", "r");
    if (!f)
        return "";
    char line[512];
    std::string m;
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "model name", 10) == 0) {
            const char *c = std::strchr(line, ':');
            m = c ? c + 2 : line;
            if (!m.empty() && m.back() == '\n')
                m.pop_back();
            break;
        }
    std::fclose(f);
    return m;
}

} // namespace bench
