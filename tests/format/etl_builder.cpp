#include "etl_builder.hpp"

#include "xpress_encoder.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace etltest {

void put16(Bytes &b, std::size_t at, std::uint16_t v)
{
    b.at(at) = std::uint8_t(v);
    b.at(at + 1) = std::uint8_t(v >> 8);
}
void put32(Bytes &b, std::size_t at, std::uint32_t v)
{
    put16(b, at, std::uint16_t(v));
    put16(b, at + 2, std::uint16_t(v >> 16));
}
void put64(Bytes &b, std::size_t at, std::uint64_t v)
{
    put32(b, at, std::uint32_t(v));
    put32(b, at + 4, std::uint32_t(v >> 32));
}
void put_guid(Bytes &b, std::size_t at, const etw_guid &g)
{
    put32(b, at, g.Data1);
    put16(b, at + 4, g.Data2);
    put16(b, at + 6, g.Data3);
    for (int i = 0; i < 8; ++i)
        b.at(at + 8 + i) = g.Data4[i];
}
etw_guid make_guid(std::uint32_t seed)
{
    etw_guid g{};
    g.Data1 = 0x10000000u + seed;
    g.Data2 = std::uint16_t(0x2000 + seed);
    g.Data3 = std::uint16_t(0x3000 + seed);
    for (int i = 0; i < 8; ++i)
        g.Data4[i] = std::uint8_t(0x40 + i + seed);
    return g;
}

namespace {

Bytes with_payload(std::size_t header, const Bytes &payload)
{
    Bytes r(header + payload.size(), 0);
    std::copy(payload.begin(), payload.end(), r.begin() + std::ptrdiff_t(header));
    return r;
}

std::size_t extension_size(std::uint16_t version_word)
{
    return ((version_word & 0x8000) ? 8 : 0) + 8u * ((version_word & 0x0700) >> 8);
}

Bytes utf16z(const std::string &ascii)
{
    Bytes b;
    for (char c : ascii) {
        b.push_back(std::uint8_t(c));
        b.push_back(0);
    }
    b.push_back(0);
    b.push_back(0);
    return b;
}

} // namespace

Bytes system_record(std::uint8_t header_type, std::uint16_t hook_id, std::uint32_t tid, std::uint32_t pid,
                    std::int64_t ts, const Bytes &payload, std::uint16_t version_word)
{
    const bool compact = header_type == 0x03 || header_type == 0x04;
    const std::size_t header = (compact ? 0x18 : 0x20) + extension_size(version_word);
    Bytes r = with_payload(header, payload);
    put16(r, 0, version_word);
    r[2] = header_type;
    r[3] = 0xC0;
    put16(r, 4, std::uint16_t(r.size()));
    put16(r, 6, hook_id);
    put32(r, 8, tid);
    put32(r, 12, pid);
    put64(r, 16, std::uint64_t(ts));
    if (!compact) {
        put32(r, 24, 5); // KernelTime
        put32(r, 28, 6); // UserTime
    }
    return r;
}

Bytes perfinfo_record(std::uint8_t header_type, std::uint16_t hook_id, std::int64_t ts, const Bytes &payload,
                      std::uint16_t version_word)
{
    Bytes r = with_payload(0x10 + extension_size(version_word), payload);
    put16(r, 0, version_word);
    r[2] = header_type;
    r[3] = 0xC0;
    put16(r, 4, std::uint16_t(r.size()));
    put16(r, 6, hook_id);
    put64(r, 8, std::uint64_t(ts));
    return r;
}

Bytes full_record(const FullSpec &s, const Bytes &payload)
{
    const bool instance = s.header_type == 0x0B || s.header_type == 0x15;
    Bytes r = with_payload(instance ? 0x48 : 0x30, payload);
    put16(r, 0, std::uint16_t(r.size()));
    r[2] = s.header_type;
    r[3] = 0xC0;
    r[4] = s.type;
    r[5] = s.level;
    put16(r, 6, s.version);
    put32(r, 8, s.tid);
    put32(r, 12, s.pid);
    put64(r, 16, std::uint64_t(s.ts));
    put_guid(r, 24, s.guid);
    put32(r, 40, s.kernel_time);
    put32(r, 44, s.user_time);
    if (instance) {
        put32(r, 48, s.instance_id);
        put32(r, 52, s.parent_instance_id);
        put_guid(r, 56, s.parent_guid);
    }
    return r;
}

