// Helpers shared by the engine tests.
#pragma once

#include <openetw/openetw.h>

#include "etl_test_decoder.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <algorithm>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace enginetest {

inline std::string temp_dir()
{
    static std::string dir = [] {
        namespace fs = std::filesystem;
        std::error_code ec;
        fs::path base = fs::temp_directory_path(ec);
        for (int i = 0; i < 1000; ++i) {
            fs::path d = base / ("openetw-engine-" + std::to_string(getpid()) + "-" + std::to_string(i));
            if (fs::create_directory(d, ec))
                return d.string();
        }
        return base.string();
    }();
    return dir;
}

inline std::string unique_name(const char *stem)
{
    static std::atomic<int> n{0};
    return std::string(stem) + "-" + std::to_string(getpid()) + "-" + std::to_string(n.fetch_add(1));
}

inline std::string temp_file(const char *stem) { return temp_dir() + "/" + unique_name(stem) + ".etl"; }

struct Props {
    etw_properties *p = nullptr;
    explicit Props(const std::string &name, const std::string &file = {})
    {
        EXPECT_EQ(etw_properties_create(&p, name.c_str()), ETW_OK);
        if (!file.empty()) {
            EXPECT_EQ(etw_properties_set_log_file_name(p, file.c_str()), ETW_OK);
        }
    }
    ~Props() { etw_properties_destroy(p); }
    operator etw_properties *() const { return p; }
    etw_event_trace_properties rec() const
    {
        etw_event_trace_properties r{};
        EXPECT_EQ(etw_properties_get_record(&r, p), ETW_OK);
        return r;
    }
};

// A provider registered for the test's scope.
struct Provider {
    etw_provider *p = nullptr;
    explicit Provider(const etw_guid &g)
    {
        EXPECT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    }
    ~Provider() { etw_provider_unregister(p); }
    operator etw_provider *() const { return p; }
};

struct SessionHandle {
    etw_session *s = nullptr;
    ~SessionHandle()
    {
        if (s) {
            etw_session_stop(s, nullptr);
            etw_session_close(s);
        }
    }
    operator etw_session *() const { return s; }
};

inline etw_guid make_guid(std::uint32_t n)
{
    etw_guid g{};
    g.Data1 = n;
    g.Data2 = 0x1234;
    g.Data3 = 0x4567;
    for (int i = 0; i < 8; ++i)
        g.Data4[i] = std::uint8_t(0xA0 + i);
    return g;
}

// An EVENT_TRACE_HEADER followed by an inline payload.
struct Event {
    alignas(8) std::uint8_t bytes[0x30 + 65536];
    etw_event_trace_header *h() { return reinterpret_cast<etw_event_trace_header *>(bytes); }
    Event(const etw_guid &g, std::size_t payload, std::uint8_t level = 4, std::uint8_t type = 10)
    {
        std::memset(bytes, 0, sizeof bytes);
        h()->Size = std::uint16_t(0x30 + payload);
        h()->Class.Type = type;
        h()->Class.Level = level;
        h()->Guid = g;
        h()->Flags = ETW_WNODE_FLAG_TRACED_GUID;
        for (std::size_t i = 0; i < payload; ++i)
            bytes[0x30 + i] = std::uint8_t(i * 7 + 1);
    }
};

inline std::u16string u16(const std::string &s) { return std::u16string(s.begin(), s.end()); }

// The file name as the engine stores it: Windows writes native separators.
inline std::u16string native_u16(std::string s)
{
#ifdef _WIN32
    std::replace(s.begin(), s.end(), '/', '\\');
#endif
    return u16(s);
}

} // namespace enginetest
