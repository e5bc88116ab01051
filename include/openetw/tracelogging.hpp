/*
 * openetw/tracelogging.hpp - TraceLogging for C++20, header-only over
 * tracelogging.h: fields whose in-type is deduced from the value, and a
 * provider named as TraceLogging names them.
 *
 *   openetw::tracelogging_provider p("MyCompany.MyComponent");
 *   p.write("OrderShipped", openetw::tl::field("order_id", 4711),
 *           openetw::tl::field("customer", "Fabrikam"));
 *   p.write(openetw::tl::options{.level = 4, .keyword = 0x10}, "Slow", openetw::tl::field("ms", 1.5));
 *
 * Deduction: bool -> BOOL32; integers -> INT8..UINT64 of their width and
 * signedness; float, double; etw_guid -> GUID; const char * / std::string /
 * std::string_view -> a UTF-8 string; std::u16string(_view) -> UTF-16;
 * const void * -> a pointer (hex); std::span / std::vector of arithmetic
 * values -> an array. tl::binary, tl::hex, tl::pid, tl::tid, tl::ipv4,
 * tl::win32_error and tl::typed (any in-type and out-type) give the rest.
 * A field refers to its value's bytes (a string's or container's, or its
 * own copy of a scalar): build it in the write call, as the examples do.
 * Failing writes throw openetw::error, but for events a session dropped
 * (write returns false), as openetw::provider::write.
 */
#ifndef OPENETW_TRACELOGGING_HPP
#define OPENETW_TRACELOGGING_HPP

#include "openetw.hpp"
#include "tracelogging.h"