Bytes event_record(const EventSpec &s, const Bytes &payload)
{
    Bytes ext;
    for (std::size_t i = 0; i < s.items.size(); ++i) {
        const Bytes &d = s.items[i].data;
        const std::size_t item = 8 + ((d.size() + 7) & ~std::size_t(7));
        Bytes it(item, 0);
        put16(it, 0, std::uint16_t(item));
        put16(it, 2, s.items[i].type);
        put16(it, 4, i + 1 < s.items.size() ? 1 : 0);
        put16(it, 6, std::uint16_t(d.size()));
        std::copy(d.begin(), d.end(), it.begin() + 8);
        ext.insert(ext.end(), it.begin(), it.end());
    }
    Bytes body = ext;
    body.insert(body.end(), payload.begin(), payload.end());
    Bytes r = with_payload(0x50, body);
    put16(r, 0, std::uint16_t(r.size()));
    r[2] = s.header_type;
    r[3] = 0xC0;
    put16(r, 4, std::uint16_t(s.flags | (s.items.empty() ? 0 : 1)));
    put16(r, 6, s.property);
    put32(r, 8, s.tid);
    put32(r, 12, s.pid);
    put64(r, 16, std::uint64_t(s.ts));
    put_guid(r, 24, s.provider);
    put16(r, 40, s.id);
    r[42] = s.version;
    r[43] = s.channel;
    r[44] = s.level;
    r[45] = s.opcode;
    put16(r, 46, s.task);
    put64(r, 48, s.keyword);
    put32(r, 56, s.kernel_time);
    put32(r, 60, s.user_time);
    put_guid(r, 64, s.activity);
    return r;
}

Bytes message_record(const MessageSpec &s, const Bytes &args)
{
    Bytes r(8, 0);
    auto append = [&](std::size_t n) {
        r.resize(r.size() + n, 0);
        return r.size() - n;
    };
    if (s.flags & 0x01)
        put32(r, append(4), s.sequence);
    if (s.flags & 0x02)
        put_guid(r, append(16), s.guid);
    else if (s.flags & 0x04)
        put32(r, append(4), s.component);
    if (s.flags & 0x18)
        put64(r, append(8), std::uint64_t(s.ts));
    if (s.flags & 0x20) {
        const std::size_t at = append(8);
        put32(r, at, s.tid);
        put32(r, at + 4, s.pid);
    }
    r.insert(r.end(), args.begin(), args.end());
    put16(r, 0, std::uint16_t(r.size()));
    r[2] = 0;
    r[3] = 0x90;
    put16(r, 4, s.number);
    put16(r, 6, s.flags);
    return r;
}

Bytes logfile_header_record(const LogfileSpec &s)
{
    const bool x64 = s.pointer_size != 4;
    const std::size_t ptr = x64 ? 8 : 4;
    const std::size_t tlh_size = x64 ? 0x118 : 0x110;
    Bytes tlh(tlh_size, 0);
    put32(tlh, 0x00, s.buffer_size);
    put32(tlh, 0x04, s.version);
    put32(tlh, 0x08, s.provider_version);
    put32(tlh, 0x0C, s.processors);
    put64(tlh, 0x10, std::uint64_t(s.end_time));
    put32(tlh, 0x18, s.timer_resolution);
    put32(tlh, 0x1C, s.maximum_file_size);
    put32(tlh, 0x20, s.mode);
    put32(tlh, 0x24, s.buffers_written);
    put32(tlh, 0x28, 1);
    put32(tlh, 0x2C, s.pointer_size);
    put32(tlh, 0x30, s.events_lost);
    put32(tlh, 0x34, s.cpu_mhz);
    put32(tlh, 0x38, 7); // pointer-slot integers, as Windows leaves them
    put32(tlh, 0x38 + ptr, 9);
    const std::size_t tz = 0x38 + 2 * ptr;
    put32(tlh, tz, std::uint32_t(-60)); // Bias
    put16(tlh, tz + 4, 'S');            // StandardName "S"
    put16(tlh, tz + 68 + 2, 10);        // StandardDate.wMonth
    put16(tlh, tz + 88, 'D');           // DaylightName "D"
    put32(tlh, tz + 168, std::uint32_t(-60));
    const std::size_t after = tz + 0xAC + 4;
    put64(tlh, after, std::uint64_t(s.boot_time));
    put64(tlh, after + 8, std::uint64_t(s.perf_freq));
    put64(tlh, after + 16, std::uint64_t(s.start_time));
    put32(tlh, after + 24, s.clock);
    put32(tlh, after + 28, s.buffers_lost);
    Bytes payload = tlh;
    const Bytes a = utf16z(s.logger_name), b = utf16z(s.log_file_name);
    payload.insert(payload.end(), a.begin(), a.end());
    payload.insert(payload.end(), b.begin(), b.end());
    return system_record(x64 ? 0x02 : 0x01, 0x0000, s.tid, s.pid, s.reference_raw, payload, 2);
}

