// TDH's payload filters (openetw/win32/tdh.h) as OpenETW's PAYLOAD filter
// bytes (openetw/filter.h): a single filter is one etw_payload_filter tied
// to its event (ETW_PAYLOAD_FILTER_FLAG_EVENT); an aggregate chains them
// (ETW_PAYLOAD_FILTER_FLAG_NEXT) in one EVENT_FILTER_DESCRIPTOR. No schema:
// the predicates' form is checked here, the fields when events are written.
#include "common.hpp"

#include <openetw/win32/tdh.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace openetw_win32;

namespace {

constexpr std::uint32_t kSingleMagic = 0x46504454u;              // "TDPF"
constexpr std::uint64_t kAggregateMagic = 0x4147475244505444ull; // before an aggregate's bytes

// What TdhCreatePayloadFilter hands out as its opaque PVOID.
struct SingleFilter {
    std::uint32_t magic = kSingleMagic;
    GUID provider{};
    std::vector<std::uint8_t> bytes; // one etw_payload_filter, ETW_PAYLOAD_FILTER_FLAG_EVENT set
};

SingleFilter *single(PVOID p)
{
    auto *f = static_cast<SingleFilter *>(p);
    return f != nullptr && f->magic == kSingleMagic ? f : nullptr;
}

// "123", "-5" or "0x1F", the whole text: the values the engine compares as integers.
bool is_integer(const std::string &s, bool *zero)
{
    std::size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0;
    const bool hex = i == 0 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex)
        i = 2;
    if (i == s.size() || s.size() - i > (hex ? 16u : 19u))
        return false;
    bool all_zero = true;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        const bool digit = (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
        if (!digit)
            return false;
        all_zero = all_zero && c == '0';
    }
    *zero = all_zero;
    return true;
}

// Checks one predicate's operator and value the way EnableTraceEx2 will.
ULONG check_predicate(USHORT op, const std::string &value)
{
    bool zero = false;
    switch (op) {
    case PAYLOADFIELD_EQ:
    case PAYLOADFIELD_NE:
    case PAYLOADFIELD_LE:
    case PAYLOADFIELD_GT:
    case PAYLOADFIELD_LT:
    case PAYLOADFIELD_GE:
    case PAYLOADFIELD_CONTAINS:
    case PAYLOADFIELD_DOESNTCONTAIN:
        return ERROR_SUCCESS;
    case PAYLOADFIELD_BETWEEN:
    case PAYLOADFIELD_NOTBETWEEN: {
        const std::size_t comma = value.find(',');
        return comma != std::string::npos && is_integer(value.substr(0, comma), &zero) &&
                       is_integer(value.substr(comma + 1), &zero)
                   ? ERROR_SUCCESS
                   : ERROR_INVALID_PARAMETER;
    }
    case PAYLOADFIELD_MODULO:
        return is_integer(value, &zero) && !zero ? ERROR_SUCCESS : ERROR_INVALID_PARAMETER;
    case PAYLOADFIELD_IS:
    case PAYLOADFIELD_ISNOT:
        return ERROR_NOT_SUPPORTED; // a field's value map or a GUID: needs the schema these functions lack
    default:
        return ERROR_INVALID_PARAMETER;
    }
}

void put16(std::vector<std::uint8_t> &b, std::size_t at, std::uint16_t v) { std::memcpy(b.data() + at, &v, 2); }

void pad4(std::vector<std::uint8_t> &b)
{
    while (b.size() % 4)
        b.push_back(0);
}

} // namespace

