// Controllers: StartTrace, ControlTrace (and Stop/Query/Update/Flush),
// QueryAllTraces, EnableTrace, EnableTraceEx2 over libopenetw's sessions.
// The status rules are those of Microsoft's documentation of each function
// (docs/WIN32.md lists them); each check says which.
#include "common.hpp"

#include <cstddef>
#include <cstring>
#include <vector>

using namespace openetw_win32;

namespace {

constexpr ULONG kMaxSessionsListed = 64; // MAXLOGGERS: QueryAllTraces' array limit

// Frees an etw_properties at scope exit.
struct PropsGuard {
    etw_properties *props = nullptr;
    ~PropsGuard() { etw_properties_destroy(props); }
};

bool same_guid(const GUID &a, const GUID &b) { return std::memcmp(&a, &b, sizeof(GUID)) == 0; }

// The log file name of the block, if any: LogFileNameOffset 0 means none.
// An offset inside the fixed record is ERROR_INVALID_PARAMETER ("not
// correct"); one at or past Wnode.BufferSize, or a name not terminated
// inside the block, is ERROR_BAD_PATHNAME.
ULONG read_log_file_name(const EVENT_TRACE_PROPERTIES *props, bool wide, std::string *out)
{
    out->clear();
    ULONG offset = props->LogFileNameOffset;
    if (offset == 0)
        return ERROR_SUCCESS;
    if (offset < fixed_size(props))
        return ERROR_INVALID_PARAMETER;
    if (offset >= props->Wnode.BufferSize || (wide && offset % 2 != 0))
        return ERROR_BAD_PATHNAME;
    ULONG status = ERROR_SUCCESS;
    if (!read_block_name(reinterpret_cast<const unsigned char *>(props), offset, props->Wnode.BufferSize, wide, out,
                         &status))
        return ERROR_BAD_PATHNAME;
    return status;
}

// True when another running session writes to path.
bool log_file_in_use(const std::string &path)
{
    bool in_use = false;
    for_each_running_session(
        [&](const etw_properties *p) { in_use = in_use || path == etw_properties_log_file_name(p); });
    return in_use;
}

// True when a session of that name runs (here or, system-wide, in a host).
bool session_running(const std::string &name)
{
    etw_session *session = nullptr;
    if (etw_session_open(&session, name.c_str()) != ETW_OK)
        return false;
    etw_session_close(session);
    return true;
}

ULONG start_trace(PTRACEHANDLE handle, const Name &name, PEVENT_TRACE_PROPERTIES props)
{
    if (props == nullptr || handle == nullptr || name.text == nullptr)
        return ERROR_INVALID_PARAMETER;
    *handle = 0;
    const size_t fixed = fixed_size(props);
    // "Wnode.BufferSize specifies an incorrect size".
    if (props->Wnode.BufferSize < fixed)
        return ERROR_BAD_LENGTH;
    if ((props->Wnode.Flags & WNODE_FLAG_TRACED_GUID) == 0)
        return ERROR_INVALID_PARAMETER;
    // EVENT_TRACE_PROPERTIES_V2: the session's own filters (checked by the start).
    ULONG filter_count = 0;
    const EVENT_FILTER_DESCRIPTOR *filters = nullptr;
    if (fixed == sizeof(EVENT_TRACE_PROPERTIES_V2)) {
        const auto *v2 = reinterpret_cast<const EVENT_TRACE_PROPERTIES_V2 *>(props);
        filter_count = v2->FilterDescCount;
        filters = v2->FilterDesc;
    }
    std::string session_name;
    ULONG status = name_to_utf8(name, &session_name);
    if (status != ERROR_SUCCESS)
        return status;
    // The name is copied to LoggerNameOffset: an offset inside the record is
    // "not correct"; too little room after it is ERROR_BAD_LENGTH.
    const ULONG name_offset = props->LoggerNameOffset;
    const size_t name_bytes = name_block_bytes(session_name, name.wide);
    if (name_offset != 0) {
        if (name_offset < fixed || name_offset > props->Wnode.BufferSize || (name.wide && name_offset % 2 != 0))
            return ERROR_INVALID_PARAMETER;
        if (name_offset + name_bytes > props->Wnode.BufferSize)
            return ERROR_BAD_LENGTH;
    }
    std::string log_file;
    status = read_log_file_name(props, name.wide, &log_file);
    if (status != ERROR_SUCCESS)
        return status;
    // The name's room ends where the log file name begins: a name that
    // would overwrite it is too long for its room, as one past the block.
    if (name_offset != 0 && props->LogFileNameOffset != 0 && props->LogFileNameOffset >= name_offset &&
        props->LogFileNameOffset < name_offset + name_bytes)
        return ERROR_BAD_LENGTH;
    // "Wnode.Guid is SystemTraceControlGuid but InstanceName is not KERNEL_LOGGER_NAME".
    if (same_guid(props->Wnode.Guid, SystemTraceControlGuid) && session_name != KERNEL_LOGGER_NAMEA)
        return ERROR_INVALID_PARAMETER;
    // A session that logs to a file needs its name: Windows says
    // ERROR_BAD_PATHNAME (Wine's advapi32 tests record it for LogFileMode 0).
    if (log_file.empty() && (props->LogFileMode & (EVENT_TRACE_REAL_TIME_MODE | EVENT_TRACE_BUFFERING_MODE)) == 0)
        return ERROR_BAD_PATHNAME;
    // "Another session is already using the file". The name is checked
    // first: the same name again is ERROR_ALREADY_EXISTS, whatever its file.
    if (!log_file.empty() && log_file_in_use(log_file) && !session_running(session_name))
        return ERROR_BAD_PATHNAME;

    PropsGuard p;
    status = etw_properties_create(&p.props, session_name.c_str());
    if (status != ERROR_SUCCESS)
        return status == ERROR_INVALID_NAME ? ERROR_INVALID_PARAMETER : status;
    // BufferSize 0 takes the default; sizes outside 4..16384 KB are adjusted
    // into the range, as ETW adjusts them.
    ULONG kb = props->BufferSize == 0      ? 64
               : props->BufferSize < 4     ? 4
               : props->BufferSize > 16384 ? 16384
                                           : props->BufferSize;
    etw_guid guid;
    std::memcpy(&guid, &props->Wnode.Guid, sizeof guid);
    const ULONG setters[] = {
        etw_properties_set_buffer_size(p.props, kb),
        etw_properties_set_minimum_buffers(p.props, props->MinimumBuffers),
        etw_properties_set_maximum_buffers(p.props, props->MaximumBuffers),
        etw_properties_set_maximum_file_size(p.props, props->MaximumFileSize),
        etw_properties_set_log_file_mode(p.props, props->LogFileMode),
        etw_properties_set_flush_timer(p.props, props->FlushTimer),
        etw_properties_set_enable_flags(p.props, props->EnableFlags),
        etw_properties_set_flush_threshold(p.props, props->AgeLimit),
        etw_properties_set_guid(p.props, &guid),
        etw_properties_set_clock_type(p.props, props->Wnode.ClientContext),
        etw_properties_set_log_file_name(p.props, log_file.c_str()),
    };
    for (ULONG s : setters)
        if (s != ERROR_SUCCESS)
            return s == ERROR_INVALID_NAME ? ERROR_BAD_PATHNAME : s;
    etw_session *session = nullptr;
    // A system logger samples at the interval TraceSetInformation last set
    // for the machine (SessionHandle 0); others ignore it.
    etw_session_options options{};
    options.struct_size = sizeof options;
    options.profile_interval = default_profile_interval();
    options.filter_count = filter_count;
    options.filters = reinterpret_cast<const etw_event_filter_descriptor *>(filters);
    status = etw_session_start_ex(&session, p.props, &options);
    if (status != ERROR_SUCCESS)
        return status == ERROR_INVALID_NAME ? ERROR_INVALID_PARAMETER : status;
    remember_session(session);
    *handle = etw_session_handle(session);
    write_back(props, p.props, name.wide);
    // Windows leaves the caller's log file name as given (the engine may have
    // appended a suffix); only the session name is copied.
    if (name_offset != 0)
        write_block_name(reinterpret_cast<unsigned char *>(props), name_offset, session_name, name.wide);
    props->Wnode.HistoricalContext = *handle;
    return ERROR_SUCCESS;
}

ULONG control_trace(TRACEHANDLE handle, const Name &name, PEVENT_TRACE_PROPERTIES props, ULONG code)
{
    if (props == nullptr)
        return ERROR_INVALID_PARAMETER;
    if (code > EVENT_TRACE_CONTROL_INCREMENT_FILE)
        return ERROR_INVALID_PARAMETER;
    if (props->Wnode.BufferSize < fixed_size(props))
        return ERROR_BAD_LENGTH;
    std::string session_name;
    if (handle == 0) {
        if (name.text == nullptr)
            return ERROR_INVALID_PARAMETER;
        ULONG status = name_to_utf8(name, &session_name);
        if (status != ERROR_SUCCESS)
            return status;
        if (session_name.empty())
            return ERROR_INVALID_PARAMETER;
    }
    std::string new_log_file;
    if (code == EVENT_TRACE_CONTROL_UPDATE) {
        ULONG status = read_log_file_name(props, name.wide, &new_log_file);
        if (status != ERROR_SUCCESS)
            return status;
    }
    SessionGuard s;
    ULONG status = find_session(handle, &session_name, &s.session, &s.owned);
    if (status != ERROR_SUCCESS)
        return status;
    if (code == EVENT_TRACE_CONTROL_INCREMENT_FILE)
        return ERROR_NOT_SUPPORTED;
    PropsGuard p;
    status = etw_properties_create(&p.props, "query");
    if (status != ERROR_SUCCESS)
        return status;
    switch (code) {
    case EVENT_TRACE_CONTROL_QUERY:
        status = etw_session_query(s.session, p.props);
        break;
    case EVENT_TRACE_CONTROL_STOP:
        status = etw_session_stop(s.session, p.props);
        break;
    case EVENT_TRACE_CONTROL_FLUSH:
        status = etw_session_flush(s.session, p.props);
        break;
    default: {
        // UPDATE reads FlushTimer, MaximumBuffers, EnableFlags and the log
        // file name; other members are ignored (as documented for Windows).
        status = etw_session_query(s.session, p.props);
        if (status != ERROR_SUCCESS)
            break;
        etw_properties_set_flush_timer(p.props, props->FlushTimer);
        etw_properties_set_maximum_buffers(p.props, props->MaximumBuffers);
        etw_properties_set_enable_flags(p.props, props->EnableFlags);
        if (!new_log_file.empty()) {
            status = etw_properties_set_log_file_name(p.props, new_log_file.c_str());
            if (status != ERROR_SUCCESS)
                break;
        }
        status = etw_session_update(s.session, p.props);
        break;
    }
    }
    if (status != ERROR_SUCCESS && code != EVENT_TRACE_CONTROL_STOP)
        return status;
    // A stop that hit a file error has still stopped: report both.
    ULONG written = write_back(props, p.props, name.wide);
    return status != ERROR_SUCCESS ? status : written;
}

ULONG query_all(PEVENT_TRACE_PROPERTIES *array, ULONG array_count, PULONG logger_count, bool wide)
{
    if (array == nullptr || logger_count == nullptr || array_count == 0 || array_count > kMaxSessionsListed)
        return ERROR_INVALID_PARAMETER;
    for (ULONG i = 0; i < array_count; ++i) {
        if (array[i] == nullptr)
            return ERROR_INVALID_PARAMETER;
        if (array[i]->Wnode.BufferSize < fixed_size(array[i]))
            return ERROR_BAD_LENGTH;
    }
    std::vector<etw_properties *> list(array_count, nullptr);
    ULONG status = ERROR_SUCCESS;
    for (auto &p : list)
        if (status == ERROR_SUCCESS)
            status = etw_properties_create(&p, "list");
    uint32_t count = 0;
    if (status == ERROR_SUCCESS)
        status = etw_session_list(&count, list.data(), array_count);
    if (status == ERROR_SUCCESS || status == ERROR_MORE_DATA) {
        ULONG filled = count < array_count ? count : array_count;
        for (ULONG i = 0; i < filled; ++i)
            if (write_back(array[i], list[i], wide) != ERROR_SUCCESS)
                status = ERROR_MORE_DATA;
        *logger_count = count;
    }
    for (auto *p : list)
        etw_properties_destroy(p);
    return status;
}

static_assert(sizeof(EVENT_FILTER_DESCRIPTOR) == sizeof(etw_event_filter_descriptor) &&
              offsetof(EVENT_FILTER_DESCRIPTOR, Type) == offsetof(etw_event_filter_descriptor, Type));

ULONG enable(TRACEHANDLE handle, LPCGUID guid, ULONG code, UCHAR level, ULONGLONG any, ULONGLONG all,
             ULONG property = 0, const EVENT_FILTER_DESCRIPTOR *filters = nullptr, ULONG filter_count = 0,
             LPCGUID source = nullptr)
{
    if (guid == nullptr || handle == 0)
        return ERROR_INVALID_PARAMETER;
    if (code > EVENT_CONTROL_CODE_CAPTURE_STATE)
        return ERROR_INVALID_PARAMETER;
    SessionGuard s;
    ULONG status = find_session(handle, nullptr, &s.session, &s.owned);
    if (status != ERROR_SUCCESS)
        return status == ERROR_WMI_INSTANCE_NOT_FOUND ? ERROR_INVALID_HANDLE : status;
    etw_guid g;
    std::memcpy(&g, guid, sizeof g);
    if (property == 0 && filter_count == 0 && source == nullptr)
        return etw_session_enable_provider(s.session, &g, code, level, any, all);
    etw_enable_parameters params{};
    params.struct_size = sizeof params;
    params.enable_property = property;
    params.level = level;
    params.match_any_keyword = any;
    params.match_all_keyword = all;
    params.filter_count = filter_count;
    params.filters = reinterpret_cast<const etw_event_filter_descriptor *>(filters);
    if (source != nullptr)
        std::memcpy(&params.source_id, source, sizeof params.source_id);
    return etw_session_enable_provider_ex(s.session, &g, code, &params);
}

} // namespace

