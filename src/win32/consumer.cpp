// Consumers: OpenTrace, ProcessTrace, CloseTrace over libopenetw's consumer
// (files and real-time sessions). Records become the EVENT_TRACE or
// EVENT_RECORD Windows hands to EventCallback / EventRecordCallback; each
// buffer is reported to BufferCallback with the EVENT_TRACE_LOGFILE updated.
#include "common.hpp"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

using namespace openetw_win32;

namespace {

struct Trace;

// What the consumer callbacks receive: the traces by file index, and the
// ProcessTrace time window.
struct Dispatch {
    std::vector<Trace *> traces;
    bool window = false;
    int64_t start = 0, end = 0;
};

struct Trace {
    uint64_t handle = 0;
    bool wide = false;
    bool realtime = false;
    std::string source;                        // the file path or session name, UTF-8
    EVENT_TRACE_LOGFILEW logfile{};            // the caller's structure, updated as Windows does (same layout for A)
    std::u16string logger_name, log_file_name; // what LogfileHeader points to
    etw_consumer *consumer = nullptr;          // opened by OpenTrace
    Dispatch own;                              // dispatch of a ProcessTrace of this trace alone
    etw_consumer *active = nullptr;            // the consumer being processed
    bool processing = false;
    bool closed = false;                                // CloseTrace while processing
    std::vector<EVENT_HEADER_EXTENDED_DATA_ITEM> items; // scratch for extended data
};

struct Table {
    std::mutex mutex;
    std::unordered_map<uint64_t, Trace *> by_handle;
    uint64_t next = 0x100;
};
Table &table()
{
    static Table t;
    return t;
}

constexpr TRACEHANDLE kInvalid = INVALID_PROCESSTRACE_HANDLE;

void destroy(Trace *trace)
{
    etw_consumer_close(trace->consumer);
    delete trace;
}

bool is_header_group(const etw_record *r)
{
    return r->kind != ETW_RECORD_KIND_FULL && r->kind != ETW_RECORD_KIND_INSTANCE && r->kind != ETW_RECORD_KIND_EVENT;
}

// The GUID Windows reports for a record: the logfile header and the other
// EventTrace-group records carry EventTraceGuid.
GUID record_guid(const etw_record *r)
{
    GUID g;
    if (is_header_group(r)) {
        if ((r->hook_id >> 8) == 0)
            return EventTraceGuid;
        std::memset(&g, 0, sizeof g);
        return g;
    }
    std::memcpy(&g, &r->guid, sizeof g);
    return g;
}

void deliver_record(Trace *t, const etw_record *r)
{
    EVENT_RECORD er;
    std::memset(&er, 0, sizeof er);
    EVENT_HEADER &h = er.EventHeader;
    h.Size = r->size;
    h.ThreadId = r->thread_id;
    h.ProcessId = r->process_id;
    h.TimeStamp.QuadPart = r->timestamp;
    h.ProviderId = record_guid(r);
    h.KernelTime = r->kernel_time;
    h.UserTime = r->user_time;
    h.EventDescriptor.Level = r->level;
    h.EventDescriptor.Opcode = is_header_group(r) ? static_cast<UCHAR>(r->hook_id & 0xFF) : r->opcode;
    h.EventDescriptor.Version = static_cast<UCHAR>(r->version);
    h.Flags = EVENT_HEADER_FLAG_PROCESSOR_INDEX;
    if (r->kind == ETW_RECORD_KIND_EVENT) {
        h.Flags |= r->event_flags;
        h.EventProperty = r->event_property;
        h.EventDescriptor.Id = r->event_id;
        h.EventDescriptor.Channel = r->channel;
        h.EventDescriptor.Task = r->task;
        h.EventDescriptor.Keyword = r->keyword;
        std::memcpy(&h.ActivityId, &r->activity_id, sizeof(GUID));
        t->items.assign(r->extended_count, EVENT_HEADER_EXTENDED_DATA_ITEM{});
        for (uint32_t i = 0; i < r->extended_count; ++i) {
            t->items[i].ExtType = r->extended[i].ext_type;
            t->items[i].Linkage = i + 1 < r->extended_count ? 1 : 0;
            t->items[i].DataSize = r->extended[i].data_size;
            t->items[i].DataPtr = static_cast<ULONGLONG>(reinterpret_cast<uintptr_t>(r->extended[i].data));
        }
        er.ExtendedDataCount = static_cast<USHORT>(r->extended_count);
        er.ExtendedData = r->extended_count > 0 ? t->items.data() : nullptr;
    } else {
        h.Flags |= EVENT_HEADER_FLAG_CLASSIC_HEADER;
    }
    // Not stored in files (ETL_FORMAT.md 3.5): the HeaderType's 32/64 says it.
    if (r->pointer_size == 8)
        h.Flags |= EVENT_HEADER_FLAG_64_BIT_HEADER;
    else if (r->pointer_size == 4)
        h.Flags |= EVENT_HEADER_FLAG_32_BIT_HEADER;
    er.BufferContext.ProcessorIndex = static_cast<USHORT>(r->processor);
    er.UserDataLength = static_cast<USHORT>(r->payload_size);
    er.UserData = const_cast<uint8_t *>(r->payload);
    er.UserContext = t->logfile.Context;
    t->logfile.EventRecordCallback(&er);
}

void deliver_event(Trace *t, const etw_record *r)
{
    EVENT_TRACE ev;
    std::memset(&ev, 0, sizeof ev);
    ev.Header.Size = r->size;
    ev.Header.HeaderType = r->header_type;
    ev.Header.MarkerFlags = r->marker_flags;
    ev.Header.Class.Type = is_header_group(r) ? static_cast<UCHAR>(r->hook_id & 0xFF) : r->opcode;
    ev.Header.Class.Level = r->level;
    ev.Header.Class.Version = r->version;
    ev.Header.ThreadId = r->thread_id;
    ev.Header.ProcessId = r->process_id;
    ev.Header.TimeStamp.QuadPart = r->timestamp;
    ev.Header.Guid = record_guid(r);
    ev.Header.KernelTime = r->kernel_time;
    ev.Header.UserTime = r->user_time;
    ev.InstanceId = r->instance_id;
    ev.ParentInstanceId = r->parent_instance_id;
    std::memcpy(&ev.ParentGuid, &r->parent_guid, sizeof(GUID));
    ev.MofData = const_cast<uint8_t *>(r->payload);
    ev.MofLength = r->payload_size;
    ev.BufferContext.ProcessorIndex = static_cast<USHORT>(r->processor);
    t->logfile.CurrentEvent = ev;
    t->logfile.EventCallback(&ev);
}

int32_t on_record(void *user_data, const etw_record *r)
{
    auto *d = static_cast<Dispatch *>(user_data);
    if (r->file_index >= d->traces.size())
        return 0;
    Trace *t = d->traces[r->file_index];
    // WPP messages and error records have no EVENT_TRACE form: not delivered.
    if (r->kind == ETW_RECORD_KIND_MESSAGE || r->kind == ETW_RECORD_KIND_ERROR)
        return 0;
    if (d->window && (r->timestamp < d->start || r->timestamp > d->end))
        return 0;
    t->logfile.CurrentTime = r->timestamp;
    if ((t->logfile.ProcessTraceMode & PROCESS_TRACE_MODE_EVENT_RECORD) != 0) {
        if (t->logfile.EventRecordCallback != nullptr)
            deliver_record(t, r);
    } else if (t->logfile.EventCallback != nullptr) {
        deliver_event(t, r);
    }
    return 0;
}

int32_t on_buffer(void *user_data, const etw_buffer_info *b)
{
    auto *d = static_cast<Dispatch *>(user_data);
    if (b->file_index >= d->traces.size())
        return 0;
    Trace *t = d->traces[b->file_index];
    t->logfile.BuffersRead++;
    t->logfile.BufferSize = b->buffer_size;
    t->logfile.Filled = b->filled_size;
    if (t->logfile.BufferCallback == nullptr)
        return 0;
    ULONG keep_going = t->logfile.BufferCallback(&t->logfile); // A and W layouts are the same
    return keep_going != 0 ? 0 : 1;
}

void fill_header(Trace *t, const etw_logfile_info &info)
{
    TRACE_LOGFILE_HEADER &h = t->logfile.LogfileHeader;
    const etw_trace_logfile_header64 &s = info.header;
    std::memset(&h, 0, sizeof h);
    h.BufferSize = s.BufferSize;
    h.Version = s.Version;
    h.ProviderVersion = s.ProviderVersion;
    h.NumberOfProcessors = s.NumberOfProcessors;
    h.EndTime.QuadPart = s.EndTime;
    h.TimerResolution = s.TimerResolution;
    h.MaximumFileSize = s.MaximumFileSize;
    h.LogFileMode = s.LogFileMode;
    h.BuffersWritten = s.BuffersWritten;
    h.StartBuffers = s.StartBuffers;
    h.PointerSize = s.PointerSize;
    h.EventsLost = s.EventsLost;
    h.CpuSpeedInMHz = s.CpuSpeedInMHz;
    t->logger_name = utf8_to_utf16(info.logger_name != nullptr ? info.logger_name : "");
    t->log_file_name = utf8_to_utf16(info.log_file_name != nullptr ? info.log_file_name : "");
    h.LoggerName = reinterpret_cast<LPWSTR>(const_cast<char16_t *>(t->logger_name.c_str()));
    h.LogFileName = reinterpret_cast<LPWSTR>(const_cast<char16_t *>(t->log_file_name.c_str()));
    std::memcpy(&h.TimeZone, &s.TimeZone, sizeof h.TimeZone);
    h.BootTime.QuadPart = s.BootTime;
    h.PerfFreq.QuadPart = s.PerfFreq;
    h.StartTime.QuadPart = s.StartTime;
    h.ReservedFlags = s.ReservedFlags;
    h.BuffersLost = s.BuffersLost;
    t->logfile.EventsLost = s.EventsLost;
    t->logfile.IsKernelTrace = t->logger_name == u"NT Kernel Logger" ? 1 : 0;
}

etw_consumer_options options_for(Trace *t, Dispatch *d)
{
    etw_consumer_options options;
    std::memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.flags =
        (t->logfile.ProcessTraceMode & PROCESS_TRACE_MODE_RAW_TIMESTAMP) != 0 ? ETW_CONSUMER_RAW_TIMESTAMP : 0;
    options.buffer = on_buffer;
    options.record = on_record;
    options.user_data = d;
    return options;
}

TRACEHANDLE open_trace(void *logfile, bool wide)
{
    if (logfile == nullptr) {
        set_last_error(ERROR_INVALID_PARAMETER);
        return kInvalid;
    }
    auto trace = std::make_unique<Trace>();
    trace->wide = wide;
    std::memcpy(&trace->logfile, logfile, sizeof(EVENT_TRACE_LOGFILEW));
    EVENT_TRACE_LOGFILEW &lf = trace->logfile;
    trace->realtime = (lf.ProcessTraceMode & PROCESS_TRACE_MODE_REAL_TIME) != 0;
    const void *name =
        trace->realtime ? static_cast<const void *>(lf.LoggerName) : static_cast<const void *>(lf.LogFileName);
    // Without a LoggerName a valid log file name is required: ERROR_BAD_PATHNAME.
    if (name == nullptr) {
        set_last_error(trace->realtime ? ERROR_INVALID_PARAMETER : ERROR_BAD_PATHNAME);
        return kInvalid;
    }
    ULONG status = name_to_utf8(Name{name, wide}, &trace->source);
    if (status == ERROR_SUCCESS && trace->source.empty())
        status = trace->realtime ? ERROR_INVALID_PARAMETER : ERROR_BAD_PATHNAME;
    if (status != ERROR_SUCCESS) {
        set_last_error(status);
        return kInvalid;
    }
    trace->own.traces.push_back(trace.get());
    etw_consumer_options options = options_for(trace.get(), &trace->own);
    const char *path = trace->source.c_str();
    status = trace->realtime ? etw_consumer_open_session(&trace->consumer, path, &options)
                             : etw_consumer_open(&trace->consumer, &path, 1, &options);
    if (status != ERROR_SUCCESS) {
        set_last_error(status);
        return kInvalid;
    }
    etw_logfile_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (etw_consumer_logfile_header(&info, trace->consumer, 0) == ERROR_SUCCESS)
        fill_header(trace.get(), info);
    // The caller's structure receives the header facts, as OpenTrace fills it.
    auto *out = static_cast<EVENT_TRACE_LOGFILEW *>(logfile);
    std::memcpy(&out->LogfileHeader, &lf.LogfileHeader, sizeof lf.LogfileHeader);
    out->EventsLost = lf.EventsLost;
    out->IsKernelTrace = lf.IsKernelTrace;
    Table &t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    trace->handle = t.next++;
    t.by_handle[trace->handle] = trace.get();
    set_last_error(ERROR_SUCCESS);
    return trace.release()->handle;
}

int64_t filetime_of(const FILETIME *ft)
{
    return static_cast<int64_t>((static_cast<uint64_t>(ft->dwHighDateTime) << 32) | ft->dwLowDateTime);
}

} // namespace

