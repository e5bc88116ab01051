// TraceSetInformation and TraceQueryInformation over libopenetw's session
// calls: a system logger's stacks (TraceStackTracingInfo), its profile
// interval (TraceSampledProfileIntervalInfo) and the profile sources
// (TraceProfileSourceListInfo). The rules are Microsoft's documentation of
// both functions and the SDK's comments on TRACE_QUERY_INFO_CLASS
// (docs/WIN32.md, "Trace information"); every other class is
// ERROR_NOT_SUPPORTED, never a silent success.
#include "common.hpp"

#include <atomic>
#include <cstring>
#include <strings.h>
#include <vector>

using namespace openetw_win32;

namespace {

constexpr ULONG kTimerSource = 0; // ProfileTime: the only source here

// The interval that TraceSetInformation with SessionHandle 0 gave: the one
// every system logger this process starts afterwards takes (0: the
// library's default), as Windows' machine-wide setting reaches the kernel
// loggers started after it.
std::atomic<ULONG> g_default_interval{0};

// The session of a handle the caller names: ERROR_INVALID_HANDLE for 0;
// ERROR_WMI_INSTANCE_NOT_FOUND for a handle no running session has, as
// ControlTrace says (also after a stop).
ULONG session_of(TRACEHANDLE handle, SessionGuard *s)
{
    if (handle == 0)
        return ERROR_INVALID_HANDLE;
    return find_session(handle, nullptr, &s->session, &s->owned);
}

// As libopenetw decides (etw_properties_validate): the NT Kernel Logger by
// GUID or name, or ETW_SYSTEM_LOGGER_MODE.
bool is_system_logger(const etw_properties *p)
{
    static const etw_guid kSystemTrace = ETW_SYSTEM_TRACE_CONTROL_GUID_INIT;
    etw_guid guid{};
    return (etw_properties_log_file_mode(p) & ETW_SYSTEM_LOGGER_MODE) != 0 ||
           (etw_properties_get_guid(&guid, p) == ETW_OK && std::memcmp(&guid, &kSystemTrace, sizeof guid) == 0) ||
           strcasecmp(etw_properties_session_name(p), ETW_KERNEL_LOGGER_NAME) == 0;
}

// SessionHandle 0: the default for system loggers started later, and every
// running one the caller may control. A refusal by one (another user's,
// without the control right) is returned after the others have changed.
ULONG set_machine_interval(ULONG interval)
{
    std::vector<std::string> loggers;
    for_each_running_session([&](const etw_properties *p) {
        if (is_system_logger(p))
            loggers.push_back(etw_properties_session_name(p));
    });
    ULONG first_failure = ERROR_SUCCESS;
    for (const std::string &name : loggers) {
        SessionGuard s;
        ULONG status = find_session(0, &name, &s.session, &s.owned);
        if (status == ERROR_SUCCESS)
            status = etw_session_set_profile_interval(s.session, interval);
        // One that stopped meanwhile is no longer running: nothing to change.
        if (status != ERROR_SUCCESS && status != ERROR_WMI_INSTANCE_NOT_FOUND && first_failure == ERROR_SUCCESS)
            first_failure = status;
    }
    g_default_interval.store(interval, std::memory_order_relaxed);
    return first_failure;
}

ULONG set_interval(TRACEHANDLE handle, const void *info, ULONG length)
{
    if (length < sizeof(TRACE_PROFILE_INTERVAL))
        return ERROR_BAD_LENGTH;
    if (info == nullptr)
        return ERROR_INVALID_PARAMETER;
    TRACE_PROFILE_INTERVAL in;
    std::memcpy(&in, info, sizeof in);
    if (in.Source != kTimerSource) // TraceProfileSourceListInfo lists the timer only
        return ERROR_INVALID_PARAMETER;
    if (in.Interval < ETW_MIN_PROFILE_INTERVAL || in.Interval > ETW_MAX_PROFILE_INTERVAL)
        return ERROR_INVALID_PARAMETER;
    if (handle == 0)
        return set_machine_interval(in.Interval);
    // A session's handle: that system logger's own interval (here each has one).
    SessionGuard s;
    if (ULONG status = session_of(handle, &s); status != ERROR_SUCCESS)
        return status;
    return etw_session_set_profile_interval(s.session, in.Interval);
}

ULONG query_interval(TRACEHANDLE handle, void *info, ULONG length, PULONG return_length)
{
    if (return_length != nullptr)
        *return_length = sizeof(TRACE_PROFILE_INTERVAL);
    if (length < sizeof(TRACE_PROFILE_INTERVAL))
        return ERROR_BAD_LENGTH;
    if (info == nullptr)
        return ERROR_INVALID_PARAMETER;
    TRACE_PROFILE_INTERVAL io;
    std::memcpy(&io, info, sizeof io); // Source is the caller's question
    if (io.Source != kTimerSource)
        return ERROR_INVALID_PARAMETER;
    if (handle == 0) {
        const ULONG set = g_default_interval.load(std::memory_order_relaxed);
        io.Interval = set != 0 ? set : ETW_DEFAULT_PROFILE_INTERVAL;
    } else {
        SessionGuard s;
        if (ULONG status = session_of(handle, &s); status != ERROR_SUCCESS)
            return status;
        etw_session_options o{};
        o.struct_size = sizeof o;
        if (ULONG status = etw_session_get_options(&o, s.session); status != ERROR_SUCCESS)
            return status;
        // Every session reports an interval: only a system logger has a profile.
        etw_properties *props = nullptr;
        ULONG status = etw_properties_create(&props, "query");
        if (status == ERROR_SUCCESS)
            status = etw_session_query(s.session, props);
        const bool system = status == ERROR_SUCCESS && is_system_logger(props);
        etw_properties_destroy(props);
        if (status != ERROR_SUCCESS)
            return status;
        if (!system)
            return ERROR_NOT_SUPPORTED;
        io.Interval = o.profile_interval;
    }
    std::memcpy(info, &io, sizeof io);
    return ERROR_SUCCESS;
}

ULONG set_stack_tracing(TRACEHANDLE handle, const void *info, ULONG length)
{
    // An array of CLASSIC_EVENT_ID: whole structs only; 0 bytes turn stacks off.
    if (length % sizeof(CLASSIC_EVENT_ID) != 0)
        return ERROR_BAD_LENGTH;
    const ULONG count = length / sizeof(CLASSIC_EVENT_ID);
    if (count != 0 && info == nullptr)
        return ERROR_INVALID_PARAMETER;
    if (count > ETW_MAX_STACK_TRACING_EVENTS)
        return ERROR_INVALID_PARAMETER;
    SessionGuard s;
    if (ULONG status = session_of(handle, &s); status != ERROR_SUCCESS)
        return status;
    // Copied: the caller's array need not be aligned for the struct.
    std::vector<etw_classic_event_id> events(count);
    static_assert(sizeof(etw_classic_event_id) == sizeof(CLASSIC_EVENT_ID));
    if (count != 0)
        std::memcpy(events.data(), info, length);
    return etw_session_set_stack_tracing(s.session, events.data(), count);
}

// The list of sources: the timer, as Windows names it, with its range.
ULONG query_sources(void *info, ULONG length, PULONG return_length)
{
    static const WCHAR kName[] = {'T', 'i', 'm', 'e', 'r', 0};
    const ULONG needed = ULONG(offsetof(PROFILE_SOURCE_INFO, Description) + sizeof kName);
    if (return_length != nullptr)
        *return_length = needed;
    if (length < needed)
        return ERROR_BAD_LENGTH;
    if (info == nullptr)
        return ERROR_INVALID_PARAMETER;
    PROFILE_SOURCE_INFO head{};
    head.NextEntryOffset = 0; // the last (and only) entry
    head.Source = kTimerSource;
    head.MinInterval = ETW_MIN_PROFILE_INTERVAL;
    head.MaxInterval = ETW_MAX_PROFILE_INTERVAL;
    auto *out = static_cast<unsigned char *>(info);
    std::memcpy(out, &head, offsetof(PROFILE_SOURCE_INFO, Description));
    std::memcpy(out + offsetof(PROFILE_SOURCE_INFO, Description), kName, sizeof kName);
    return ERROR_SUCCESS;
}

} // namespace

