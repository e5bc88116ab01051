// extern "C" shims of properties.h: argument checks and error reporting only.
#include <openetw/properties.h>

#include "api/guard.hpp"
#include "api/properties_handle.hpp"
#include "export/export_url.hpp"
#include "export/nats_export.hpp"
#include "kernel/kernel_flags.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

using openetw::Fail;
using openetw::Properties;
using openetw::Status;
using openetw::api::guarded;

namespace {

// Setter of a plain record member: NULL check, optional range check, store.
template <class Store>
etw_status set_member(etw_properties *props, Store &&store)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(props);
        return store(props->impl.record());
    });
}

template <class Read>
auto get_member(const etw_properties *props, Read &&read) -> decltype(read(props->impl.record()))
{
    return props ? read(props->impl.record()) : decltype(read(props->impl.record())){};
}

Status store_plain(std::uint32_t &member, std::uint32_t value)
{
    member = value;
    return Status::ok();
}

} // namespace

extern "C" {

ETW_API etw_status etw_properties_create(etw_properties **out, const char *session_name)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = nullptr;
        ETW_REQUIRE_ARG(session_name);
        auto props = std::make_unique<etw_properties>();
        if (Status s = props->impl.set_session_name(session_name); !s)
            return s;
        *out = props.release();
        return Status::ok();
    });
}

ETW_API etw_status etw_properties_clone(etw_properties **out, const etw_properties *src)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = nullptr;
        ETW_REQUIRE_ARG(src);
        *out = new etw_properties(*src);
        return Status::ok();
    });
}

ETW_API void etw_properties_destroy(etw_properties *props) { delete props; }

ETW_API etw_status etw_properties_set_session_name(etw_properties *props, const char *name)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(props);
        return props->impl.set_session_name(name);
    });
}

ETW_API const char *etw_properties_session_name(const etw_properties *props)
{
    return props ? props->impl.session_name_utf8().c_str() : "";
}

ETW_API etw_status etw_properties_set_log_file_name(etw_properties *props, const char *name)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(props);
        return props->impl.set_log_file_name(name);
    });
}

ETW_API const char *etw_properties_log_file_name(const etw_properties *props)
{
    return props ? props->impl.log_file_name_utf8().c_str() : "";
}

ETW_API etw_status etw_properties_set_export(etw_properties *props, const char *url, const char *credentials_file)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(props);
        if (url == nullptr || *url == '\0') {
            props->impl.set_export({}, {});
            return Status::ok();
        }
        const std::string creds = credentials_file ? credentials_file : "";
        // The session host gets both in a request whose strings are at most this long.
        if (std::strlen(url) > openetw::kExportTextMax || creds.size() > openetw::kExportTextMax)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "the export URL and the credentials file name are at most " +
                                                         std::to_string(openetw::kExportTextMax) + " bytes");
        openetw::exporter::ExportUrl parsed;
        if (Status st = openetw::exporter::parse_export_url(url, &parsed); !st)
            return st;
        if (parsed.since_unix_ns != 0)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "?since= is for readers; an export URL is nats://HOST:PORT/STREAM");
        if (!openetw::exporter::nats_available())
            return Fail(ETW_ERROR_NOT_SUPPORTED, "this build of OpenETW has no NATS support (it was built without "
                                                 "libnats: install libnats-dev and build again)");
        props->impl.set_export(url, creds);
        return Status::ok();
    });
}

ETW_API const char *etw_properties_export_url(const etw_properties *props)
{
    return props ? props->impl.export_url().c_str() : "";
}

ETW_API const char *etw_properties_export_credentials(const etw_properties *props)
{
    return props ? props->impl.export_credentials().c_str() : "";
}

ETW_API etw_status etw_properties_set_buffer_size(etw_properties *props, uint32_t kilobytes)
{
    return set_member(props, [&](etw_event_trace_properties &r) -> Status {
        if (kilobytes < ETW_MIN_BUFFER_SIZE_KB || kilobytes > ETW_MAX_BUFFER_SIZE_KB)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "BufferSize " + std::to_string(kilobytes) + " KB is outside 4..16384 KB");
        return store_plain(r.BufferSize, kilobytes);
    });
}
ETW_API uint32_t etw_properties_buffer_size(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.BufferSize; });
}

ETW_API etw_status etw_properties_set_minimum_buffers(etw_properties *props, uint32_t count)
{
    return set_member(props, [&](etw_event_trace_properties &r) { return store_plain(r.MinimumBuffers, count); });
}
ETW_API uint32_t etw_properties_minimum_buffers(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.MinimumBuffers; });
}

ETW_API etw_status etw_properties_set_maximum_buffers(etw_properties *props, uint32_t count)
{
    return set_member(props, [&](etw_event_trace_properties &r) { return store_plain(r.MaximumBuffers, count); });
}
ETW_API uint32_t etw_properties_maximum_buffers(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.MaximumBuffers; });
}

ETW_API etw_status etw_properties_set_maximum_file_size(etw_properties *props, uint32_t size)
{
    return set_member(props, [&](etw_event_trace_properties &r) { return store_plain(r.MaximumFileSize, size); });
}
ETW_API uint32_t etw_properties_maximum_file_size(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.MaximumFileSize; });
}