OPENETW_WIN32_API TRACEHANDLE OpenTraceW(PEVENT_TRACE_LOGFILEW logfile) { return open_trace(logfile, true); }
OPENETW_WIN32_API TRACEHANDLE OpenTraceA(PEVENT_TRACE_LOGFILEA logfile) { return open_trace(logfile, false); }

OPENETW_WIN32_API ULONG ProcessTrace(PTRACEHANDLE handles, ULONG count, LPFILETIME start, LPFILETIME end)
{
    if (handles == nullptr || count == 0 || count > 64)
        return ERROR_INVALID_PARAMETER;
    Table &table_ = table();
    std::vector<Trace *> traces;
    {
        std::lock_guard<std::mutex> lock(table_.mutex);
        for (ULONG i = 0; i < count; ++i) {
            auto it = table_.by_handle.find(handles[i]);
            if (it == table_.by_handle.end())
                return ERROR_INVALID_HANDLE;
            if (it->second->processing)
                return ERROR_BUSY;
            traces.push_back(it->second);
        }
        size_t realtime = 0;
        for (Trace *t : traces)
            realtime += t->realtime ? 1 : 0;
        if (realtime > 0 && realtime != traces.size())
            return ERROR_INVALID_PARAMETER; // files and real-time sessions in one call
        if (realtime > 1)
            return ERROR_NOT_SUPPORTED; // one real-time session per call (docs/WIN32.md)
        for (Trace *t : traces)
            t->processing = true;
    }
    // One trace: its own consumer. Several files: one consumer of all of
    // them, so their events come merged in time order.
    Dispatch merged;
    Dispatch *dispatch = &traces[0]->own;
    etw_consumer *consumer = traces[0]->consumer;
    ULONG status = ERROR_SUCCESS;
    if (traces.size() > 1) {
        std::vector<const char *> paths;
        for (Trace *t : traces) {
            merged.traces.push_back(t);
            paths.push_back(t->source.c_str());
        }
        etw_consumer_options options = options_for(traces[0], &merged);
        status = etw_consumer_open(&consumer, paths.data(), static_cast<uint32_t>(paths.size()), &options);
        dispatch = &merged;
    }
    if (status == ERROR_SUCCESS) {
        dispatch->window = start != nullptr || end != nullptr;
        dispatch->start = start != nullptr ? filetime_of(start) : INT64_MIN;
        dispatch->end = end != nullptr ? filetime_of(end) : INT64_MAX;
        {
            std::lock_guard<std::mutex> lock(table_.mutex);
            for (Trace *t : traces) {
                t->active = consumer;
                if (t->closed) // CloseTrace came before the consumer was known
                    etw_consumer_cancel(consumer);
            }
        }
        status = etw_consumer_process(consumer);
    }
    bool closed = false;
    {
        std::lock_guard<std::mutex> lock(table_.mutex);
        for (Trace *t : traces) {
            t->processing = false;
            t->active = nullptr;
            closed = closed || t->closed;
        }
    }
    if (traces.size() > 1 && consumer != nullptr)
        etw_consumer_close(consumer);
    for (Trace *t : traces)
        if (t->closed)
            destroy(t);
    // CloseTrace during processing ends it normally; a BufferCallback that
    // returned FALSE gives ERROR_CANCELLED.
    if (status == ERROR_CANCELLED && closed)
        return ERROR_SUCCESS;
    return status;
}

OPENETW_WIN32_API ULONG CloseTrace(TRACEHANDLE handle)
{
    Table &t = table();
    Trace *trace = nullptr;
    {
        std::lock_guard<std::mutex> lock(t.mutex);
        auto it = t.by_handle.find(handle);
        if (it == t.by_handle.end())
            return ERROR_INVALID_HANDLE;
        trace = it->second;
        t.by_handle.erase(it);
        if (trace->processing) {
            // ProcessTrace frees it when it returns.
            trace->closed = true;
            if (trace->active != nullptr)
                etw_consumer_cancel(trace->active);
            return ERROR_CTX_CLOSE_PENDING;
        }
    }
    destroy(trace);
    return ERROR_SUCCESS;
}
