// Shared helpers of libopenetw-win32 (see common.hpp).
#include "common.hpp"

#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

// The GUIDs evntrace.h declares (DEFINE_GUID without INITGUID).
extern "C" {
__attribute__((visibility("default"))) extern const GUID EventTraceGuid = {
    0x68fdd900, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}};
__attribute__((visibility("default"))) extern const GUID SystemTraceControlGuid = {
    0x9e814aad, 0x3204, 0x11d2, {0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39}};
__attribute__((visibility("default"))) extern const GUID EventTraceConfigGuid = {
    0x01853a65, 0x418f, 0x4f36, {0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35}};
__attribute__((visibility("default"))) extern const GUID DefaultTraceSecurityGuid = {
    0x0811c1af, 0x7a07, 0x4a06, {0x82, 0xed, 0x86, 0x94, 0x55, 0xcd, 0xf7, 0x13}};
}

namespace openetw_win32 {

namespace {
thread_local DWORD t_last_error = 0;

// Sessions StartTrace started here, by handle. Handles stay open (a stopped
// session answers ERROR_WMI_INSTANCE_NOT_FOUND) so that a call racing a
// StopTrace never uses a freed handle; they are closed at exit.
struct SessionTable {
    std::mutex mutex;
    std::unordered_map<uint64_t, etw_session *> by_handle;
    ~SessionTable()
    {
        for (auto &entry : by_handle)
            etw_session_close(entry.second);
    }
};
SessionTable &sessions()
{
    static SessionTable table;
    return table;
}
} // namespace

void set_last_error(ULONG status) { t_last_error = status; }

ULONG name_to_utf8(const Name &name, std::string *out)
{
    out->clear();
    if (!name.wide) {
        *out = static_cast<const char *>(name.text);
        return ERROR_SUCCESS;
    }
    const auto *units = static_cast<const uint16_t *>(name.text);
    for (size_t i = 0; units[i] != 0; ++i) {
        uint32_t cp = units[i];
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = units[i + 1];
            if (low < 0xDC00 || low > 0xDFFF)
                return ERROR_NO_UNICODE_TRANSLATION;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            ++i;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return ERROR_NO_UNICODE_TRANSLATION;
        }
        if (cp < 0x80) {
            out->push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }
    return ERROR_SUCCESS;
}

std::u16string utf8_to_utf16(const std::string &text)
{
    std::u16string out;
    const auto *s = reinterpret_cast<const unsigned char *>(text.data());
    size_t n = text.size();
    for (size_t i = 0; i < n;) {
        uint32_t cp = s[i];
        size_t len = cp < 0x80 ? 1 : (cp >> 5) == 6 ? 2 : (cp >> 4) == 14 ? 3 : (cp >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + len > n) {
            out.push_back(u'\uFFFD');
            ++i;
            continue;
        }
        if (len > 1) {
            cp &= 0x7Fu >> len;
            for (size_t k = 1; k < len; ++k)
                cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        i += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
            out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
        } else {
            out.push_back(static_cast<char16_t>(cp));
        }
    }
    return out;
}

size_t name_block_bytes(const std::string &utf8, bool wide)
{
    return wide ? (utf8_to_utf16(utf8).size() + 1) * 2 : utf8.size() + 1;
}

void write_block_name(unsigned char *block, size_t offset, const std::string &utf8, bool wide)
{
    if (wide) {
        std::u16string text = utf8_to_utf16(utf8);
        std::memcpy(block + offset, text.c_str(), (text.size() + 1) * 2);
    } else {
        std::memcpy(block + offset, utf8.c_str(), utf8.size() + 1);
    }
}

bool read_block_name(const unsigned char *block, size_t offset, size_t limit, bool wide, std::string *out,
                     ULONG *status)
{
    *status = ERROR_SUCCESS;
    if (wide) {
        std::vector<uint16_t> units;
        for (size_t at = offset; at + 2 <= limit; at += 2) {
            uint16_t unit;
            std::memcpy(&unit, block + at, 2);
            units.push_back(unit);
            if (unit == 0) {
                *status = name_to_utf8(Name{units.data(), true}, out);
                return true;
            }
        }
        return false;
    }
    const void *end = std::memchr(block + offset, 0, limit > offset ? limit - offset : 0);
    if (end == nullptr)
        return false;
    out->assign(reinterpret_cast<const char *>(block + offset));
    return true;
}

size_t fixed_size(const EVENT_TRACE_PROPERTIES *props)
{
    return (props->Wnode.Flags & WNODE_FLAG_VERSIONED_PROPERTIES) != 0 ? sizeof(EVENT_TRACE_PROPERTIES_V2)
                                                                       : sizeof(EVENT_TRACE_PROPERTIES);
}

ULONG write_back(EVENT_TRACE_PROPERTIES *props, const etw_properties *src, bool wide)
{
    etw_event_trace_properties rec;
    etw_properties_get_record(&rec, src);
    props->Wnode.HistoricalContext = rec.Wnode.HistoricalContext;
    std::memcpy(&props->Wnode.Guid, &rec.Wnode.Guid, sizeof(GUID));
    props->Wnode.ClientContext = rec.Wnode.ClientContext;
    props->BufferSize = rec.BufferSize;
    props->MinimumBuffers = rec.MinimumBuffers;
    props->MaximumBuffers = rec.MaximumBuffers;
    props->MaximumFileSize = rec.MaximumFileSize;
    props->LogFileMode = rec.LogFileMode;
    props->FlushTimer = rec.FlushTimer;
    props->EnableFlags = rec.EnableFlags;
    props->AgeLimit = rec.AgeLimit;
    props->NumberOfBuffers = rec.NumberOfBuffers;
    props->FreeBuffers = rec.FreeBuffers;
    props->EventsLost = rec.EventsLost;
    props->BuffersWritten = rec.BuffersWritten;
    props->LogBuffersLost = rec.LogBuffersLost;
    props->RealTimeBuffersLost = rec.RealTimeBuffersLost;
    props->LoggerThreadId = reinterpret_cast<HANDLE>(rec.LoggerThreadId);

    auto *block = reinterpret_cast<unsigned char *>(props);
    size_t limit = props->Wnode.BufferSize;
    size_t needed = limit;
    std::string session_name = etw_properties_session_name(src);
    std::string file_name = etw_properties_log_file_name(src);
    struct Slot {
        ULONG offset;
        const std::string *text;
    } slots[] = {{props->LoggerNameOffset, &session_name}, {props->LogFileNameOffset, &file_name}};
    for (const Slot &slot : slots) {
        if (slot.offset == 0 || slot.offset < fixed_size(props))
            continue;
        size_t end = slot.offset + name_block_bytes(*slot.text, wide);
        if (end <= limit)
            write_block_name(block, slot.offset, *slot.text, wide);
        else if (end > needed)
            needed = end;
    }
    if (needed > limit) {
        props->Wnode.BufferSize = static_cast<ULONG>(needed);
        return ERROR_MORE_DATA;
    }
    return ERROR_SUCCESS;
}

void remember_session(etw_session *session)
{
    SessionTable &table = sessions();
    std::lock_guard<std::mutex> lock(table.mutex);
    table.by_handle[etw_session_handle(session)] = session;
}

void for_each_running_session(const std::function<void(const etw_properties *)> &visit)
{
    uint32_t count = 0;
    etw_session_list(&count, nullptr, 0);
    std::vector<etw_properties *> list(count + 4, nullptr); // room for sessions started meanwhile
    for (auto &p : list)
        etw_properties_create(&p, "list");
    uint32_t found = 0;
    etw_session_list(&found, list.data(), static_cast<uint32_t>(list.size()));
    for (uint32_t i = 0; i < found && i < list.size(); ++i)
        visit(list[i]);
    for (auto *p : list)
        etw_properties_destroy(p);
}

ULONG find_session(TRACEHANDLE handle, const std::string *name, etw_session **out, bool *owned)
{
    *out = nullptr;
    *owned = false;
    if (handle != 0) {
        {
            SessionTable &table = sessions();
            std::lock_guard<std::mutex> lock(table.mutex);
            auto it = table.by_handle.find(handle);
            if (it != table.by_handle.end()) {
                *out = it->second;
                return ERROR_SUCCESS;
            }
        }
        // A session another process (or libopenetw directly) started: find
        // its name among the running sessions.
        std::string match;
        for_each_running_session([&](const etw_properties *p) {
            if (etw_properties_historical_context(p) == handle)
                match = etw_properties_session_name(p);
        });
        if (match.empty())
            return ERROR_WMI_INSTANCE_NOT_FOUND;
        ULONG status = etw_session_open(out, match.c_str());
        *owned = status == ERROR_SUCCESS;
        return status;
    }
    ULONG status = etw_session_open(out, name->c_str());
    *owned = status == ERROR_SUCCESS;
    return status;
}

} // namespace openetw_win32

using namespace openetw_win32;

OPENETW_WIN32_API DWORD GetLastError(void) { return t_last_error; }
OPENETW_WIN32_API void SetLastError(DWORD error) { t_last_error = error; }
