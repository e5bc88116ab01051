// Test helpers: perf records built by hand, laid out as the kernel writes
// them (uapi/linux/perf_event.h) with the sample_id_all fields TID|TIME|CPU
// at their end, for the synthetic tests of the ring reader and the source.
#pragma once

#include "kernel/kernel_records.hpp"
#include "platform/perf_events.hpp"

#include <cstring>
#include <string>

namespace perftest {

using openetw::kernel::Bytes;

struct Ctx {
    std::uint32_t pid = 0, tid = 0;
    std::uint64_t time = 0;
    std::uint32_t cpu = 0;
};

inline void put32(Bytes &b, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        b.push_back(std::uint8_t(v >> (8 * i)));
}

inline void put64(Bytes &b, std::uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        b.push_back(std::uint8_t(v >> (8 * i)));
}

// A string NUL-terminated and padded to 8 bytes, as the kernel pads names.
inline void put_name(Bytes &b, const std::string &s)
{
    b.insert(b.end(), s.begin(), s.end());
    do
        b.push_back(0);
    while (b.size() % 8 != 0);
}

// Header, body, then sample_id {pid, tid}, {time}, {cpu, res}.
inline Bytes record(std::uint32_t type, std::uint16_t misc, const Bytes &body, const Ctx &c)
{
    Bytes r;
    put32(r, type);
    const std::size_t size = 8 + body.size() + 24;
    r.push_back(std::uint8_t(misc));
    r.push_back(std::uint8_t(misc >> 8));
    r.push_back(std::uint8_t(size));
    r.push_back(std::uint8_t(size >> 8));
    r.insert(r.end(), body.begin(), body.end());
    put32(r, c.pid);
    put32(r, c.tid);
    put64(r, c.time);
    put32(r, c.cpu);
    put32(r, 0);
    return r;
}

inline Bytes task(std::uint32_t type, std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid,
                  const Ctx &c)
{
    Bytes body;
    put32(body, pid);
    put32(body, ppid);
    put32(body, tid);
    put32(body, ptid);
    put64(body, c.time);
    return record(type, 0, body, c);
}

inline Bytes fork(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid, const Ctx &c)
{
    return task(openetw::platform::kPerfRecordFork, pid, ppid, tid, ptid, c);
}

inline Bytes exit(std::uint32_t pid, std::uint32_t ppid, std::uint32_t tid, std::uint32_t ptid, const Ctx &c)
{
    return task(openetw::platform::kPerfRecordExit, pid, ppid, tid, ptid, c);
}

inline Bytes comm(std::uint32_t pid, std::uint32_t tid, const std::string &name, bool exec, const Ctx &c)
{
    Bytes body;
    put32(body, pid);
    put32(body, tid);
    put_name(body, name);
    return record(openetw::platform::kPerfRecordComm, exec ? openetw::platform::kPerfMiscCommExec : 0, body, c);
}

inline Bytes mmap2(std::uint32_t pid, std::uint32_t tid, std::uint64_t addr, std::uint64_t len, std::uint64_t pgoff,
                   std::uint32_t prot, const std::string &file, const Ctx &c)
{
    Bytes body;
    put32(body, pid);
    put32(body, tid);
    put64(body, addr);
    put64(body, len);
    put64(body, pgoff);
    put32(body, 8);    // maj
    put32(body, 1);    // min
    put64(body, 1234); // ino
    put64(body, 0);    // ino_generation
    put32(body, prot);
    put32(body, 2); // MAP_PRIVATE
    put_name(body, file);
    return record(openetw::platform::kPerfRecordMmap2, 2 /* PERF_RECORD_MISC_USER */, body, c);
}

inline Bytes lost(std::uint64_t id, std::uint64_t count, const Ctx &c)
{
    Bytes body;
    put64(body, id);
    put64(body, count);
    return record(openetw::platform::kPerfRecordLost, 0, body, c);
}

} // namespace perftest