ETW_API etw_status etw_properties_set_log_file_mode(etw_properties *props, uint32_t mode)
{
    return set_member(props, [&](etw_event_trace_properties &r) { return store_plain(r.LogFileMode, mode); });
}
ETW_API uint32_t etw_properties_log_file_mode(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.LogFileMode; });
}

ETW_API etw_status etw_properties_set_flush_timer(etw_properties *props, uint32_t seconds)
{
    return set_member(props, [&](etw_event_trace_properties &r) { return store_plain(r.FlushTimer, seconds); });
}
ETW_API uint32_t etw_properties_flush_timer(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.FlushTimer; });
}

ETW_API etw_status etw_properties_set_enable_flags(etw_properties *props, uint32_t flags)
{
    return set_member(props, [&](etw_event_trace_properties &r) { return store_plain(r.EnableFlags, flags); });
}
ETW_API uint32_t etw_properties_enable_flags(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.EnableFlags; });
}

ETW_API etw_status etw_properties_set_flush_threshold(etw_properties *props, int32_t value)
{
    return set_member(props, [&](etw_event_trace_properties &r) -> Status {
        r.AgeLimit = value;
        return Status::ok();
    });
}
ETW_API int32_t etw_properties_flush_threshold(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.AgeLimit; });
}

ETW_API etw_status etw_properties_set_guid(etw_properties *props, const etw_guid *guid)
{
    return set_member(props, [&](etw_event_trace_properties &r) -> Status {
        ETW_REQUIRE_ARG(guid);
        r.Wnode.Guid = *guid;
        return Status::ok();
    });
}
ETW_API etw_status etw_properties_get_guid(etw_guid *out, const etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(props);
        *out = props->impl.record().Wnode.Guid;
        return Status::ok();
    });
}

ETW_API etw_status etw_properties_set_clock_type(etw_properties *props, uint32_t clock_type)
{
    return set_member(props, [&](etw_event_trace_properties &r) -> Status {
        if (clock_type > ETW_CLOCK_CPU_CYCLE)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "clock type (Wnode.ClientContext) " + std::to_string(clock_type) + " is outside 0..3");
        return store_plain(r.Wnode.ClientContext, clock_type);
    });
}
ETW_API uint32_t etw_properties_clock_type(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.Wnode.ClientContext; });
}

ETW_API uint32_t etw_properties_number_of_buffers(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.NumberOfBuffers; });
}
ETW_API uint32_t etw_properties_free_buffers(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.FreeBuffers; });
}
ETW_API uint32_t etw_properties_events_lost(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.EventsLost; });
}
ETW_API uint32_t etw_properties_buffers_written(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.BuffersWritten; });
}
ETW_API uint32_t etw_properties_log_buffers_lost(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.LogBuffersLost; });
}
ETW_API uint32_t etw_properties_real_time_buffers_lost(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.RealTimeBuffersLost; });
}
ETW_API uint64_t etw_properties_logger_thread_id(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return uint64_t(r.LoggerThreadId); });
}
ETW_API uint64_t etw_properties_historical_context(const etw_properties *props)
{
    return get_member(props, [](const etw_event_trace_properties &r) { return r.Wnode.HistoricalContext; });
}

ETW_API etw_status etw_properties_get_record(etw_event_trace_properties *out, const etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(props);
        *out = props->impl.record_for_export();
        return Status::ok();
    });
}

ETW_API etw_status etw_properties_validate(const etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(props);
        return props->impl.validate();
    });
}

ETW_API etw_status etw_properties_export(void *out_block, size_t block_size, size_t *out_size,
                                         const etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(props);
        const std::size_t needed = props->impl.export_size();
        if (out_size)
            *out_size = needed;
        if (out_block == nullptr || block_size < needed)
            return Fail(ETW_ERROR_MORE_DATA, "the block needs " + std::to_string(needed) + " bytes; " +
                                                 std::to_string(out_block ? block_size : 0) + " were given");
        const auto block = props->impl.export_block();
        std::memcpy(out_block, block.data(), block.size());
        return Status::ok();
    });
}

ETW_API etw_status etw_properties_import(etw_properties **out, const void *block, size_t block_size)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = nullptr;
        auto props = std::make_unique<etw_properties>();
        if (Status s = Properties::import_block(static_cast<const std::uint8_t *>(block), block_size, props->impl); !s)
            return s;
        *out = props.release();
        return Status::ok();
    });
}

ETW_API etw_status etw_enable_flags_parse(uint32_t *mask, const char *text)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(mask);
        ETW_REQUIRE_ARG(text);
        return openetw::kernel::parse_kernel_flags(text, mask);
    });
}

ETW_API etw_status etw_enable_flags_format(char *text, size_t size, size_t *needed, uint32_t mask)
{
    return guarded([&]() -> Status {
        if (text == nullptr && size != 0)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "text is NULL but size is not 0");
        const std::string names = openetw::kernel::format_kernel_flags(mask);
        if (needed)
            *needed = names.size() + 1;
        if (size > 0) {
            const std::size_t n = std::min(names.size(), size - 1);
            std::memcpy(text, names.data(), n);
            text[n] = '\0';
        }
        if (size < names.size() + 1)
            return Fail(ETW_ERROR_MORE_DATA, "the flag names need " + std::to_string(names.size() + 1) +
                                                 " bytes with the NUL; the buffer has " + std::to_string(size));
        return Status::ok();
    });
}

} // extern "C"
