// Helpers of the live system logger tests (system_logger_*_test.cpp): a
// system logger session of this process logging to a file, the file read
// back and decoded, and the records picked by event name and field value.
#pragma once

#include "kernel_etl.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace syslogtest {

using kerneltest::Seen;

struct Props {
    etw_properties *p = nullptr;
    explicit Props(const std::string &name) { EXPECT_EQ(etw_properties_create(&p, name.c_str()), ETW_OK); }
    ~Props() { etw_properties_destroy(p); }
};

inline std::string temp_file(const std::string &stem)
{
    return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()) + ".etl")).string();
}

// A system logger (SYSTEM_LOGGER_MODE, a name of its own) in this process.
inline etw_status start(etw_session **s, Props &props, const std::string &file, std::uint32_t flags)
{
    etw_properties_set_log_file_name(props.p, file.c_str());
    etw_properties_set_log_file_mode(props.p, ETW_FILE_MODE_SEQUENTIAL | ETW_SYSTEM_LOGGER_MODE);
    etw_properties_set_enable_flags(props.p, flags);
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_IN_PROCESS;
    return etw_session_start_ex(s, props.p, &o);
}

inline std::vector<Seen> read_back(const std::string &path)
{
    kerneltest::Reader reader;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_RAW_TIMESTAMP;
    o.record = kerneltest::on_record;
    o.user_data = &reader;
    etw_consumer *consumer = nullptr;
    const char *paths[] = {path.c_str()};
    EXPECT_EQ(etw_consumer_open(&consumer, paths, 1, &o), ETW_OK) << etw_last_error_message();
    if (consumer) {
        EXPECT_EQ(etw_consumer_process(consumer), ETW_OK) << etw_last_error_message();
        etw_consumer_close(consumer);
    }
    return std::move(reader.seen);
}

// A field's number however the decoder shows it (decimal or 0x hex); -1 when absent or not a number.
inline long long number(const Seen &s, const std::string &field)
{
    const std::string v = s.value(field);
    char *end = nullptr;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 0);
    return v.empty() || *end != '\0' ? -1 : (long long)n;
}

// The records of an event name, and with field equal to value when a field is given.
inline std::vector<const Seen *> named(const std::vector<Seen> &all, const std::string &name,
                                       const std::string &field = {}, long long value = 0)
{
    std::vector<const Seen *> out;
    for (const Seen &s : all)
        if (s.event_name == name && (field.empty() || number(s, field) == value))
            out.push_back(&s);
    return out;
}

} // namespace syslogtest
