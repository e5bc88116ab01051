// A small, strict, test-only .etl decoder for the files the engine writes
// (ETL_FORMAT.md sections 1-3, 5 and the writer checklist of section 9). It
// checks every rule it reads and records violations in `problems`. The real
// reader (src/format, another helper's) will replace it in these tests.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace etltest {

inline std::uint16_t r16(const std::uint8_t *p) { return std::uint16_t(p[0] | (p[1] << 8)); }
inline std::uint32_t r32(const std::uint8_t *p) { return std::uint32_t(r16(p)) | (std::uint32_t(r16(p + 2)) << 16); }
inline std::uint64_t r64(const std::uint8_t *p) { return std::uint64_t(r32(p)) | (std::uint64_t(r32(p + 4)) << 32); }

struct Event {
    std::uint16_t size;
    std::uint8_t header_type, marker;
    std::uint8_t type, level;
    std::uint16_t version;
    std::uint32_t tid, pid;
    std::int64_t timestamp;
    std::uint8_t guid[16];
    std::uint64_t times;
    std::vector<std::uint8_t> payload;
    std::uint64_t buffer_seq;
    std::uint16_t processor;
    std::vector<std::uint8_t> record; // the whole record (EVENT_HEADER records: checked by their bytes)
};

struct Buffer {
    std::uint32_t size, saved_offset, offset;
    std::int64_t timestamp;
    std::uint64_t seq;
    std::uint16_t processor, logger_id, flag, type;
    std::uint32_t state;
};

struct File {
    std::vector<std::uint8_t> bytes;
    std::vector<std::string> problems;
    std::vector<Buffer> buffers;
    std::vector<Event> events;
    // Logfile header.
    std::uint32_t buffer_size = 0, version = 0, cpus = 0, timer_res = 0, max_file_size = 0, mode = 0;
    std::uint32_t buffers_written = 0, start_buffers = 0, pointer_size = 0, events_lost = 0, cpu_mhz = 0;
    std::int64_t end_time = 0, boot_time = 0, perf_freq = 0, start_time = 0, start_raw = 0;
    std::uint32_t clock_type = 0, buffers_lost = 0;
    std::int32_t tz_bias = 0;
    std::uint32_t hdr_tid = 0, hdr_pid = 0;
    std::u16string logger_name, log_file_name;

    bool ok() const { return problems.empty(); }
    std::string problem_text() const
    {
        std::string s;
        for (auto &p : problems)
            s += p + "\n";
        return s;
    }
};