Bytes make_buffer(const BufferSpec &spec)
{
    const std::uint32_t size = spec.size ? spec.size : 4096;
    Bytes b(size, 0xFF);
    std::size_t pos = 0x48;
    for (const Bytes &r : spec.records) {
        if (pos + r.size() > b.size())
            throw std::runtime_error("records do not fit the test buffer");
        std::fill(b.begin() + std::ptrdiff_t(pos), b.begin() + std::ptrdiff_t(pos + ((r.size() + 7) & ~7u)), 0);
        std::copy(r.begin(), r.end(), b.begin() + std::ptrdiff_t(pos));
        pos += (r.size() + 7) & ~std::size_t(7);
    }
    std::fill(b.begin(), b.begin() + 0x48, 0);
    put32(b, 0x00, size);
    put32(b, 0x04, std::uint32_t(pos));
    put32(b, 0x08, std::uint32_t(pos));
    put64(b, 0x10, std::uint64_t(spec.ts));
    put64(b, 0x18, spec.sequence);
    put16(b, 0x28, spec.cpu);
    put16(b, 0x2A, 1);
    put32(b, 0x2C, spec.state);
    put32(b, 0x30, std::uint32_t(pos));
    put16(b, 0x34, spec.flags);
    put16(b, 0x36, spec.type);
    return b;
}

Bytes compress_buffer(const Bytes &plain)
{
    const std::uint32_t offset = std::uint32_t(plain[0x30] | plain[0x31] << 8 | plain[0x32] << 16 | plain[0x33] << 24);
    Bytes body(plain.begin() + 0x48, plain.begin() + offset);
    Bytes packed = xpress_compress(body);
    Bytes out(plain.begin(), plain.begin() + 0x48);
    out.insert(out.end(), packed.begin(), packed.end());
    put32(out, 0x00, std::uint32_t(out.size()));
    put16(out, 0x34, std::uint16_t(plain[0x34] | plain[0x35] << 8 | 0x40));
    return out;
}

void FileBuilder::add(BufferSpec buffer)
{
    if (buffer.size == 0)
        buffer.size = spec_.buffer_size;
    raw_.push_back(make_buffer(buffer));
}

Bytes FileBuilder::build() const
{
    LogfileSpec s = spec_;
    if (s.buffers_written == 0)
        s.buffers_written = std::uint32_t(1 + raw_.size());
    BufferSpec head;
    head.size = s.buffer_size;
    head.sequence = 0;
    head.flags = 0x21;
    head.type = 4;
    head.records.push_back(logfile_header_record(s));
    for (const Bytes &r : header_records_)
        head.records.push_back(r);
    Bytes file = make_buffer(head);
    for (const Bytes &b : raw_) {
        const Bytes stored = compressed_ ? compress_buffer(b) : b;
        file.insert(file.end(), stored.begin(), stored.end());
    }
    return file;
}

Bytes read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string &path, const Bytes &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

} // namespace etltest
