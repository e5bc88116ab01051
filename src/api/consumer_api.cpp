// extern "C" shims of consumer.h: argument checks and the struct_size
// contract; everything else is in src/consumer.
#include <openetw/consumer.h>
#include <openetw/provider.h>

#include "api/guard.hpp"
#include "consumer/consumer.hpp"
#include "decode/extended_items.hpp"
#include "format/record_reader.hpp"

#include <cstddef>
#include <cstring>

using openetw::Fail;
using openetw::Status;
using openetw::api::guarded;
using openetw::consumer::Consumer;

// The handle is the engine object; the opaque type only hides it.
static Consumer *impl(etw_consumer *c) { return reinterpret_cast<Consumer *>(c); }
static const Consumer *impl(const etw_consumer *c) { return reinterpret_cast<const Consumer *>(c); }

// Layout promises of the public view structs (identical on 32- and 64-bit up to the pointers).
static_assert(offsetof(etw_record, timestamp) == 48 && offsetof(etw_record, guid) == 64 &&
              offsetof(etw_record, hook_id) == 128 && offsetof(etw_record, message_sequence) == 152 &&
              offsetof(etw_record, bytes) == 176);
static_assert(offsetof(etw_buffer_info, file_offset) == 16 && offsetof(etw_buffer_info, data) == 104);
static_assert(offsetof(etw_classic_event, header) == 8 && offsetof(etw_classic_event, payload) == 80);
static_assert(offsetof(etw_logfile_info, header) == 8 && offsetof(etw_logfile_info, logger_name) == 320);
static_assert(sizeof(etw_consumer_stats) == 64);

// Copies a filled struct into the caller's, no more bytes than either knows.
template <class T>
static void copy_out(T *out, const T &filled)
{
    const std::uint32_t size = out->struct_size < sizeof(T) ? out->struct_size : static_cast<std::uint32_t>(sizeof(T));
    std::memcpy(out, &filled, size);
    out->struct_size = size;
}

extern "C" {

ETW_API etw_status etw_consumer_open(etw_consumer **out, const char *const *paths, uint32_t path_count,
                                     const etw_consumer_options *options)
{
    return guarded([&]() -> Status {
        Consumer *c = nullptr;
        Status st = Consumer::open(out ? &c : nullptr, paths, path_count, options);
        if (out)
            *out = reinterpret_cast<etw_consumer *>(c);
        return st;
    });
}

ETW_API etw_status etw_consumer_open_stream(etw_consumer **out, const char *url, const char *credentials_file,
                                            const etw_consumer_options *options)
{
    return guarded([&]() -> Status {
        Consumer *c = nullptr;
        Status st = Consumer::open_stream(out ? &c : nullptr, url, credentials_file, options);
        if (out)
            *out = reinterpret_cast<etw_consumer *>(c);
        return st;
    });
}

ETW_API etw_status etw_consumer_open_session(etw_consumer **out, const char *session_name,
                                             const etw_consumer_options *options)
{
    return guarded([&]() -> Status {
        Consumer *c = nullptr;
        Status st = Consumer::open_session(out ? &c : nullptr, session_name, options);
        if (out)
            *out = reinterpret_cast<etw_consumer *>(c);
        return st;
    });
}

ETW_API etw_status etw_consumer_set_loss_callback(etw_consumer *consumer, etw_loss_callback callback)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(consumer);
        return impl(consumer)->set_loss_callback(callback);
    });
}

ETW_API etw_status etw_consumer_set_raw_buffer_callback(etw_consumer *consumer, etw_raw_buffer_callback callback)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(consumer);
        return impl(consumer)->set_raw_buffer_callback(callback);
    });
}

ETW_API etw_status etw_consumer_process(etw_consumer *consumer)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(consumer);
        return impl(consumer)->process();
    });
}

ETW_API etw_status etw_consumer_cancel(etw_consumer *consumer)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(consumer);
        impl(consumer)->cancel();
        return Status::ok();
    });
}

ETW_API etw_status etw_consumer_close(etw_consumer *consumer)
{
    return guarded([&]() -> Status { return Consumer::close(impl(consumer)); });
}

ETW_API etw_status etw_consumer_file_count(uint32_t *out, const etw_consumer *consumer)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(consumer);
        *out = impl(consumer)->file_count();
        return Status::ok();
    });
}

ETW_API etw_status etw_consumer_logfile_header(etw_logfile_info *out, const etw_consumer *consumer, uint32_t file_index)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(consumer);
        if (out->struct_size < offsetof(etw_logfile_info, path) + sizeof(const char *))
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "out->struct_size is too small; set it to sizeof(etw_logfile_info)");
        if (file_index >= impl(consumer)->file_count())
            return Fail(ETW_ERROR_INVALID_PARAMETER, "file_index " + std::to_string(file_index) +
                                                         " is not below the file count " +
                                                         std::to_string(impl(consumer)->file_count()));
        etw_logfile_info info;
        impl(consumer)->logfile_info(file_index, info);
        copy_out(out, info);
        return Status::ok();
    });
}

ETW_API etw_status etw_consumer_get_stats(etw_consumer_stats *out, const etw_consumer *consumer)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(consumer);
        if (out->struct_size < offsetof(etw_consumer_stats, reserved0) + sizeof(uint32_t))
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "out->struct_size is too small; set it to sizeof(etw_consumer_stats)");
        etw_consumer_stats stats = impl(consumer)->stats();
        stats.struct_size = sizeof stats;
        stats.file_count = impl(consumer)->file_count();
        copy_out(out, stats);
        return Status::ok();
    });
}

ETW_API etw_status etw_extended_item_stack(const etw_extended_item *item, uint64_t *out_match_id, uint64_t *addresses,
                                           uint32_t capacity, uint32_t *out_count)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(item);
        ETW_REQUIRE_ARG(out_count);
        if (addresses == nullptr && capacity != 0)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "addresses is NULL and capacity is not 0");
        if (item->data == nullptr && item->data_size != 0)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "item->data is NULL and item->data_size is not 0");
        return openetw::decode::read_stack_item(item->ext_type, item->data, item->data_size, out_match_id, addresses,
                                                capacity, out_count);
    });
}

ETW_API etw_status etw_extended_item_sid_string(const etw_extended_item *item, char *buffer, uint32_t buffer_size,
                                                uint32_t *out_length)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(item);
        ETW_REQUIRE_ARG(buffer);
        ETW_REQUIRE_ARG(out_length);
        if (item->ext_type != ETW_EVENT_HEADER_EXT_TYPE_SID)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "the item is of type " + std::to_string(item->ext_type) + ", not a SID (2)");
        if (item->data == nullptr && item->data_size != 0)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "item->data is NULL and item->data_size is not 0");
        std::string text;
        if (Status st = openetw::decode::sid_text(item->data, item->data_size, &text); !st)
            return st;
        *out_length = static_cast<uint32_t>(text.size());
        if (text.size() >= buffer_size)
            return Fail(ETW_ERROR_INSUFFICIENT_BUFFER, "the SID's text takes " + std::to_string(text.size() + 1) +
                                                           " bytes with its NUL, the buffer has " +
                                                           std::to_string(buffer_size));
        std::memcpy(buffer, text.c_str(), text.size() + 1);
        return Status::ok();
    });
}

ETW_API const char *etw_record_kind_name(uint32_t kind)
{
    if (kind < ETW_RECORD_KIND_SYSTEM || kind > ETW_RECORD_KIND_ERROR)
        return "unknown";
    return openetw::format::record_kind_name(static_cast<openetw::format::RecordKind>(kind));
}

} // extern "C"
