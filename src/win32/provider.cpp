// Providers: RegisterTraceGuids/TraceEvent (classic) and EventRegister/
// EventWrite (manifest-style, carried as classic events: see evntprov.h).
// One registration table maps the handles Windows code holds (registration,
// logger and REGHANDLE values) to libopenetw providers.
#include "common.hpp"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

using namespace openetw_win32;

namespace {

struct Registration {
    uint64_t handle = 0;
    bool manifest = false;
    GUID guid{};
    WMIDPREQUEST request = nullptr;   // classic
    PENABLECALLBACK enable = nullptr; // manifest
    void *context = nullptr;
    etw_provider *provider = nullptr;
    std::atomic<uint32_t> level{0};
    std::atomic<uint64_t> any{0};
};

// Handles are small counters, never reused, so a stale handle is refused.
// TraceEvent/EventWrite take the shared lock: unregistering waits for them.
struct Table {
    std::shared_mutex mutex;
    std::unordered_map<uint64_t, Registration *> by_handle;
    std::atomic<uint64_t> next{0x1000};
};
Table &table()
{
    static Table t;
    return t;
}

void on_enable(const etw_provider_enable_info *info, void *user_data)
{
    auto *reg = static_cast<Registration *>(user_data);
    const bool capture = info->is_enabled == ETW_CONTROL_CODE_CAPTURE_STATE; // the enablement is unchanged
    if (capture && reg->manifest) {
        if (reg->enable != nullptr)
            reg->enable(&reg->guid, EVENT_CONTROL_CODE_CAPTURE_STATE, static_cast<UCHAR>(info->level),
                        info->match_any_keyword, info->match_all_keyword, nullptr, reg->context);
        return;
    }
    if (!capture) {
        reg->level = info->level;
        reg->any = info->match_any_keyword;
    }
    if (reg->manifest) {
        if (reg->enable != nullptr)
            reg->enable(&reg->guid,
                        info->is_enabled != 0 ? EVENT_CONTROL_CODE_ENABLE_PROVIDER
                                              : EVENT_CONTROL_CODE_DISABLE_PROVIDER,
                        static_cast<UCHAR>(info->level), info->match_any_keyword, info->match_all_keyword,
                        reinterpret_cast<PEVENT_FILTER_DESCRIPTOR>(
                            const_cast<etw_event_filter_descriptor *>(info->filter_data)),
                        reg->context);
        return;
    }
    // The WNODE_HEADER GetTraceLoggerHandle reads: HistoricalContext holds
    // the logger handle (this registration's, which TraceEvent accepts).
    WNODE_HEADER wnode;
    std::memset(&wnode, 0, sizeof wnode);
    wnode.BufferSize = sizeof wnode;
    wnode.HistoricalContext = reg->handle;
    wnode.Guid = reg->guid;
    wnode.Flags = WNODE_FLAG_TRACED_GUID;
    ULONG size = sizeof wnode;
    reg->request(capture                 ? WMI_CAPTURE_STATE
                 : info->is_enabled != 0 ? WMI_ENABLE_EVENTS
                                         : WMI_DISABLE_EVENTS,
                 reg->context, &size, &wnode);
}

ULONG add(std::unique_ptr<Registration> reg, uint64_t *out)
{
    Table &t = table();
    reg->handle = t.next.fetch_add(1);
    Registration *raw = reg.get();
    {
        std::unique_lock<std::shared_mutex> lock(t.mutex);
        t.by_handle[raw->handle] = raw; // before registering: the callback may run at once
    }
    etw_guid g;
    std::memcpy(&g, &raw->guid, sizeof g);
    etw_provider *provider = nullptr;
    ULONG status = etw_provider_register(&provider, &g, on_enable, raw, nullptr);
    if (status != ERROR_SUCCESS) {
        std::unique_lock<std::shared_mutex> lock(t.mutex);
        t.by_handle.erase(raw->handle);
        return status;
    }
    {
        std::unique_lock<std::shared_mutex> lock(t.mutex);
        raw->provider = provider;
    }
    *out = raw->handle;
    reg.release();
    return ERROR_SUCCESS;
}

ULONG remove(uint64_t handle, bool manifest)
{
    Table &t = table();
    Registration *reg = nullptr;
    {
        std::unique_lock<std::shared_mutex> lock(t.mutex);
        auto it = t.by_handle.find(handle);
        if (it == t.by_handle.end() || it->second->manifest != manifest)
            return manifest ? ERROR_INVALID_HANDLE : ERROR_INVALID_PARAMETER;
        reg = it->second;
        t.by_handle.erase(it);
    }
    etw_provider_unregister(reg->provider); // waits for running callbacks
    delete reg;
    return ERROR_SUCCESS;
}

ULONG register_classic(WMIDPREQUEST request, PVOID context, LPCGUID control, ULONG count, PTRACE_GUID_REGISTRATION regs,
                       PTRACEHANDLE out)
{
    if (request == nullptr || control == nullptr || out == nullptr || (count > 0 && regs == nullptr))
        return ERROR_INVALID_PARAMETER;
    for (ULONG i = 0; i < count; ++i)
        if (regs[i].Guid == nullptr)
            return ERROR_INVALID_PARAMETER;
    auto reg = std::make_unique<Registration>();
    reg->guid = *control;
    reg->request = request;
    reg->context = context;
    uint64_t handle = 0;
    ULONG status = add(std::move(reg), &handle);
    if (status != ERROR_SUCCESS)
        return status;
    // Event class handles: only ever passed back to instance-id helpers.
    for (ULONG i = 0; i < count; ++i)
        regs[i].RegHandle = reinterpret_cast<HANDLE>(static_cast<uintptr_t>(handle));
    *out = handle;
    return ERROR_SUCCESS;
}

// Calls fn(reg) under the shared lock; false when the handle is unknown.
template <typename Fn>
bool with_registration(uint64_t handle, bool manifest, Fn fn)
{
    Table &t = table();
    std::shared_lock<std::shared_mutex> lock(t.mutex);
    auto it = t.by_handle.find(handle);
    if (it == t.by_handle.end() || it->second->manifest != manifest)
        return false;
    fn(*it->second);
    return true;
}

} // namespace