OPENETW_WIN32_API ULONG StartTraceW(PTRACEHANDLE h, LPCWSTR name, PEVENT_TRACE_PROPERTIES p)
{
    return start_trace(h, Name{name, true}, p);
}
OPENETW_WIN32_API ULONG StartTraceA(PTRACEHANDLE h, LPCSTR name, PEVENT_TRACE_PROPERTIES p)
{
    return start_trace(h, Name{name, false}, p);
}
OPENETW_WIN32_API ULONG ControlTraceW(TRACEHANDLE h, LPCWSTR name, PEVENT_TRACE_PROPERTIES p, ULONG code)
{
    return control_trace(h, Name{name, true}, p, code);
}
OPENETW_WIN32_API ULONG ControlTraceA(TRACEHANDLE h, LPCSTR name, PEVENT_TRACE_PROPERTIES p, ULONG code)
{
    return control_trace(h, Name{name, false}, p, code);
}
OPENETW_WIN32_API ULONG StopTraceW(TRACEHANDLE h, LPCWSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, true}, p, EVENT_TRACE_CONTROL_STOP);
}
OPENETW_WIN32_API ULONG StopTraceA(TRACEHANDLE h, LPCSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, false}, p, EVENT_TRACE_CONTROL_STOP);
}
OPENETW_WIN32_API ULONG QueryTraceW(TRACEHANDLE h, LPCWSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, true}, p, EVENT_TRACE_CONTROL_QUERY);
}
OPENETW_WIN32_API ULONG QueryTraceA(TRACEHANDLE h, LPCSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, false}, p, EVENT_TRACE_CONTROL_QUERY);
}
OPENETW_WIN32_API ULONG UpdateTraceW(TRACEHANDLE h, LPCWSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, true}, p, EVENT_TRACE_CONTROL_UPDATE);
}
OPENETW_WIN32_API ULONG UpdateTraceA(TRACEHANDLE h, LPCSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, false}, p, EVENT_TRACE_CONTROL_UPDATE);
}
OPENETW_WIN32_API ULONG FlushTraceW(TRACEHANDLE h, LPCWSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, true}, p, EVENT_TRACE_CONTROL_FLUSH);
}
OPENETW_WIN32_API ULONG FlushTraceA(TRACEHANDLE h, LPCSTR n, PEVENT_TRACE_PROPERTIES p)
{
    return control_trace(h, Name{n, false}, p, EVENT_TRACE_CONTROL_FLUSH);
}
OPENETW_WIN32_API ULONG QueryAllTracesW(PEVENT_TRACE_PROPERTIES *a, ULONG n, PULONG count)
{
    return query_all(a, n, count, true);
}
OPENETW_WIN32_API ULONG QueryAllTracesA(PEVENT_TRACE_PROPERTIES *a, ULONG n, PULONG count)
{
    return query_all(a, n, count, false);
}
OPENETW_WIN32_API ULONG EnableTrace(ULONG enable_, ULONG flags, ULONG level, LPCGUID guid, TRACEHANDLE h)
{
    if (level > 0xFF)
        return ERROR_INVALID_PARAMETER;
    return enable(h, guid, enable_ != 0 ? EVENT_CONTROL_CODE_ENABLE_PROVIDER : EVENT_CONTROL_CODE_DISABLE_PROVIDER,
                  static_cast<UCHAR>(level), flags, 0);
}
OPENETW_WIN32_API ULONG EnableTraceEx2(TRACEHANDLE h, LPCGUID guid, ULONG code, UCHAR level, ULONGLONG any,
                                       ULONGLONG all, ULONG timeout, PENABLE_TRACE_PARAMETERS params)
{
    (void)timeout; // enabling is synchronous here: the callbacks ran when this returns
    if (params == nullptr)
        return enable(h, guid, code, level, any, all);
    if (params->Version == ENABLE_TRACE_PARAMETERS_VERSION) // no FilterDescCount: one filter, or none
        return enable(h, guid, code, level, any, all, params->EnableProperty, params->EnableFilterDesc,
                      params->EnableFilterDesc ? 1 : 0, &params->SourceId);
    if (params->Version != ENABLE_TRACE_PARAMETERS_VERSION_2)
        return ERROR_INVALID_PARAMETER;
    return enable(h, guid, code, level, any, all, params->EnableProperty, params->EnableFilterDesc,
                  params->FilterDescCount, &params->SourceId);
}
OPENETW_WIN32_API ULONG EnableTraceEx(LPCGUID guid, LPCGUID source, TRACEHANDLE h, ULONG code, UCHAR level,
                                      ULONGLONG any, ULONGLONG all, ULONG property, PEVENT_FILTER_DESCRIPTOR filter)
{
    return enable(h, guid, code, level, any, all, property, filter, filter ? 1 : 0, source);
}
