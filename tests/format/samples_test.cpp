// Every real Windows sample in etl-samples/ read through the public C API
// (the shared library) and compared with its golden header facts and record
// list. The golden files are parsed at test time.
#include "flat_json.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using etltest::JsonObject;
using etltest::JsonValue;

namespace {

const fs::path kSamples = OPENETW_SAMPLES_DIR;

std::vector<std::string> sample_names()
{
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(kSamples))
        if (entry.path().extension() == ".etl")
            names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string read_text(const fs::path &p)
{
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string guid_text(const etw_guid &g)
{
    char s[40];
    std::snprintf(s, sizeof s, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", unsigned(g.Data1), unsigned(g.Data2),
                  unsigned(g.Data3), g.Data4[0], g.Data4[1], g.Data4[2], g.Data4[3], g.Data4[4], g.Data4[5], g.Data4[6],
                  g.Data4[7]);
    return s;
}

const char *kind_text(uint32_t kind) { return etw_record_kind_name(kind); }

// A record as the golden lists describe it (etl-samples/README.md).
JsonObject golden_view(const etw_record &r)
{
    JsonObject o;
    o["buffer"] = std::int64_t(r.buffer_index);
    o["offset"] = std::int64_t(r.buffer_offset);
    o["cpu"] = std::int64_t(r.processor);
    o["kind"] = std::string(kind_text(r.kind));
    o["header_type"] = std::int64_t(r.header_type);
    o["size"] = std::int64_t(r.size);
    switch (r.kind) {
    case ETW_RECORD_KIND_SYSTEM:
    case ETW_RECORD_KIND_COMPACT:
        o["thread_id"] = std::int64_t(r.thread_id);
        o["process_id"] = std::int64_t(r.process_id);
        [[fallthrough]];
    case ETW_RECORD_KIND_PERFINFO:
        o["hook_id"] = std::int64_t(r.hook_id);
        o["timestamp_raw"] = r.timestamp_raw;
        o["timestamp_filetime"] = r.timestamp;
        break;
    case ETW_RECORD_KIND_EVENT:
        o["event_id"] = std::int64_t(r.event_id);
        [[fallthrough]];
    case ETW_RECORD_KIND_FULL:
    case ETW_RECORD_KIND_INSTANCE:
        o["thread_id"] = std::int64_t(r.thread_id);
        o["process_id"] = std::int64_t(r.process_id);
        o["timestamp_raw"] = r.timestamp_raw;
        o["timestamp_filetime"] = r.timestamp;
        o["guid"] = guid_text(r.guid);
        o["opcode"] = std::int64_t(r.opcode);
        o["level"] = std::int64_t(r.level);
        o["version"] = std::int64_t(r.version);
        break;
    case ETW_RECORD_KIND_MESSAGE:
        o["message_number"] = std::int64_t(r.message_number);
        break;
    default:
        break;
    }
    return o;
}

std::string describe(const JsonObject &o)
{
    std::string s = "{";
    for (const auto &[k, v] : o) {
        s += k + ": ";
        s += std::holds_alternative<std::string>(v) ? std::get<std::string>(v)
                                                    : std::to_string(std::get<std::int64_t>(v));
        s += ", ";
    }
    return s + "}";
}

struct Collected {
    std::vector<JsonObject> records;
    std::vector<etw_record> raw;
    etw_status status = ETW_OK;
    std::string message;
    etw_consumer_stats stats{};
    std::vector<std::string> buffer_reports; // "buffer N: flags F, message" of each buffer with a status
};

Collected read_sample(const std::string &path, uint32_t flags, etw_logfile_info *info, std::string *names)
{
    Collected c;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = flags;
    o.user_data = &c;
    o.record = [](void *u, const etw_record *r) -> int32_t {
        auto *col = static_cast<Collected *>(u);
        col->records.push_back(golden_view(*r));
        col->raw.push_back(*r);
        return 0;
    };
    o.buffer = [](void *u, const etw_buffer_info *b) -> int32_t {
        if (b->status != ETW_OK || (b->status_flags & ~ETW_BUFFER_STATUS_DECOMPRESSED))
            static_cast<Collected *>(u)->buffer_reports.push_back("buffer " + std::to_string(b->buffer_index) +
                                                                  ": flags " + std::to_string(b->status_flags) + ", " +
                                                                  b->message);
        return 0;
    };
    const char *paths[] = {path.c_str()};
    etw_consumer *consumer = nullptr;
    EXPECT_EQ(etw_consumer_open(&consumer, paths, 1, &o), ETW_OK) << etw_last_error_message();
    if (!consumer)
        return c;
    if (info) {
        info->struct_size = sizeof *info;
        EXPECT_EQ(etw_consumer_logfile_header(info, consumer, 0), ETW_OK);
        names[0] = info->logger_name;
        names[1] = info->log_file_name;
    }
    c.status = etw_consumer_process(consumer);
    c.message = etw_last_error_message();
    c.stats.struct_size = sizeof c.stats;
    etw_consumer_get_stats(&c.stats, consumer);
    etw_consumer_close(consumer);
    return c;
}

class Sample : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST(Samples, AllEightArePresent) { EXPECT_GE(sample_names().size(), 8u); }

TEST_P(Sample, HeaderMatchesGolden)
{
    const std::string name = GetParam();
    auto golden = etltest::parse_flat_json(read_text(kSamples / "golden" / (name + ".header.json")));
    ASSERT_TRUE(golden);
    etw_logfile_info info{};
    std::string names[2];
    const Collected c = read_sample((kSamples / (name + ".etl")).string(), ETW_CONSUMER_ORDER_FILE, &info, names);
    const etw_trace_logfile_header64 &h = info.header;
    const std::map<std::string, JsonValue> mine = {
        {"boot_time", std::int64_t(h.BootTime)},
        {"buffer_size", std::int64_t(h.BufferSize)},
        {"buffers_lost", std::int64_t(h.BuffersLost)},
        {"buffers_written", std::int64_t(h.BuffersWritten)},
        {"clock_type", std::int64_t(h.ReservedFlags)},
        {"cpu_speed_mhz", std::int64_t(h.CpuSpeedInMHz)},
        {"end_time", std::int64_t(h.EndTime)},
        {"events_lost", std::int64_t(h.EventsLost)},
        {"log_file_mode", std::int64_t(h.LogFileMode)},
        {"log_file_name", names[1]},
        {"logger_name", names[0]},
        {"number_of_processors", std::int64_t(h.NumberOfProcessors)},
        {"perf_freq", std::int64_t(h.PerfFreq)},
        {"pointer_size", std::int64_t(h.PointerSize)},
        {"provider_version", std::int64_t(h.ProviderVersion)},
        {"record_count", std::int64_t(c.records.size())},
        {"start_time", std::int64_t(h.StartTime)},
        {"timer_resolution", std::int64_t(h.TimerResolution)},
        {"version", std::int64_t(h.Version)},
    };
    for (const auto &[key, value] : *golden) {
        auto it = mine.find(key);
        ASSERT_NE(it, mine.end()) << "golden header fact not checked: " << key;
        EXPECT_EQ(it->second, value) << key;
    }
    EXPECT_EQ(mine.size(), golden->size());
}

TEST_P(Sample, RecordsMatchGoldenInFileOrder)
{
    const std::string name = GetParam();
    std::ifstream in(kSamples / "golden" / (name + ".records.jsonl"));
    std::vector<JsonObject> golden;
    for (std::string line; std::getline(in, line);) {
        auto o = etltest::parse_flat_json(line);
        ASSERT_TRUE(o) << line;
        golden.push_back(*o);
    }
    ASSERT_FALSE(golden.empty());
    const Collected c = read_sample((kSamples / (name + ".etl")).string(), ETW_CONSUMER_ORDER_FILE, nullptr, nullptr);
    EXPECT_EQ(c.status, ETW_OK) << c.message;
    EXPECT_EQ(c.stats.corrupt_buffers, 0u);
    EXPECT_EQ(c.stats.corrupt_records, 0u);
    // Not even a warning: Windows' own Offset and fill habits are normal.
    EXPECT_EQ(c.buffer_reports, std::vector<std::string>{});
    ASSERT_EQ(c.records.size(), golden.size());
    for (std::size_t i = 0; i < golden.size(); ++i) {
        const JsonObject &g = golden[i];
        const JsonObject &m = c.records[i];
        std::set<std::string> gk, mk;
        for (const auto &kv : g)
            gk.insert(kv.first);
        for (const auto &kv : m)
            mk.insert(kv.first);
        EXPECT_EQ(mk, gk) << "record " << i << " " << describe(g);
        for (const auto &[key, value] : g) {
            auto it = m.find(key);
            if (it == m.end())
                continue;
            if (key == "timestamp_filetime") {
                const std::int64_t d = std::get<std::int64_t>(it->second) - std::get<std::int64_t>(value);
                EXPECT_LE(d < 0 ? -d : d, 1) << "record " << i << " " << key;
            } else {
                EXPECT_EQ(it->second, value) << "record " << i << " " << key << " " << describe(g);
            }
        }
    }
}

TEST_P(Sample, TimeOrderHoldsTheSameRecordsInTimestampOrder)
{
    const std::string path = (kSamples / (GetParam() + ".etl")).string();
    const Collected file = read_sample(path, ETW_CONSUMER_ORDER_FILE, nullptr, nullptr);
    const Collected time = read_sample(path, ETW_CONSUMER_ORDER_TIME, nullptr, nullptr);
    EXPECT_EQ(time.status, ETW_OK) << time.message;
    ASSERT_EQ(file.raw.size(), time.raw.size());
    std::multiset<std::pair<uint32_t, uint32_t>> a, b;
    for (const etw_record &r : file.raw)
        a.emplace(r.buffer_index, r.buffer_offset);
    for (const etw_record &r : time.raw)
        b.emplace(r.buffer_index, r.buffer_offset);
    EXPECT_EQ(a, b);
    // These samples' processors have no clock skew: the merge is globally sorted.
    int64_t last = INT64_MIN;
    for (const etw_record &r : time.raw) {
        if (!(r.present & ETW_RECORD_HAS_TIMESTAMP))
            continue;
        EXPECT_GE(r.timestamp, last) << r.buffer_index << ":" << r.buffer_offset;
        last = r.timestamp;
    }
}

TEST_P(Sample, RawTimestampMode)
{
    const std::string path = (kSamples / (GetParam() + ".etl")).string();
    const Collected raw = read_sample(path, ETW_CONSUMER_ORDER_FILE | ETW_CONSUMER_RAW_TIMESTAMP, nullptr, nullptr);
    for (const etw_record &r : raw.raw)
        EXPECT_EQ(r.timestamp, r.timestamp_raw);
}

INSTANTIATE_TEST_SUITE_P(Etl, Sample, ::testing::ValuesIn(sample_names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                             std::string n = info.param;
                             for (char &ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch)))
                                     ch = '_';
                             return n;
                         });
