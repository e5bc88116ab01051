// Shared helpers of libopenetw-win32: the thread's last error, UTF-16 <->
// UTF-8, and writing an etw_properties back into a caller's
// EVENT_TRACE_PROPERTIES block as Windows fills it. Only libopenetw's public
// C ABI is used (include/openetw).
#pragma once

#include <openetw/openetw.h>
#include <openetw/win32/evntcons.h>
#include <openetw/win32/evntrace.h>

#include <cstddef>
#include <cstring>
#include <functional>
#include <string>

#define OPENETW_WIN32_API extern "C" __attribute__((visibility("default")))

namespace openetw_win32 {

void set_last_error(ULONG status);

// A name given to an A function (UTF-8) or a W function (UTF-16).
struct Name {
    const void *text = nullptr;
    bool wide = false;
};

// Converts a NUL-terminated A or W name to UTF-8. ERROR_NO_UNICODE_TRANSLATION
// for an unpaired surrogate.
ULONG name_to_utf8(const Name &name, std::string *out);
// UTF-8 to UTF-16 (invalid bytes become U+FFFD: the engine's names are valid).
std::u16string utf8_to_utf16(const std::string &text);

// Bytes the name takes in a block (A: UTF-8 bytes, W: UTF-16 units * 2), NUL included.
size_t name_block_bytes(const std::string &utf8, bool wide);
// Writes the name at block + offset (room checked by the caller).
void write_block_name(unsigned char *block, size_t offset, const std::string &utf8, bool wide);
// Reads the NUL-terminated A or W string at block + offset, inside limit bytes.
// false when no terminator lies inside the block.
bool read_block_name(const unsigned char *block, size_t offset, size_t limit, bool wide, std::string *out,
                     ULONG *status);

// The size of the fixed record the block holds: EVENT_TRACE_PROPERTIES, or
// _V2 when Wnode.Flags has WNODE_FLAG_VERSIONED_PROPERTIES.
size_t fixed_size(const EVENT_TRACE_PROPERTIES *props);

// Copies settings and statistics of src into props (not Wnode.BufferSize, the
// offsets or Wnode.Flags) and the names to their offsets when these are not 0.
// ERROR_MORE_DATA, with Wnode.BufferSize = the size needed, when a name does
// not fit (the members are written all the same).
ULONG write_back(EVENT_TRACE_PROPERTIES *props, const etw_properties *src, bool wide);

// A session of TraceHandle (when not 0) or of name: *owned says whether the
// caller must etw_session_close it. ERROR_WMI_INSTANCE_NOT_FOUND when none runs.
ULONG find_session(TRACEHANDLE handle, const std::string *name, etw_session **out, bool *owned);
// A session find_session gave, closed on leaving scope when owned.
struct SessionGuard {
    etw_session *session = nullptr;
    bool owned = false;
    ~SessionGuard()
    {
        if (owned)
            etw_session_close(session);
    }
};
// Remembers a session this process started (closed at exit).
void remember_session(etw_session *session);
// Calls visit with the properties of each running session, as listed once
// (by etw_session_list); they are freed when it returns.
void for_each_running_session(const std::function<void(const etw_properties *)> &visit);

// The profile interval TraceSetInformation gave with SessionHandle 0, which
// the system loggers StartTrace starts take (0: none given; trace_information.cpp).
ULONG default_profile_interval();

// An information class (an enum parameter) as the number the caller passed:
// a C caller may pass any value, and reading one outside the enumerators
// through the C++ enum type is undefined (UBSan's -fsanitize=enum stops on it).
template <class Enum>
int enum_value(const Enum &e)
{
    int v;
    static_assert(sizeof v == sizeof e);
    std::memcpy(&v, &e, sizeof v);
    return v;
}

} // namespace openetw_win32