namespace openetw_win32 {

ULONG default_profile_interval() { return g_default_interval.load(std::memory_order_relaxed); }

} // namespace openetw_win32

OPENETW_WIN32_API ULONG TraceSetInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
                                            PVOID TraceInformation, ULONG InformationLength)
{
    switch (openetw_win32::enum_value(InformationClass)) {
    case TraceStackTracingInfo:
        return set_stack_tracing(SessionHandle, TraceInformation, InformationLength);
    case TraceSampledProfileIntervalInfo:
        return set_interval(SessionHandle, TraceInformation, InformationLength);
    default:
        return ERROR_NOT_SUPPORTED;
    }
}

OPENETW_WIN32_API ULONG TraceQueryInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
                                              PVOID TraceInformation, ULONG InformationLength, PULONG ReturnLength)
{
    if (ReturnLength != nullptr)
        *ReturnLength = 0;
    switch (openetw_win32::enum_value(InformationClass)) {
    case TraceSampledProfileIntervalInfo:
        return query_interval(SessionHandle, TraceInformation, InformationLength, ReturnLength);
    case TraceProfileSourceListInfo:
        // A list of the machine's sources: the handle is not used (the SDK: "expects 0").
        return query_sources(TraceInformation, InformationLength, ReturnLength);
    default:
        return ERROR_NOT_SUPPORTED;
    }
}
