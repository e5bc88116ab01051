#include "engine/event_filter.hpp"

#include <openetw/status.h>

#include <algorithm>
#include <cstring>

namespace openetw::engine {

namespace {

constexpr std::uint32_t kRecordHeader = 12; // type, size, scope

std::uint32_t rd32(const std::uint8_t *p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
std::uint16_t rd16(const std::uint8_t *p)
{
    std::uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
}

char fold(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
std::string folded(std::string s)
{
    for (char &c : s)
        c = fold(c);
    return s;
}

std::string hex(std::uint32_t v)
{
    static const char digits[] = "0123456789ABCDEF";
    std::string s = "0x";
    for (int i = 28; i >= 0; i -= 4)
        s += digits[(v >> i) & 0xF];
    return s;
}

// "filters[i] (EVENT_FILTER_TYPE_X)": how messages name a filter.
std::string named(std::uint32_t index, std::uint32_t type, FilterScope scope)
{
    const char *name = "an unknown type";
    switch (type) {
    case ETW_EVENT_FILTER_TYPE_SCHEMATIZED:
        name = "EVENT_FILTER_TYPE_SCHEMATIZED";
        break;
    case ETW_EVENT_FILTER_TYPE_PID:
        name = "EVENT_FILTER_TYPE_PID";
        break;
    case ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME:
        name = "EVENT_FILTER_TYPE_EXECUTABLE_NAME";
        break;
    case ETW_EVENT_FILTER_TYPE_PAYLOAD:
        name = "EVENT_FILTER_TYPE_PAYLOAD";
        break;
    case ETW_EVENT_FILTER_TYPE_EVENT_ID:
        name = "EVENT_FILTER_TYPE_EVENT_ID";
        break;
    case ETW_EVENT_FILTER_TYPE_EVENT_NAME:
        name = "EVENT_FILTER_TYPE_EVENT_NAME";
        break;
    case ETW_EVENT_FILTER_TYPE_STACKWALK:
        name = "EVENT_FILTER_TYPE_STACKWALK";
        break;
    default:
        break;
    }
    return std::string(scope == FilterScope::Session ? "session filter " : "filter ") + std::to_string(index) + " (" +
           name + ", Type " + hex(type) + ")";
}

// Parses "123", "-5" or "0x1F" (the whole text).
bool parse_int(const std::string &s, std::int64_t *out)
{
    if (s.empty())
        return false;
    std::size_t i = 0;
    bool negative = false;
    if (s[0] == '-') {
        negative = true;
        i = 1;
    }
    std::uint64_t v = 0;
    if (!negative && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        if (s.size() > 18)
            return false;
        for (i = 2; i < s.size(); ++i) {
            const char c = fold(s[i]);
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return false;
            v = v << 4 | std::uint64_t(d);
        }
        *out = std::int64_t(v);
        return true;
    }
    if (i == s.size())
        return false;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + std::uint64_t(s[i] - '0');
    }
    *out = negative ? -std::int64_t(v) : std::int64_t(v);
    return true;
}

Status bad(std::uint32_t index, std::uint32_t type, FilterScope scope, const std::string &what)
{
    return Fail(ETW_ERROR_INVALID_PARAMETER, named(index, type, scope) + ": " + what);
}

// Checks a PAYLOAD filter: one etw_payload_filter or several chained by
// ETW_PAYLOAD_FILTER_FLAG_NEXT (filter.h).
Status check_payload(std::uint32_t index, std::uint32_t type, const std::uint8_t *p, std::uint32_t size,
                     FilterScope scope)
{
    constexpr std::uint8_t kKnown =
        ETW_PAYLOAD_FILTER_FLAG_EVENT | ETW_PAYLOAD_FILTER_FLAG_NEXT | ETW_PAYLOAD_FILTER_FLAG_ALL_FILTERS;
    std::uint32_t at = 0;
    for (std::uint32_t k = 0;; ++k) {
        at = (at + 3) & ~3u;
        const std::string unit = k == 0 ? std::string() : "aggregated filter " + std::to_string(k) + ": ";
        if (at + 4 > size)
            return bad(index, type, scope,
                       unit + "Size " + std::to_string(size) + " ends before etw_payload_filter's 4 bytes");
        const std::uint16_t count = rd16(p + at);
        const std::uint8_t flags = p[at + 3];
        if (count == 0 || count > ETW_MAX_PAYLOAD_PREDICATES)
            return bad(index, type, scope,
                       unit + "predicate_count is " + std::to_string(count) +
                           "; 1 to MAX_PAYLOAD_PREDICATES (8) are taken");
        if (p[at + 2] > 1)
            return bad(index, type, scope, unit + "match_all must be 0 or 1");
        if ((flags & ~kKnown) != 0 ||
            ((flags & ETW_PAYLOAD_FILTER_FLAG_ALL_FILTERS) && !(flags & ETW_PAYLOAD_FILTER_FLAG_EVENT)))
            return bad(index, type, scope,
                       unit + "flags " + std::to_string(flags) +
                           ": only ETW_PAYLOAD_FILTER_FLAG_EVENT, _NEXT and _ALL_FILTERS (with EVENT) are defined");
        at += 4;
        if (flags & ETW_PAYLOAD_FILTER_FLAG_EVENT) {
            if (at + 4 > size || p[at + 3] != 0)
                return bad(index, type, scope,
                           unit + "its etw_payload_filter_event lies beyond Size or is not reserved 0");
            at += 4;
        }
        for (std::uint16_t n = 0; n < count; ++n) {
            at = (at + 3) & ~3u;
            const std::string which = unit + "predicate " + std::to_string(n);
            if (at + 8 > size)
                return bad(index, type, scope, which + " lies beyond Size");
            const std::uint16_t op = rd16(p + at), name_size = rd16(p + at + 2), value_size = rd16(p + at + 4);
            if (op == ETW_PAYLOADFIELD_IS || op == ETW_PAYLOADFIELD_ISNOT)
                return Fail(ETW_ERROR_NOT_SUPPORTED, named(index, type, scope) + ": " + which + ": operator " +
                                                         std::to_string(op) +
                                                         " (IS, ISNOT: a field's value map) is not implemented");
            if (op > ETW_PAYLOADFIELD_MODULO && op != ETW_PAYLOADFIELD_CONTAINS && op != ETW_PAYLOADFIELD_DOESNTCONTAIN)
                return bad(index, type, scope,
                           which + ": compare_op " + std::to_string(op) + " is no PAYLOAD_OPERATOR");
            at += 8;
            if (name_size < 2 || value_size < 2 || std::uint64_t(at) + name_size + value_size > size)
                return bad(index, type, scope,
                           which + ": its name and value (name_size " + std::to_string(name_size) + ", value_size " +
                               std::to_string(value_size) + ") are empty or lie beyond Size");
            if (p[at + name_size - 1] != 0 || std::memchr(p + at, 0, name_size - 1) != nullptr ||
                p[at + name_size + value_size - 1] != 0 ||
                std::memchr(p + at + name_size, 0, value_size - 1) != nullptr)
                return bad(index, type, scope, which + ": its name and value must each end in their only NUL");
            const std::string value(reinterpret_cast<const char *>(p + at + name_size), value_size - 1u);
            std::int64_t lo, hi;
            if (op == ETW_PAYLOADFIELD_BETWEEN || op == ETW_PAYLOADFIELD_NOTBETWEEN) {
                const std::size_t comma = value.find(',');
                if (comma == std::string::npos || !parse_int(value.substr(0, comma), &lo) ||
                    !parse_int(value.substr(comma + 1), &hi))
                    return bad(index, type, scope, which + ": BETWEEN and NOTBETWEEN take \"low,high\" integers");
            }
            if (op == ETW_PAYLOADFIELD_MODULO && (!parse_int(value, &lo) || lo == 0))
                return bad(index, type, scope, which + ": MODULO takes one integer other than 0");
            at += name_size + value_size;
        }
        if (!(flags & ETW_PAYLOAD_FILTER_FLAG_NEXT))
            return Status::ok();
    }
}

// Checks one filter's payload (p, size: its bytes) as EnableTraceEx2 does.
Status check_one(std::uint32_t index, std::uint32_t type, const std::uint8_t *p, std::uint32_t size, FilterScope scope)
{
    std::uint32_t limit = ETW_MAX_EVENT_FILTER_DATA_SIZE;
    switch (type) {
    case ETW_EVENT_FILTER_TYPE_PID:
    case ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME:
        break;
    case ETW_EVENT_FILTER_TYPE_SCHEMATIZED:
    case ETW_EVENT_FILTER_TYPE_EVENT_ID:
    case ETW_EVENT_FILTER_TYPE_STACKWALK:
        break;
    case ETW_EVENT_FILTER_TYPE_EVENT_NAME:
        limit = ETW_MAX_EVENT_FILTER_EVENT_NAME_SIZE;
        break;
    case ETW_EVENT_FILTER_TYPE_PAYLOAD:
        limit = ETW_MAX_EVENT_FILTER_PAYLOAD_SIZE;
        break;
    case ETW_EVENT_FILTER_TYPE_SYSTEM_FLAGS:
    case ETW_EVENT_FILTER_TYPE_TRACEHANDLE:
    case ETW_EVENT_FILTER_TYPE_PACKAGE_ID:
    case ETW_EVENT_FILTER_TYPE_PACKAGE_APP_ID:
    case ETW_EVENT_FILTER_TYPE_STACKWALK_NAME:
    case ETW_EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW:
    case ETW_EVENT_FILTER_TYPE_CONTAINER:
        return Fail(ETW_ERROR_NOT_SUPPORTED,
                    named(index, type, scope) + ": OpenETW does not implement this filter type");
    default:
        return bad(index, type, scope, "not a filter type EnableTraceEx2 takes");
    }
    if (scope == FilterScope::Session && type != ETW_EVENT_FILTER_TYPE_PID &&
        type != ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME)
        return Fail(ETW_ERROR_NOT_SUPPORTED, named(index, type, scope) +
                                                 ": a session's own filters (EVENT_TRACE_PROPERTIES_V2.FilterDesc) "
                                                 "are PID and EXECUTABLE_NAME only");
    if (size == 0)
        return bad(index, type, scope, "Size is 0");
    if (size > limit)
        return bad(index, type, scope,
                   "Size " + std::to_string(size) + " is above its limit of " + std::to_string(limit));
    switch (type) {
    case ETW_EVENT_FILTER_TYPE_PID:
        if (size % 4 != 0)
            return bad(index, type, scope, "Size " + std::to_string(size) + " is not a whole number of 4-byte ids");
        if (size / 4 > ETW_MAX_EVENT_FILTER_PID_COUNT)
            return bad(index, type, scope,
                       std::to_string(size / 4) + " ids; at most MAX_EVENT_FILTER_PID_COUNT (8) are taken");
        break;
    case ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME: {
        if (size % 2 != 0 || size < 4 || rd16(p + size - 2) != 0)
            return bad(index, type, scope, "the names must be one NUL-terminated UTF-16 string, not empty");
        for (std::uint32_t i = 0; i + 2 < size; i += 2)
            if (rd16(p + i) == 0)
                return bad(index, type, scope, "a NUL before the end of the names (separate them with ';')");
        break;
    }
    case ETW_EVENT_FILTER_TYPE_EVENT_ID:
    case ETW_EVENT_FILTER_TYPE_STACKWALK: {
        if (size < 4)
            return bad(index, type, scope,
                       "Size " + std::to_string(size) + " is below EVENT_FILTER_EVENT_ID's 4 bytes");
        const std::uint16_t count = rd16(p + 2);
        if (count == 0 || count > ETW_MAX_EVENT_FILTER_EVENT_ID_COUNT)
            return bad(index, type, scope,
                       "Count is " + std::to_string(count) + "; 1 to MAX_EVENT_FILTER_EVENT_ID_COUNT (64) are taken");
        if (size < 4u + 2u * count)
            return bad(index, type, scope,
                       "Size " + std::to_string(size) + " does not hold Count " + std::to_string(count) + " ids");
        break;
    }
    case ETW_EVENT_FILTER_TYPE_EVENT_NAME: {
        if (size < 20)
            return bad(index, type, scope,
                       "Size " + std::to_string(size) + " is below EVENT_FILTER_EVENT_NAME's 20 bytes");
        const std::uint16_t count = rd16(p + 18);
        if (count == 0)
            return bad(index, type, scope, "NameCount is 0");
        std::uint32_t at = 20;
        for (std::uint16_t n = 0; n < count; ++n) {
            const void *nul = at < size ? std::memchr(p + at, 0, size - at) : nullptr;
            if (nul == nullptr)
                return bad(index, type, scope,
                           "name " + std::to_string(n) + " of " + std::to_string(count) +
                               " is not NUL-terminated within Size");
            const std::uint32_t end = std::uint32_t(static_cast<const std::uint8_t *>(nul) - p);
            if (end == at)
                return bad(index, type, scope, "name " + std::to_string(n) + " is empty");
            at = end + 1;
        }
        break;
    }
    case ETW_EVENT_FILTER_TYPE_PAYLOAD:
        return check_payload(index, type, p, size, scope);
    default:
        break;
    }
    return Status::ok();
}

} // namespace

Status pack_filters(const etw_event_filter_descriptor *filters, std::uint32_t count, FilterScope scope,
                    std::vector<std::uint8_t> *blob)
{
    if (count == 0)
        return Status::ok();
    if (filters == nullptr)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the filter array is NULL but its count is " + std::to_string(count));
    if (count > ETW_MAX_EVENT_FILTERS_COUNT)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    std::to_string(count) + " filters; at most MAX_EVENT_FILTERS_COUNT (13) are taken");
    std::vector<std::uint8_t> out = *blob;
    for (std::uint32_t i = 0; i < count; ++i) {
        const etw_event_filter_descriptor &d = filters[i];
        for (std::uint32_t j = 0; j < i; ++j)
            if (filters[j].Type == d.Type)
                return bad(i, d.Type, scope, "the type is given twice (filter " + std::to_string(j) + " too)");
        if (d.Ptr == 0)
            return bad(i, d.Type, scope, "Ptr is NULL");
        const auto *p = reinterpret_cast<const std::uint8_t *>(static_cast<std::uintptr_t>(d.Ptr));
        if (Status st = check_one(i, d.Type, p, d.Size, scope); !st)
            return st;
        const std::uint32_t head[3] = {d.Type, d.Size, std::uint32_t(scope)};
        const std::size_t at = out.size();
        out.resize(at + kRecordHeader + ((d.Size + 3u) & ~3u), 0);
        std::memcpy(out.data() + at, head, sizeof head);
        std::memcpy(out.data() + at + kRecordHeader, p, d.Size);
    }
    *blob = std::move(out);
    return Status::ok();
}

void EventFilter::IdSet::add(std::uint16_t id)
{
    if (bits.empty())
        bits.assign(65536 / 64, 0);
    bits[id >> 6] |= 1ull << (id & 63);
}

Status EventFilter::parse(const std::vector<std::uint8_t> &blob, std::shared_ptr<const EventFilter> *out)
{
    out->reset();
    if (blob.empty())
        return Status::ok();
    auto f = std::make_shared<EventFilter>();
    f->blob_ = blob;
    const std::uint8_t *b = f->blob_.data();
    const std::size_t n = f->blob_.size();
    std::uint32_t seen[2][16] = {};
    std::uint32_t seen_count[2] = {0, 0};
    for (std::size_t at = 0, index = 0; at < n; ++index) {
        if (n - at < kRecordHeader)
            return Fail(ETW_ERROR_INVALID_DATA, "the filter blob ends inside a record header");
        const std::uint32_t type = rd32(b + at), size = rd32(b + at + 4), scope_word = rd32(b + at + 8);
        if (scope_word > 1 || size > ETW_MAX_EVENT_FILTER_PAYLOAD_SIZE || n - at - kRecordHeader < size)
            return Fail(ETW_ERROR_INVALID_DATA, "a filter record of the blob is damaged");
        const auto scope = FilterScope(scope_word);
        const std::uint8_t *p = b + at + kRecordHeader;
        if (Status st = check_one(std::uint32_t(index), type, p, size, scope); !st)
            return st;
        for (std::uint32_t k = 0; k < seen_count[scope_word]; ++k)
            if (seen[scope_word][k] == type)
                return Fail(ETW_ERROR_INVALID_DATA, "the filter blob gives a type twice");
        if (seen_count[scope_word] >= 16)
            return Fail(ETW_ERROR_INVALID_DATA, "the filter blob holds too many filters");
        seen[scope_word][seen_count[scope_word]++] = type;
        switch (type) {
        case ETW_EVENT_FILTER_TYPE_PID:
            for (std::uint32_t i = 0; i < size; i += 4)
                f->pids_[scope_word].push_back(rd32(p + i));
            break;
        case ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME: {
            std::string name;
            auto flush = [&] {
                if (!name.empty())
                    f->executables_[scope_word].push_back(folded(name));
                name.clear();
            };
            for (std::uint32_t i = 0; i + 2 < size; i += 2) {
                std::uint32_t c = rd16(p + i);
                if (c >= 0xD800 && c < 0xDC00 && i + 4 < size) { // a surrogate pair
                    const std::uint32_t lo = rd16(p + i + 2);
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                        i += 2;
                    }
                }
                if (c == ';') {
                    flush();
                } else if (c < 0x80) {
                    name += char(c);
                } else if (c < 0x800) {
                    name += char(0xC0 | (c >> 6));
                    name += char(0x80 | (c & 0x3F));
                } else if (c < 0x10000) {
                    name += char(0xE0 | (c >> 12));
                    name += char(0x80 | ((c >> 6) & 0x3F));
                    name += char(0x80 | (c & 0x3F));
                } else {
                    name += char(0xF0 | (c >> 18));
                    name += char(0x80 | ((c >> 12) & 0x3F));
                    name += char(0x80 | ((c >> 6) & 0x3F));
                    name += char(0x80 | (c & 0x3F));
                }
            }
            flush();
            if (f->executables_[scope_word].empty())
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            named(std::uint32_t(index), type, scope) + ": no executable name between the ';'");
            break;
        }
        case ETW_EVENT_FILTER_TYPE_EVENT_ID:
        case ETW_EVENT_FILTER_TYPE_STACKWALK: {
            IdSet &set = type == ETW_EVENT_FILTER_TYPE_EVENT_ID ? f->event_ids_ : f->stack_ids_;
            set.present = true;
            set.filter_in = p[0] != 0;
            const std::uint16_t count = rd16(p + 2);
            for (std::uint16_t i = 0; i < count; ++i)
                set.add(rd16(p + 4 + 2 * i));
            if (type == ETW_EVENT_FILTER_TYPE_EVENT_ID)
                f->per_event_ = true;
            break;
        }
        case ETW_EVENT_FILTER_TYPE_EVENT_NAME: {
            f->has_names_ = true;
            std::memcpy(&f->names_any_, p, 8);
            std::memcpy(&f->names_all_, p + 8, 8);
            f->names_level_ = p[16];
            f->names_in_ = p[17] != 0;
            const std::uint16_t count = rd16(p + 18);
            std::uint32_t at2 = 20;
            for (std::uint16_t i = 0; i < count; ++i) {
                const std::string name(reinterpret_cast<const char *>(p + at2));
                f->names_.push_back(name);
                at2 += std::uint32_t(name.size()) + 1;
            }
            f->per_event_ = true;
            break;
        }
        case ETW_EVENT_FILTER_TYPE_PAYLOAD: {
            // (check_payload passed: the walk needs no bounds tests.)
            std::uint32_t at2 = 0;
            for (bool more = true; more;) {
                at2 = (at2 + 3) & ~3u;
                PayloadGroup g;
                const std::uint16_t count = rd16(p + at2);
                g.match_all = p[at2 + 2] != 0;
                const std::uint8_t flags = p[at2 + 3];
                more = (flags & ETW_PAYLOAD_FILTER_FLAG_NEXT) != 0;
                at2 += 4;
                if (flags & ETW_PAYLOAD_FILTER_FLAG_EVENT) {
                    g.scoped = true;
                    g.id = rd16(p + at2);
                    g.version = p[at2 + 2];
                    g.all_filters = (flags & ETW_PAYLOAD_FILTER_FLAG_ALL_FILTERS) != 0;
                    at2 += 4;
                }
                g.first = std::uint32_t(f->predicates_.size());
                g.count = count;
                for (std::uint16_t i = 0; i < count; ++i) {
                    at2 = (at2 + 3) & ~3u;
                    Predicate pr;
                    pr.op = rd16(p + at2);
                    const std::uint16_t name_size = rd16(p + at2 + 2), value_size = rd16(p + at2 + 4);
                    at2 += 8;
                    pr.field.assign(reinterpret_cast<const char *>(p + at2), name_size - 1u);
                    pr.text.assign(reinterpret_cast<const char *>(p + at2 + name_size), value_size - 1u);
                    at2 += name_size + value_size;
                    if (pr.op == ETW_PAYLOADFIELD_BETWEEN || pr.op == ETW_PAYLOADFIELD_NOTBETWEEN) {
                        const std::size_t comma = pr.text.find(',');
                        pr.numeric =
                            parse_int(pr.text.substr(0, comma), &pr.lo) && parse_int(pr.text.substr(comma + 1), &pr.hi);
                    } else {
                        pr.numeric = parse_int(pr.text, &pr.lo);
                        pr.hi = pr.lo;
                    }
                    pr.text = folded(pr.text); // string comparisons ignore case (PAYLOAD_FILTER_PREDICATE)
                    f->predicates_.push_back(std::move(pr));
                }
                f->payloads_.push_back(g);
            }
            f->per_event_ = true;
            break;
        }
        case ETW_EVENT_FILTER_TYPE_SCHEMATIZED:
            f->schematized_bytes_.assign(p, p + size);
            f->schematized_.Size = size;
            f->schematized_.Type = type;
            break;
        default:
            break;
        }
        at += kRecordHeader + ((size + 3u) & ~3u);
    }
    if (!f->schematized_bytes_.empty())
        f->schematized_.Ptr = std::uint64_t(reinterpret_cast<std::uintptr_t>(f->schematized_bytes_.data()));
    f->count_ = seen_count[0] + seen_count[1];
    *out = std::move(f);
    return Status::ok();
}

bool EventFilter::admits_process(std::uint32_t pid, const std::string &executable) const
{
    const std::string exe = folded(executable);
    for (int scope = 0; scope < 2; ++scope) {
        if (!pids_[scope].empty() && std::find(pids_[scope].begin(), pids_[scope].end(), pid) == pids_[scope].end())
            return false;
        if (executables_[scope].empty())
            continue;
        bool found = false;
        for (const std::string &name : executables_[scope]) {
            // "app.exe" names the executable "app" too, where executables have no extension.
            found = found || name == exe ||
                    (name.size() > 4 && name.compare(name.size() - 4, 4, ".exe") == 0 &&
                     name.compare(0, name.size() - 4, exe) == 0 && exe.size() == name.size() - 4);
        }
        if (!found)
            return false;
    }
    return true;
}

bool EventFilter::stack_for(std::uint16_t event_id) const noexcept
{
    if (!stack_ids_.present)
        return true;
    return stack_ids_.contains(event_id) == stack_ids_.filter_in;
}

} // namespace openetw::engine
