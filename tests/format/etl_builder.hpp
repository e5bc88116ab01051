// Builds synthetic .etl bytes for tests and fuzz seeds: records of every
// header kind, buffers (plain or XPRESS-compressed) and whole files with a
// logfile header, laid out as ETL_FORMAT.md describes.
#pragma once

#include <openetw/records.h>

#include <cstdint>
#include <string>
#include <vector>

namespace etltest {

using Bytes = std::vector<std::uint8_t>;

void put16(Bytes &b, std::size_t at, std::uint16_t v);
void put32(Bytes &b, std::size_t at, std::uint32_t v);
void put64(Bytes &b, std::size_t at, std::uint64_t v);
void put_guid(Bytes &b, std::size_t at, const etw_guid &g);
etw_guid make_guid(std::uint32_t seed);

// ---- Records ----
// SYSTEM (0x01/0x02) and COMPACT (0x03/0x04); ext_bytes of PEBS/PMC items follow the header.
Bytes system_record(std::uint8_t header_type, std::uint16_t hook_id, std::uint32_t tid, std::uint32_t pid,
                    std::int64_t ts, const Bytes &payload, std::uint16_t version_word = 2);
Bytes perfinfo_record(std::uint8_t header_type, std::uint16_t hook_id, std::int64_t ts, const Bytes &payload,
                      std::uint16_t version_word = 2);
struct FullSpec {
    std::uint8_t header_type = 0x14; // 0x0A, 0x14, or 0x0B/0x15 for instance records
    std::uint8_t type = 0, level = 0;
    std::uint16_t version = 0;
    std::uint32_t tid = 0, pid = 0;
    std::int64_t ts = 0;
    etw_guid guid{};
    std::uint32_t kernel_time = 0, user_time = 0;
    std::uint32_t instance_id = 0, parent_instance_id = 0;
    etw_guid parent_guid{};
};
Bytes full_record(const FullSpec &s, const Bytes &payload);
struct ExtItem {
    std::uint16_t type;
    Bytes data;
};
struct EventSpec {
    std::uint8_t header_type = 0x13;
    std::uint16_t flags = 0; // EXTENDED_INFO is set automatically when items are given
    std::uint16_t property = 0;
    std::uint32_t tid = 0, pid = 0;
    std::int64_t ts = 0;
    etw_guid provider{};
    std::uint16_t id = 0;
    std::uint8_t version = 0, channel = 0, level = 0, opcode = 0;
    std::uint16_t task = 0;
    std::uint64_t keyword = 0;
    std::uint32_t kernel_time = 0, user_time = 0;
    etw_guid activity{};
    std::vector<ExtItem> items;
};
Bytes event_record(const EventSpec &s, const Bytes &payload);
struct MessageSpec {
    std::uint16_t number = 0;
    std::uint16_t flags = 0; // TRACE_MESSAGE_* decide which fields are written
    std::uint32_t sequence = 0;
    etw_guid guid{};
    std::uint32_t component = 0;
    std::int64_t ts = 0;
    std::uint32_t tid = 0, pid = 0;
};
Bytes message_record(const MessageSpec &s, const Bytes &args);

// ---- Logfile header ----
struct LogfileSpec {
    std::uint32_t buffer_size = 4096;
    std::uint32_t version = 0x0501000A;
    std::uint32_t provider_version = 19041;
    std::uint32_t processors = 4;
    std::int64_t end_time = 0;
    std::uint32_t timer_resolution = 156250;
    std::uint32_t maximum_file_size = 0;
    std::uint32_t mode = 0;
    std::uint32_t buffers_written = 0; // 0: filled in by FileBuilder
    std::uint32_t pointer_size = 8;    // 4 writes the 32-bit session form (HeaderType 0x01)
    std::uint32_t events_lost = 0;
    std::uint32_t cpu_mhz = 3000;
    std::int64_t boot_time = 0;
    std::int64_t perf_freq = 10000000;
    std::int64_t start_time = 132000000000000000LL;
    std::uint32_t clock = 1;
    std::uint32_t buffers_lost = 0;
    std::string logger_name = "TestSession";
    std::string log_file_name = "C:\\test.etl";
    std::int64_t reference_raw = 1000000; // SystemTime of the header record
    std::uint32_t tid = 11, pid = 22;
};
Bytes logfile_header_record(const LogfileSpec &s);

// ---- Buffers and files ----
struct BufferSpec {
    std::uint32_t size = 0; // 0: the session buffer size (FileBuilder), else 4096
    std::uint64_t sequence = 1;
    std::uint16_t cpu = 0;
    std::int64_t ts = 0;
    std::uint16_t flags = 0x20; // PROC_INDEX
    std::uint16_t type = 0;
    std::uint32_t state = 3;
    std::vector<Bytes> records;
};
// 0xFF fill, records 8-aligned from 0x48, Offset = SavedOffset = end of the last aligned record.
Bytes make_buffer(const BufferSpec &spec);
// Compresses [0x48, Offset) of a plain buffer: new BufferSize, COMPRESSED flag.
Bytes compress_buffer(const Bytes &plain);

class FileBuilder {
public:
    explicit FileBuilder(LogfileSpec spec = {}) : spec_(std::move(spec)) {}
    LogfileSpec &spec() { return spec_; }
    // Adds a data buffer (its size defaults to the session buffer size).
    void add(BufferSpec buffer);
    void add_raw(Bytes buffer) { raw_.push_back(std::move(buffer)); }
    // Extra records after the logfile header in buffer 0.
    void add_header_record(Bytes record) { header_records_.push_back(std::move(record)); }
    void set_compressed(bool on) { compressed_ = on; }
    Bytes build() const;

private:
    LogfileSpec spec_;
    std::vector<Bytes> raw_;
    std::vector<Bytes> header_records_;
    bool compressed_ = false;
};

// Reads a whole file (tests of the samples).
Bytes read_file(const std::string &path);
void write_file(const std::string &path, const Bytes &bytes);

} // namespace etltest