OPENETW_WIN32_API TDHSTATUS TdhCreatePayloadFilter(LPCGUID provider, PCEVENT_DESCRIPTOR event, BOOLEAN match_any,
                                                   ULONG count, PPAYLOAD_FILTER_PREDICATE predicates, PVOID *out)
{
    if (out != nullptr)
        *out = nullptr;
    if (provider == nullptr || event == nullptr || predicates == nullptr || out == nullptr || count == 0 ||
        count > MAX_PAYLOAD_PREDICATES)
        return ERROR_INVALID_PARAMETER;
    std::vector<std::uint8_t> b(8, 0); // etw_payload_filter, etw_payload_filter_event
    put16(b, 0, std::uint16_t(count));
    b[2] = match_any ? 0 : 1;
    b[3] = ETW_PAYLOAD_FILTER_FLAG_EVENT;
    put16(b, 4, event->Id);
    b[6] = event->Version;
    for (ULONG i = 0; i < count; ++i) {
        const PAYLOAD_FILTER_PREDICATE &p = predicates[i];
        if (p.FieldName == nullptr || p.FieldName[0] == 0 || p.Value == nullptr)
            return ERROR_INVALID_PARAMETER;
        std::string name, value;
        if (name_to_utf8(Name{p.FieldName, true}, &name) != ERROR_SUCCESS ||
            name_to_utf8(Name{p.Value, true}, &value) != ERROR_SUCCESS)
            return ERROR_INVALID_PARAMETER;
        if (const ULONG st = check_predicate(p.CompareOp, value); st != ERROR_SUCCESS)
            return st;
        if (name.size() + value.size() + 2 > MAX_EVENT_FILTER_PAYLOAD_SIZE)
            return ERROR_INSUFFICIENT_BUFFER;
        pad4(b);
        const std::size_t at = b.size();
        b.resize(at + 8, 0); // etw_payload_filter_predicate
        put16(b, at, p.CompareOp);
        put16(b, at + 2, std::uint16_t(name.size() + 1));
        put16(b, at + 4, std::uint16_t(value.size() + 1));
        b.insert(b.end(), name.begin(), name.end());
        b.push_back(0);
        b.insert(b.end(), value.begin(), value.end());
        b.push_back(0);
    }
    if (b.size() > MAX_EVENT_FILTER_PAYLOAD_SIZE)
        return ERROR_INSUFFICIENT_BUFFER;
    auto *f = new (std::nothrow) SingleFilter;
    if (f == nullptr)
        return ERROR_NOT_ENOUGH_MEMORY;
    f->provider = *provider;
    f->bytes = std::move(b);
    *out = f;
    return ERROR_SUCCESS;
}

OPENETW_WIN32_API TDHSTATUS TdhDeletePayloadFilter(PVOID *filter)
{
    if (filter == nullptr)
        return ERROR_INVALID_PARAMETER;
    SingleFilter *f = single(*filter);
    if (f == nullptr)
        return ERROR_INVALID_PARAMETER;
    f->magic = 0;
    delete f;
    *filter = nullptr;
    return ERROR_SUCCESS;
}

OPENETW_WIN32_API TDHSTATUS TdhAggregatePayloadFilters(ULONG count, PVOID *filters, PBOOLEAN match_all_flags,
                                                       PEVENT_FILTER_DESCRIPTOR out)
{
    if (count == 0 || filters == nullptr || out == nullptr)
        return ERROR_INVALID_PARAMETER;
    std::vector<std::uint8_t> b;
    const SingleFilter *first = single(filters[0]);
    for (ULONG i = 0; i < count; ++i) {
        const SingleFilter *f = single(filters[i]);
        if (f == nullptr || first == nullptr || std::memcmp(&f->provider, &first->provider, sizeof(GUID)) != 0)
            return ERROR_INVALID_PARAMETER; // not TdhCreatePayloadFilter's, or another provider's
        pad4(b);
        const std::size_t at = b.size();
        b.insert(b.end(), f->bytes.begin(), f->bytes.end());
        if (match_all_flags != nullptr && match_all_flags[i])
            b[at + 3] |= ETW_PAYLOAD_FILTER_FLAG_ALL_FILTERS;
        if (i + 1 < count)
            b[at + 3] |= ETW_PAYLOAD_FILTER_FLAG_NEXT;
        if (b.size() > MAX_EVENT_FILTER_PAYLOAD_SIZE)
            return ERROR_INSUFFICIENT_BUFFER;
    }
    auto *mem = static_cast<std::uint8_t *>(std::malloc(sizeof kAggregateMagic + b.size()));
    if (mem == nullptr)
        return ERROR_NOT_ENOUGH_MEMORY;
    std::memcpy(mem, &kAggregateMagic, sizeof kAggregateMagic);
    std::memcpy(mem + sizeof kAggregateMagic, b.data(), b.size());
    out->Ptr = ULONGLONG(reinterpret_cast<ULONG_PTR>(mem + sizeof kAggregateMagic));
    out->Size = ULONG(b.size());
    out->Type = EVENT_FILTER_TYPE_PAYLOAD;
    return ERROR_SUCCESS;
}

OPENETW_WIN32_API TDHSTATUS TdhCleanupPayloadEventFilterDescriptor(PEVENT_FILTER_DESCRIPTOR d)
{
    if (d == nullptr || d->Type != EVENT_FILTER_TYPE_PAYLOAD || d->Ptr == 0)
        return ERROR_INVALID_PARAMETER;
    auto *mem = reinterpret_cast<std::uint8_t *>(static_cast<ULONG_PTR>(d->Ptr)) - sizeof kAggregateMagic;
    std::uint64_t magic;
    std::memcpy(&magic, mem, sizeof magic);
    if (magic != kAggregateMagic)
        return ERROR_INVALID_PARAMETER;
    std::memset(mem, 0, sizeof magic);
    std::free(mem);
    d->Ptr = 0;
    d->Size = 0;
    d->Type = EVENT_FILTER_TYPE_NONE;
    return ERROR_SUCCESS;
}