OPENETW_WIN32_API ULONG RegisterTraceGuidsW(WMIDPREQUEST request, PVOID context, LPCGUID control, ULONG count,
                                            PTRACE_GUID_REGISTRATION regs, LPCWSTR, LPCWSTR, PTRACEHANDLE out)
{
    return register_classic(request, context, control, count, regs, out);
}

OPENETW_WIN32_API ULONG RegisterTraceGuidsA(WMIDPREQUEST request, PVOID context, LPCGUID control, ULONG count,
                                            PTRACE_GUID_REGISTRATION regs, LPCSTR, LPCSTR, PTRACEHANDLE out)
{
    return register_classic(request, context, control, count, regs, out);
}

OPENETW_WIN32_API ULONG UnregisterTraceGuids(TRACEHANDLE handle) { return remove(handle, false); }

OPENETW_WIN32_API TRACEHANDLE GetTraceLoggerHandle(PVOID buffer)
{
    if (buffer == nullptr) {
        set_last_error(ERROR_INVALID_PARAMETER);
        return static_cast<TRACEHANDLE>(reinterpret_cast<uintptr_t>(INVALID_HANDLE_VALUE));
    }
    uint64_t handle = static_cast<const WNODE_HEADER *>(buffer)->HistoricalContext;
    if (!with_registration(handle, false, [](Registration &) {})) {
        set_last_error(ERROR_INVALID_HANDLE);
        return static_cast<TRACEHANDLE>(reinterpret_cast<uintptr_t>(INVALID_HANDLE_VALUE));
    }
    set_last_error(ERROR_SUCCESS);
    return handle;
}

OPENETW_WIN32_API UCHAR GetTraceEnableLevel(TRACEHANDLE handle)
{
    UCHAR level = 0;
    bool found = with_registration(handle, false, [&](Registration &r) { level = static_cast<UCHAR>(r.level.load()); });
    set_last_error(found ? ERROR_SUCCESS : ERROR_INVALID_HANDLE);
    return level;
}

OPENETW_WIN32_API ULONG GetTraceEnableFlags(TRACEHANDLE handle)
{
    ULONG flags = 0;
    bool found = with_registration(handle, false, [&](Registration &r) { flags = static_cast<ULONG>(r.any.load()); });
    set_last_error(found ? ERROR_SUCCESS : ERROR_INVALID_HANDLE);
    return flags;
}

OPENETW_WIN32_API ULONG TraceEvent(TRACEHANDLE handle, PEVENT_TRACE_HEADER event)
{
    if (event == nullptr)
        return ERROR_INVALID_PARAMETER;
    // Checked whether or not a session takes the event, as Windows does.
    if ((event->Flags & WNODE_FLAG_TRACED_GUID) == 0)
        return ERROR_INVALID_FLAG_NUMBER;
    ULONG status = ERROR_INVALID_HANDLE;
    with_registration(handle, false, [&](Registration &r) {
        status = etw_provider_trace_event(r.provider, reinterpret_cast<etw_event_trace_header *>(event));
    });
    return status;
}

OPENETW_WIN32_API ULONG EventRegister(LPCGUID id, PENABLECALLBACK callback, PVOID context, PREGHANDLE out)
{
    if (id == nullptr || out == nullptr)
        return ERROR_INVALID_PARAMETER;
    *out = 0;
    auto reg = std::make_unique<Registration>();
    reg->manifest = true;
    reg->guid = *id;
    reg->enable = callback;
    reg->context = context;
    uint64_t handle = 0;
    ULONG status = add(std::move(reg), &handle);
    if (status == ERROR_SUCCESS)
        *out = handle;
    return status;
}

OPENETW_WIN32_API ULONG EventUnregister(REGHANDLE handle) { return remove(handle, true); }

OPENETW_WIN32_API BOOLEAN EventProviderEnabled(REGHANDLE handle, UCHAR level, ULONGLONG keyword)
{
    int enabled = 0;
    with_registration(handle, true,
                      [&](Registration &r) { enabled = etw_provider_is_enabled(r.provider, level, keyword); });
    return enabled != 0 ? TRUE : FALSE;
}

