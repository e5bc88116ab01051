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
    reg->level = info->level;
    reg->any = info->match_any_keyword;
    if (reg->manifest) {
        if (reg->enable != nullptr)
            reg->enable(&reg->guid,
                        info->is_enabled != 0 ? EVENT_CONTROL_CODE_ENABLE_PROVIDER
                                              : EVENT_CONTROL_CODE_DISABLE_PROVIDER,
                        static_cast<UCHAR>(info->level), info->match_any_keyword, info->match_all_keyword, nullptr,
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
    reg->request(info->is_enabled != 0 ? WMI_ENABLE_EVENTS : WMI_DISABLE_EVENTS, reg->context, &size, &wnode);
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

OPENETW_WIN32_API ULONG EventWrite(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, ULONG count, PEVENT_DATA_DESCRIPTOR data)
{
    if (desc == nullptr || count > MAX_EVENT_DATA_DESCRIPTORS || (count > 0 && data == nullptr))
        return ERROR_INVALID_PARAMETER;
    size_t total = sizeof(EVENT_TRACE_HEADER);
    for (ULONG i = 0; i < count; ++i) {
        if (data[i].Ptr == 0 && data[i].Size != 0)
            return ERROR_INVALID_PARAMETER;
        total += data[i].Size;
    }
    if (total > 0xFFFF)
        return ERROR_ARITHMETIC_OVERFLOW;
    // Up to MAX_MOF_FIELDS descriptors travel as MOF fields (no copy); more
    // are gathered into one inline payload.
    struct {
        EVENT_TRACE_HEADER header;
        MOF_FIELD fields[MAX_MOF_FIELDS];
    } event;
    std::memset(&event, 0, sizeof event);
    std::vector<unsigned char> gathered;
    event.header.Flags = WNODE_FLAG_TRACED_GUID;
    event.header.Class.Type = desc->Opcode;
    event.header.Class.Level = desc->Level;
    event.header.Class.Version = desc->Version;
    ULONG fields = 0;
    bool inline_payload = count > MAX_MOF_FIELDS;
    for (ULONG i = 0; i < count; ++i) {
        if (data[i].Size == 0)
            continue;
        if (inline_payload) {
            const auto *bytes = reinterpret_cast<const unsigned char *>(static_cast<uintptr_t>(data[i].Ptr));
            gathered.insert(gathered.end(), bytes, bytes + data[i].Size);
        } else {
            event.fields[fields].DataPtr = data[i].Ptr;
            event.fields[fields].Length = data[i].Size;
            ++fields;
        }
    }
    std::vector<unsigned char> whole;
    EVENT_TRACE_HEADER *header = &event.header;
    if (inline_payload) {
        const auto *head = reinterpret_cast<const unsigned char *>(&event.header);
        whole.assign(head, head + sizeof(EVENT_TRACE_HEADER));
        whole.insert(whole.end(), gathered.begin(), gathered.end());
        header = reinterpret_cast<EVENT_TRACE_HEADER *>(whole.data()); // operator new's alignment
        header->Size = static_cast<USHORT>(whole.size());
    } else {
        header->Flags |= WNODE_FLAG_USE_MOF_PTR;
        header->Size = static_cast<USHORT>(sizeof(EVENT_TRACE_HEADER) + fields * sizeof(MOF_FIELD));
    }
    ULONG status = ERROR_INVALID_HANDLE;
    with_registration(handle, true, [&](Registration &r) {
        header->Guid = r.guid;
        if (etw_provider_is_enabled(r.provider, desc->Level, desc->Keyword) == 0) {
            status = ERROR_SUCCESS; // no session takes it: nothing to do
            return;
        }
        status = etw_provider_trace_event(r.provider, reinterpret_cast<etw_event_trace_header *>(header));
    });
    return status;
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
    return EventWrite(handle, &desc, 1, &data);
}