inline std::vector<std::uint8_t> read_all(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline File decode_bytes(std::vector<std::uint8_t> bytes)
{
    File f;
    f.bytes = std::move(bytes);
    auto bad = [&](const std::string &m) { f.problems.push_back(m); };
    const auto &b = f.bytes;
    if (b.size() < 0x48 + 0x20 + 0x118) {
        bad("file too short");
        return f;
    }
    // Buffer 0 and the logfile header.
    const std::uint8_t *r = b.data() + 0x48;
    if (r32(r) != 0xC0020002u && r32(r) != 0xC0010002u)
        bad("first record marker");
    if (r16(r + 6) != 0)
        bad("first record HookId");
    f.hdr_tid = r32(r + 8);
    f.hdr_pid = r32(r + 12);
    f.start_raw = std::int64_t(r64(r + 16));
    const std::uint16_t rec_size = r16(r + 4);
    const std::uint8_t *t = r + 0x20;
    f.buffer_size = r32(t);
    f.version = r32(t + 4);
    f.cpus = r32(t + 0x0C);
    f.end_time = std::int64_t(r64(t + 0x10));
    f.timer_res = r32(t + 0x18);
    f.max_file_size = r32(t + 0x1C);
    f.mode = r32(t + 0x20);
    f.buffers_written = r32(t + 0x24);
    f.start_buffers = r32(t + 0x28);
    f.pointer_size = r32(t + 0x2C);
    f.events_lost = r32(t + 0x30);
    f.cpu_mhz = r32(t + 0x34);
    const bool p64 = f.pointer_size == 8;
    const std::size_t tz = p64 ? 0x48 : 0x40;
    f.tz_bias = std::int32_t(r32(t + tz));
    const std::size_t after = tz + 0xAC + 4;
    f.boot_time = std::int64_t(r64(t + after));
    f.perf_freq = std::int64_t(r64(t + after + 8));
    f.start_time = std::int64_t(r64(t + after + 16));
    f.clock_type = r32(t + after + 24);
    f.buffers_lost = r32(t + after + 28);
    const std::uint8_t *s = t + (p64 ? 0x118 : 0x110);
    const std::uint8_t *end = r + rec_size;
    while (s + 2 <= end && r16(s)) {
        f.logger_name.push_back(char16_t(r16(s)));
        s += 2;
    }
    s += 2;
    while (s + 2 <= end && r16(s)) {
        f.log_file_name.push_back(char16_t(r16(s)));
        s += 2;
    }
    s += 2;
    if (s != end)
        bad("first record size does not match its names");
    if (f.buffer_size == 0 || b.size() % f.buffer_size != 0)
        bad("file size is not a multiple of BufferSize");
    if (f.buffer_size == 0)
        return f;
    const std::size_t nbuf = b.size() / f.buffer_size;
    if (f.buffers_written != nbuf)
        bad("BuffersWritten " + std::to_string(f.buffers_written) + " != buffers in file " + std::to_string(nbuf));
    for (std::size_t i = 0; i < nbuf && i < f.buffers_written; ++i) {
        const std::uint8_t *p = b.data() + i * f.buffer_size;
        Buffer h{};
        h.size = r32(p);
        h.saved_offset = r32(p + 4);
        h.timestamp = std::int64_t(r64(p + 0x10));
        h.seq = r64(p + 0x18);
        h.processor = r16(p + 0x28);
        h.logger_id = r16(p + 0x2A);
        h.state = r32(p + 0x2C);
        h.offset = r32(p + 0x30);
        h.flag = r16(p + 0x34);
        h.type = r16(p + 0x36);
        const std::string at = "buffer " + std::to_string(i) + ": ";
        if (h.size != f.buffer_size)
            bad(at + "BufferSize");
        if (h.offset != h.saved_offset || r32(p + 8) != h.offset)
            bad(at + "SavedOffset/CurrentOffset != Offset");
        if (h.offset % 8 || h.offset < 0x48 || h.offset > h.size)
            bad(at + "Offset not 8-aligned or out of range");
        if (h.state != 3)
            bad(at + "State != 3");
        if (r64(p + 0x20) != 0 || r64(p + 0x38) != 0 || r64(p + 0x40) != 0)
            bad(at + "union fields not zero");
        if (i == 0) {
            if (h.type != 4 || h.seq != 0 || h.timestamp != 0 || (h.flag & 0x20) == 0)
                bad(at + "header buffer fields");
        } else {
            if (h.type != 0 || h.flag != 0x20)
                bad(at + "data buffer type/flag");
            if (h.seq < 1 || h.seq > f.buffers_written)
                bad(at + "SequenceNumber out of 1..BuffersWritten");
            if (h.processor >= f.cpus)
                bad(at + "ProcessorIndex >= NumberOfProcessors");
        }
        for (std::size_t k = h.offset; k < h.size; ++k)
            if (p[k] != 0xFF) {
                bad(at + "fill is not 0xFF");
                break;
            }
        f.buffers.push_back(h);
        if (i == 0)
            continue;
        std::size_t pos = 0x48;
        while (pos + 4 <= h.offset) {
            const std::uint8_t *e = p + pos;
            Event ev{};
            ev.size = r16(e);
            ev.header_type = e[2];
            ev.marker = e[3];
            // EVENT_TRACE_HEADER (0x14/0x0A) or EVENT_HEADER (0x13/0x12) records,
            // of the file's pointer size.
            const bool event_header = ev.header_type == (p64 ? 0x13 : 0x12);
            if (ev.marker != 0xC0 || (ev.header_type != (p64 ? 0x14 : 0x0A) && !event_header)) {
                bad(at + "record marker at " + std::to_string(pos));
                break;
            }
            if (ev.size < (event_header ? 0x50 : 0x30) || pos + ev.size > h.offset) {
                bad(at + "record size at " + std::to_string(pos));
                break;
            }
            ev.record.assign(e, e + ev.size);
            if (event_header) {
                ev.level = e[44];
                ev.type = e[45];
                ev.version = e[42];
                ev.tid = r32(e + 8);
                ev.pid = r32(e + 12);
                ev.timestamp = std::int64_t(r64(e + 16));
                std::memcpy(ev.guid, e + 24, 16);
                ev.times = r64(e + 56);
                ev.buffer_seq = h.seq;
                ev.processor = h.processor;
                f.events.push_back(std::move(ev));
                pos += (std::size_t(r16(e)) + 7) & ~std::size_t(7);
                continue;
            }
            ev.type = e[4];
            ev.level = e[5];
            ev.version = r16(e + 6);
            ev.tid = r32(e + 8);
            ev.pid = r32(e + 12);
            ev.timestamp = std::int64_t(r64(e + 16));
            std::memcpy(ev.guid, e + 24, 16);
            ev.times = r64(e + 40);
            ev.payload.assign(e + 0x30, e + ev.size);
            ev.buffer_seq = h.seq;
            ev.processor = h.processor;
            f.events.push_back(std::move(ev));
            pos += (std::size_t(r16(e)) + 7) & ~std::size_t(7);
        }
        if (pos != h.offset)
            bad(at + "records do not end at Offset");
    }
    // Sequence numbers are unique.
    std::vector<std::uint64_t> seqs;
    for (std::size_t i = 1; i < f.buffers.size(); ++i)
        seqs.push_back(f.buffers[i].seq);
    std::sort(seqs.begin(), seqs.end());
    for (std::size_t i = 0; i < seqs.size(); ++i)
        if (seqs[i] != i + 1 && f.mode != 0x4 /* append keeps earlier numbering */) {
            bad("sequence numbers are not 1..N");
            break;
        }
    return f;
}

inline File decode(const std::string &path) { return decode_bytes(read_all(path)); }

// FILETIME of an event's raw timestamp by the WNODE_HEADER / ETL_FORMAT.md
// section 6 formula (in 128 bits: cycle-counter ticks times 10^7 overflow 64).
inline std::int64_t event_filetime(const File &f, std::int64_t raw)
{
    switch (f.clock_type) {
    case 2:
        return raw;
    case 3:
        return f.start_time + (raw - f.start_raw) * 10 / std::int64_t(f.cpu_mhz);
    default:
        return f.start_time + std::int64_t(__int128(raw - f.start_raw) * 10'000'000 / f.perf_freq);
    }
}

} // namespace etltest
