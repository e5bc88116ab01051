#include "otlp/log_record.hpp"

#include "otlp/severity.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace openetw::otlp {

namespace {

using opentelemetry::proto::common::v1::AnyValue;
using opentelemetry::proto::common::v1::KeyValue;
using opentelemetry::proto::logs::v1::LogRecord;

// tdh.h in-types whose value is not its text.
constexpr std::uint16_t kInFloat = 11, kInDouble = 12, kInBinary = 14;

// The 100 ns intervals from 1601-01-01 to 1970-01-01.
constexpr std::int64_t kUnixEpochFiletime = 116444736000000000;

std::string guid_text(const etw_guid &g)
{
    char s[40];
    std::snprintf(s, sizeof s, "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}", unsigned(g.Data1),
                  unsigned(g.Data2), unsigned(g.Data3), g.Data4[0], g.Data4[1], g.Data4[2], g.Data4[3], g.Data4[4],
                  g.Data4[5], g.Data4[6], g.Data4[7]);
    return s;
}

void put_int(LogRecord &out, const char *key, std::int64_t v)
{
    KeyValue *kv = out.add_attributes();
    kv->set_key(key);
    kv->mutable_value()->set_int_value(v);
}

void put_string(LogRecord &out, const char *key, const std::string &v)
{
    KeyValue *kv = out.add_attributes();
    kv->set_key(key);
    kv->mutable_value()->set_string_value(v);
}

// A value property: bool, int, double and bytes where the decoder says the
// text is one (or the in-type is binary), else the text the decoder made
// (GUIDs, times, hex, names of value maps...). A 64-bit unsigned value above
// INT64_MAX stays text: OTLP's integer is signed.
void value_of(const etw_event_property &p, AnyValue &v)
{
    if (p.flags & ETW_PROPERTY_JSON_BOOL) {
        v.set_bool_value(std::strcmp(p.value, "true") == 0);
        return;
    }
    if (p.in_type == kInBinary) {
        v.set_bytes_value(p.data, p.data_size);
        return;
    }
    if (p.flags & ETW_PROPERTY_JSON_NUMBER) {
        char *end = nullptr;
        errno = 0;
        if (p.in_type == kInFloat || p.in_type == kInDouble) {
            const double d = std::strtod(p.value, &end);
            if (*p.value && *end == '\0') {
                v.set_double_value(d);
                return;
            }
        } else {
            const long long i = std::strtoll(p.value, &end, 10);
            if (*p.value && *end == '\0' && errno == 0) {
                v.set_int_value(i);
                return;
            }
        }
    }
    v.set_string_value(p.value);
}

// Property i and its descendants into v (arrays as arrays, structs as
// key-value lists); returns the index after them.
std::uint32_t node(const etw_decoded_event &e, std::uint32_t i, AnyValue &v)
{
    const etw_event_property &p = e.properties[i];
    if (p.kind == ETW_PROPERTY_KIND_VALUE) {
        value_of(p, v);
        return i + 1;
    }
    const bool array = p.kind == ETW_PROPERTY_KIND_ARRAY;
    if (array)
        v.mutable_array_value();
    else
        v.mutable_kvlist_value();
    std::uint32_t next = i + 1;
    for (std::uint32_t k = 0; k < p.child_count && next < e.property_count; ++k) {
        if (array) {
            next = node(e, next, *v.mutable_array_value()->add_values());
        } else {
            KeyValue *kv = v.mutable_kvlist_value()->add_values();
            kv->set_key(e.properties[next].name);
            next = node(e, next, *kv->mutable_value());
        }
    }
    return next;
}

bool reserved_key(const char *name)
{
    return std::strncmp(name, "etw.", 4) == 0 || std::strcmp(name, "process.pid") == 0 ||
           std::strcmp(name, "thread.id") == 0;
}

} // namespace

std::uint64_t unix_nanos_of_filetime(std::int64_t filetime)
{
    if (filetime <= kUnixEpochFiletime)
        return 0;
    return std::uint64_t(filetime - kUnixEpochFiletime) * 100u;
}

void to_log_record(const etw_record &record, const etw_decoded_event *event, std::uint64_t observed_unix_nanos,
                   LogRecord &out)
{
    out.set_time_unix_nano(unix_nanos_of_filetime(record.timestamp));
    out.set_observed_time_unix_nano(observed_unix_nanos);
    const Severity severity = severity_of_level(record.level);
    out.set_severity_number(static_cast<opentelemetry::proto::logs::v1::SeverityNumber>(severity.number));
    out.set_severity_text(severity.text);

    const std::string guid = guid_text(record.guid);
    const bool named = event && *event->event_name;
    const bool provider_named = event && *event->provider_name;
    // The body is what a log viewer shows first: the event's name, else the
    // provider (by name or GUID) and the event's id.
    if (named)
        out.mutable_body()->set_string_value(event->event_name);
    else
        out.mutable_body()->set_string_value((provider_named ? std::string(event->provider_name) : guid) + " event " +
                                             std::to_string(record.event_id));

    put_string(out, "etw.provider.guid", guid);
    if (provider_named)
        put_string(out, "etw.provider.name", event->provider_name);
    if (named)
        put_string(out, "etw.event.name", event->event_name);
    put_int(out, "etw.event.id", record.event_id);
    put_int(out, "etw.event.version", record.version);
    put_int(out, "etw.event.level", record.level);
    put_int(out, "etw.event.opcode", record.opcode);
    put_int(out, "etw.event.task", record.task);
    char keyword[24];
    std::snprintf(keyword, sizeof keyword, "0x%llX", static_cast<unsigned long long>(record.keyword));
    put_string(out, "etw.event.keyword", keyword);
    if (event && *event->task_name)
        put_string(out, "etw.event.task_name", event->task_name);
    if (event && *event->opcode_name)
        put_string(out, "etw.event.opcode_name", event->opcode_name);
    put_int(out, "process.pid", record.process_id);
    put_int(out, "thread.id", record.thread_id);
    if (!event)
        return;
    // The fields under their own names, except one that would repeat a key
    // above (keys are unique in OTLP): that one is etw.field.NAME.
    for (std::uint32_t i = 0; i < event->property_count;) {
        const char *name = event->properties[i].name;
        KeyValue *kv = out.add_attributes();
        kv->set_key(reserved_key(name) ? std::string("etw.field.") + name : std::string(name));
        i = node(*event, i, *kv->mutable_value());
    }
}

} // namespace openetw::otlp