OPENETW_WIN32_API BOOLEAN EventEnabled(REGHANDLE handle, PCEVENT_DESCRIPTOR desc)
{
    if (desc == nullptr)
        return FALSE;
    return EventProviderEnabled(handle, desc->Level, desc->Keyword);
}

namespace {

// The Win32 records are the library's, byte for byte.
static_assert(sizeof(EVENT_DESCRIPTOR) == sizeof(etw_event_descriptor) &&
              offsetof(EVENT_DESCRIPTOR, Keyword) == offsetof(etw_event_descriptor, Keyword));
static_assert(sizeof(EVENT_DATA_DESCRIPTOR) == sizeof(etw_event_data_descriptor) &&
              offsetof(EVENT_DATA_DESCRIPTOR, Size) == offsetof(etw_event_data_descriptor, Size));
static_assert(sizeof(GUID) == sizeof(etw_guid));

// Every EventWrite variant: the arguments checked whether or not a session
// takes the event (Windows' statuses), then one EVENT_HEADER write.
ULONG write_event(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, uint32_t flags, LPCGUID activity, LPCGUID related,
                  ULONG count, PEVENT_DATA_DESCRIPTOR data, ULONG64 skip = 0)
{
    if (desc == nullptr || count > MAX_EVENT_DATA_DESCRIPTORS || (count > 0 && data == nullptr))
        return ERROR_INVALID_PARAMETER;
    uint64_t total = 0x50 + (related ? 24 : 0); // EVENT_HEADER, the RELATED_ACTIVITYID item
    for (ULONG i = 0; i < count; ++i) {
        if (data[i].Ptr == 0 && data[i].Size != 0)
            return ERROR_INVALID_PARAMETER;
        total += data[i].Size;
    }
    if (total > 0xFFFF)
        return ERROR_ARITHMETIC_OVERFLOW;
    ULONG status = ERROR_INVALID_HANDLE;
    with_registration(handle, true, [&](Registration &r) {
        status = etw_provider_write_event_ex(r.provider, reinterpret_cast<const etw_event_descriptor *>(desc), skip,
                                             flags, reinterpret_cast<const etw_guid *>(activity),
                                             reinterpret_cast<const etw_guid *>(related), count,
                                             reinterpret_cast<const etw_event_data_descriptor *>(data));
    });
    return status;
}

} // namespace

OPENETW_WIN32_API ULONG EventWrite(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
    return write_event(handle, desc, 0, nullptr, nullptr, count, data);
}

OPENETW_WIN32_API ULONG EventWriteTransfer(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, LPCGUID activity, LPCGUID related,
                                           ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
    return write_event(handle, desc, 0, activity, related, count, data);
}

OPENETW_WIN32_API ULONG EventWriteEx(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, ULONG64 filter, ULONG flags,
                                     LPCGUID activity, LPCGUID related, ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
    // Filter: the sessions to skip, by the InstanceId their enable callback
    // found in its FilterData's EVENT_FILTER_HEADER. Flags: only the two
    // EVENT_WRITE_FLAGs Windows defines.
    if ((flags & ~ULONG(EVENT_WRITE_FLAG_NO_FAULTING | EVENT_WRITE_FLAG_INPRIVATE)) != 0)
        return ERROR_INVALID_PARAMETER;
    return write_event(handle, desc, 0, activity, related, count, data, filter);
}

OPENETW_WIN32_API ULONG EventWriteString(REGHANDLE handle, UCHAR level, ULONGLONG keyword, PCWSTR text)
{
    if (text == nullptr)
        return ERROR_INVALID_PARAMETER;
    size_t units = 0;
    while (text[units] != 0)
        ++units;
    EVENT_DESCRIPTOR desc;
    std::memset(&desc, 0, sizeof desc);
    desc.Level = level;
    desc.Keyword = keyword;
    EVENT_DATA_DESCRIPTOR data;
    EventDataDescCreate(&data, text, static_cast<ULONG>((units + 1) * sizeof(WCHAR)));
    return write_event(handle, &desc, ETW_EVENT_WRITE_STRING_ONLY, nullptr, nullptr, 1, &data);
}

OPENETW_WIN32_API ULONG EventSetInformation(REGHANDLE handle, EVENT_INFO_CLASS info_class, PVOID info, ULONG length)
{
    // (A bad handle is ERROR_INVALID_PARAMETER here, as EventSetInformation documents.)
    ULONG status = ERROR_INVALID_PARAMETER;
    const int cls = openetw_win32::enum_value(info_class);
    with_registration(handle, true, [&](Registration &r) {
        switch (cls) {
        case EventProviderSetTraits:
            status = etw_provider_set_traits(r.provider, info, length);
            break;
        case EventProviderUseDescriptorType:
            status = ERROR_SUCCESS; // descriptor types are always honoured (provider.h)
            break;
        default:
            status = ERROR_NOT_SUPPORTED;
        }
    });
    return status;
}

OPENETW_WIN32_API ULONG EventActivityIdControl(ULONG code, LPGUID activity)
{
    return etw_activity_id_control(code, reinterpret_cast<etw_guid *>(activity));
}