#include <array>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace openetw {
namespace tl {

/** A field: name, types, and its value's bytes (a scalar's copied in). */
class field_t {
public:
    field_t(const char *name, const void *data, std::uint32_t size, std::uint8_t in, std::uint8_t out = 0) noexcept
        : name_(name), data_(data), size_(size), in_(in), out_(out), owned_(false)
    {
    }
    template <class T>
    field_t(const char *name, const T &scalar, std::uint8_t in, std::uint8_t out) noexcept
        : name_(name), data_(nullptr), size_(sizeof(T)), in_(in), out_(out), owned_(true)
    {
        static_assert(sizeof(T) <= sizeof own_ && std::is_trivially_copyable_v<T>);
        std::memcpy(own_, &scalar, sizeof(T));
    }
    /** The C view; valid while this object lives and is not moved. */
    etw_tl_field get() const noexcept { return {name_, owned_ ? own_ : data_, size_, in_, out_, 0}; }

private:
    const char *name_;
    const void *data_;
    std::uint32_t size_;
    std::uint8_t in_, out_;
    bool owned_;
    alignas(8) unsigned char own_[16] = {};
};

namespace detail {

template <class T>
constexpr std::uint8_t in_type_of()
{
    if constexpr (std::is_same_v<T, bool>)
        return ETW_TL_IN_BOOL32;
    else if constexpr (std::is_same_v<T, float>)
        return ETW_TL_IN_FLOAT;
    else if constexpr (std::is_same_v<T, double>)
        return ETW_TL_IN_DOUBLE;
    else if constexpr (std::is_same_v<T, etw_guid>)
        return ETW_TL_IN_GUID;
    else if constexpr (std::is_integral_v<T>) {
        constexpr bool s = std::is_signed_v<T>;
        if constexpr (sizeof(T) == 1)
            return s ? ETW_TL_IN_INT8 : ETW_TL_IN_UINT8;
        else if constexpr (sizeof(T) == 2)
            return s ? ETW_TL_IN_INT16 : ETW_TL_IN_UINT16;
        else if constexpr (sizeof(T) == 4)
            return s ? ETW_TL_IN_INT32 : ETW_TL_IN_UINT32;
        else
            return s ? ETW_TL_IN_INT64 : ETW_TL_IN_UINT64;
    } else
        static_assert(sizeof(T) == 0, "no TraceLogging in-type for this element type");
}

template <class T>
concept scalar = std::is_arithmetic_v<T> || std::is_same_v<T, etw_guid>;

} // namespace detail

/** A scalar: bool, an integer, float, double or etw_guid. */
template <detail::scalar T>
field_t field(const char *name, const T &value) noexcept
{
    if constexpr (std::is_same_v<T, bool>)
        return field_t(name, std::int32_t(value ? 1 : 0), ETW_TL_IN_BOOL32, 0);
    else
        return field_t(name, value, detail::in_type_of<T>(), 0);
}
/** A UTF-8 string (NULL: empty). */
inline field_t field(const char *name, const char *value) noexcept
{
    return field_t(name, value, ETW_TL_NUL_TERMINATED, ETW_TL_IN_ANSISTRING, ETW_TL_OUT_UTF8);
}
inline field_t field(const char *name, std::string_view value) noexcept
{
    return field_t(name, value.data(), std::uint32_t(value.size()), ETW_TL_IN_ANSISTRING, ETW_TL_OUT_UTF8);
}
inline field_t field(const char *name, const std::string &value) noexcept
{
    return field(name, std::string_view(value));
}
/** A UTF-16 string. */
inline field_t field(const char *name, std::u16string_view value) noexcept
{
    return field_t(name, value.data(), std::uint32_t(value.size() * 2), ETW_TL_IN_UNICODESTRING, 0);
}
inline field_t field(const char *name, const std::u16string &value) noexcept
{
    return field(name, std::u16string_view(value));
}
/** A pointer, shown in hex. */
inline field_t field(const char *name, const void *value) noexcept
{
    return field_t(name, std::uintptr_t(value), ETW_TL_IN_POINTER, 0);
}
/** An array of arithmetic values (bool excluded: it is not 4 bytes). */
template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
field_t field(const char *name, std::span<const T> values) noexcept
{
    return field_t(name, values.data(), std::uint32_t(values.size_bytes()),
                   std::uint8_t(detail::in_type_of<T>() | ETW_TL_IN_ARRAY), 0);
}
template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
field_t field(const char *name, const std::vector<T> &values) noexcept
{
    return field(name, std::span<const T>(values));
}
template <class T, std::size_t N>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
field_t field(const char *name, const std::array<T, N> &values) noexcept
{
    return field(name, std::span<const T>(values));
}

/** Bytes (BINARY: at most 65535). */
inline field_t binary(const char *name, std::span<const std::uint8_t> bytes) noexcept
{
    return field_t(name, bytes.data(), std::uint32_t(bytes.size()), ETW_TL_IN_BINARY, 0);
}
inline field_t hex(const char *name, std::uint32_t v) noexcept { return field_t(name, v, ETW_TL_IN_HEXINT32, 0); }
inline field_t hex(const char *name, std::uint64_t v) noexcept { return field_t(name, v, ETW_TL_IN_HEXINT64, 0); }
inline field_t pid(const char *name, std::uint32_t v) noexcept
{
    return field_t(name, v, ETW_TL_IN_UINT32, ETW_TL_OUT_PID);
}
inline field_t tid(const char *name, std::uint32_t v) noexcept
{
    return field_t(name, v, ETW_TL_IN_UINT32, ETW_TL_OUT_TID);
}
/** An IPv4 address as a UINT32 in network byte order (its bytes in address order). */
inline field_t ipv4(const char *name, std::uint32_t v) noexcept
{
    return field_t(name, v, ETW_TL_IN_UINT32, ETW_TL_OUT_IPV4);
}
inline field_t win32_error(const char *name, std::uint32_t v) noexcept
{
    return field_t(name, v, ETW_TL_IN_UINT32, ETW_TL_OUT_WIN32ERROR);
}
/** Any field: the bytes of an in-type (ETW_TL_IN_*) shown as an out-type (ETW_TL_OUT_*). */
inline field_t typed(const char *name, const void *data, std::uint32_t size, std::uint8_t in_type,
                     std::uint8_t out_type = 0) noexcept
{
    return field_t(name, data, size, in_type, out_type);
}

/** The event's descriptor and ids; the defaults are TraceLoggingWrite's. */
struct options {
    std::uint8_t level = 5;
    std::uint64_t keyword = 0;
    std::uint8_t opcode = 0;
    std::uint8_t channel = ETW_TL_CHANNEL;
    std::uint16_t task = 0;
    const etw_guid *activity_id = nullptr;
    const etw_guid *related_activity_id = nullptr;
};

/** Writes a TraceLogging event (etw_provider_write_tracelogging). False when a
    session dropped it (ETW_ERROR_NOT_ENOUGH_MEMORY, ETW_ERROR_LOG_FILE_FULL);
    other failures throw openetw::error. */
template <class... Fields>
bool write(etw_provider *p, const options &o, const char *event_name, const Fields &...fields)
{
    static_assert((std::is_same_v<Fields, field_t> && ...), "fields are made by openetw::tl::field and its kin");
    static_assert(sizeof...(Fields) <= ETW_TL_MAX_FIELDS, "at most ETW_TL_MAX_FIELDS fields");
    const etw_event_descriptor d{0, 0, o.channel, o.level, o.opcode, o.task, o.keyword};
    etw_status st;
    if constexpr (sizeof...(Fields) == 0) {
        st = etw_provider_write_tracelogging(p, event_name, &d, o.activity_id, o.related_activity_id, 0, nullptr);
    } else {
        const etw_tl_field array[] = {fields.get()...};
        st = etw_provider_write_tracelogging(p, event_name, &d, o.activity_id, o.related_activity_id,
                                             std::uint32_t(sizeof...(Fields)), array);
    }
    if (st == ETW_ERROR_NOT_ENOUGH_MEMORY || st == ETW_ERROR_LOG_FILE_FULL)
        return false;
    check(st);
    return true;
}

/** The GUID TraceLogging and EventSource derive from a provider name. */
inline etw_guid guid_from_name(const char *name)
{
    etw_guid g{};
    check(etw_provider_guid_from_name(&g, name));
    return g;
}

} // namespace tl

/** A TraceLogging provider: registered under the GUID its name derives
    (or the one given) and named in every event's PROV_TRAITS. */
class tracelogging_provider {
public:
    explicit tracelogging_provider(const std::string &name, const etw_guid *group = nullptr)
        : tracelogging_provider(name, tl::guid_from_name(name.c_str()), group)
    {
    }
    tracelogging_provider(const std::string &name, const etw_guid &guid, const etw_guid *group = nullptr)
        : provider_(guid), guid_(guid)
    {
        check(etw_provider_set_name(provider_.get(), name.c_str(), group));
    }

    const etw_guid &guid() const noexcept { return guid_; }
    bool is_enabled(std::uint8_t level = 0, std::uint64_t keyword = 0) const
    {
        return provider_.is_enabled(level, keyword);
    }
    etw_provider *get() const noexcept { return provider_.get(); }

    template <class... Fields>
    bool write(const char *event_name, const Fields &...fields)
    {
        return tl::write(provider_.get(), tl::options{}, event_name, fields...);
    }
    template <class... Fields>
    bool write(const tl::options &o, const char *event_name, const Fields &...fields)
    {
        return tl::write(provider_.get(), o, event_name, fields...);
    }

private:
    provider provider_;
    etw_guid guid_;
};

} // namespace openetw

#endif /* OPENETW_TRACELOGGING_HPP */
