// Shared helpers of the consumer tests: temporary files, and a consumer run
// that copies what the callbacks saw.
#pragma once

#include "etl_builder.hpp"

#include <openetw/openetw.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace etltest {

class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    std::string write(const std::string &name, const Bytes &bytes) const;
    std::string path(const std::string &name) const { return (dir_ / name).string(); }

private:
    std::filesystem::path dir_;
};

struct SeenBuffer {
    etw_buffer_info info{};
    std::string message;
    Bytes data;
};

struct SeenRecord {
    etw_record record{};
    Bytes bytes;
    Bytes payload;
    std::vector<std::pair<etw_extended_item, Bytes>> extended;
};

struct SeenEvent {
    etw_classic_event event{};
    Bytes payload;
};

// Everything one etw_consumer_process delivered.
struct RunResult {
    etw_status open_status = ETW_OK;
    std::string open_message;
    etw_status status = ETW_OK;
    std::string message;
    std::vector<SeenRecord> records;
    std::vector<SeenBuffer> buffers;
    std::vector<SeenEvent> events;
    etw_consumer_stats stats{};
    std::vector<etw_logfile_info> headers;
    std::vector<std::string> logger_names;
};

RunResult run_consumer(const std::vector<std::string> &paths, std::uint32_t flags = ETW_CONSUMER_ORDER_FILE);

// The event ids of EVENT records in delivery order (tests tag records by id).
std::vector<int> event_ids(const RunResult &run);

} // namespace etltest
