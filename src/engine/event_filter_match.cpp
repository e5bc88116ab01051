// EventFilter's per-event decisions: EVENT_ID, EVENT_NAME and PAYLOAD
// (docs/FILTERS.md). A TraceLogging event names itself and describes its
// fields in its event-metadata data descriptor (TraceLoggingProvider.h):
//   UINT16 Size, UINT8 Extension[] (chained by bit 7), char EventName[],
//   then per field: char Name[], UINT8 InType (bits 0-4 the type, 0x20 a
//   constant count follows, 0x40 a UINT16 count precedes the values, 0x60 a
//   custom schema follows, 0x80 OutType follows), [UINT8 OutType (0x80: tag
//   bytes follow, chained by bit 7)], [UINT16 count], [UINT16 size, schema].
// The values are the other descriptors' bytes, in field order. Everything
// here runs on the writer's thread: no allocation, no lock.
#include "engine/event_filter.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::engine {

namespace {

constexpr std::uint8_t kInCount = 0x60, kInCcount = 0x20, kInVcount = 0x40, kInChain = 0x80;

enum TlgIn : std::uint8_t {
    InUnicodeString = 1,
    InAnsiString = 2,
    InInt8 = 3,
    InUInt8 = 4,
    InInt16 = 5,
    InUInt16 = 6,
    InInt32 = 7,
    InUInt32 = 8,
    InInt64 = 9,
    InUInt64 = 10,
    InFloat = 11,
    InDouble = 12,
    InBool32 = 13,
    InBinary = 14,
    InGuid = 15,
    InFileTime = 17,
    InSystemTime = 18,
    InSid = 19,
    InHexInt32 = 20,
    InHexInt64 = 21,
    InCountedString = 22,
    InCountedAnsiString = 23,
    InStruct = 24,
    InCountedBinary = 25,
};

std::uint32_t descriptor_type(const etw_event_data_descriptor &d) { return d.Reserved & 0xFF; }

// The event's payload bytes: the data descriptors of type NONE, read as one stream.
class Payload {
public:
    Payload(std::uint32_t count, const etw_event_data_descriptor *data) : count_(count), data_(data) { next(); }
    // Copies n bytes into out (null: skips them); false past the end.
    bool read(void *out, std::uint32_t n) noexcept
    {
        auto *o = static_cast<std::uint8_t *>(out);
        while (n > 0) {
            if (index_ >= count_)
                return false;
            const std::uint32_t take = std::min(n, left_);
            if (o) {
                std::memcpy(o, pos_, take);
                o += take;
            }
            pos_ += take;
            left_ -= take;
            n -= take;
            if (left_ == 0) {
                ++index_;
                next();
            }
        }
        return true;
    }
    // Reads a NUL-terminated string of unit-byte characters; up to cap bytes
    // of it into out (*len: how many); false past the end.
    bool read_string(unsigned unit, char *out, std::uint32_t cap, std::uint32_t *len) noexcept
    {
        *len = 0;
        for (;;) {
            std::uint8_t c[2] = {0, 0};
            if (!read(c, unit))
                return false;
            const std::uint32_t ch = unit == 1 ? c[0] : std::uint32_t(c[0] | c[1] << 8);
            if (ch == 0)
                return true;
            if (out)
                append(ch, out, cap, len);
        }
    }
    // UTF-16 units as UTF-8 (surrogates kept apart: compared as given); ASCII bytes as they are.
    static void append(std::uint32_t ch, char *out, std::uint32_t cap, std::uint32_t *len) noexcept
    {
        char tmp[3];
        std::uint32_t n = 0;
        if (ch < 0x80) {
            tmp[n++] = char(ch);
        } else if (ch < 0x800) {
            tmp[n++] = char(0xC0 | (ch >> 6));
            tmp[n++] = char(0x80 | (ch & 0x3F));
        } else {
            tmp[n++] = char(0xE0 | (ch >> 12));
            tmp[n++] = char(0x80 | ((ch >> 6) & 0x3F));
            tmp[n++] = char(0x80 | (ch & 0x3F));
        }
        for (std::uint32_t i = 0; i < n; ++i) {
            if (*len < cap)
                out[*len] = tmp[i];
            ++*len; // counts past cap: the caller sees the string did not fit
        }
    }

private:
    void next() noexcept
    {
        while (index_ < count_ &&
               (descriptor_type(data_[index_]) != ETW_EVENT_DATA_DESCRIPTOR_TYPE_NONE || data_[index_].Size == 0))
            ++index_;
        if (index_ < count_) {
            pos_ = reinterpret_cast<const std::uint8_t *>(static_cast<std::uintptr_t>(data_[index_].Ptr));
            left_ = data_[index_].Size;
        }
    }
    std::uint32_t count_;
    const etw_event_data_descriptor *data_;
    std::uint32_t index_ = 0;
    const std::uint8_t *pos_ = nullptr;
    std::uint32_t left_ = 0;
};

// The size of one value of a fixed-size type; 0 for the others.
std::uint32_t fixed_size(std::uint8_t type) noexcept
{
    switch (type) {
    case InInt8:
    case InUInt8:
        return 1;
    case InInt16:
    case InUInt16:
        return 2;
    case InInt32:
    case InUInt32:
    case InFloat:
    case InBool32:
    case InHexInt32:
        return 4;
    case InInt64:
    case InUInt64:
    case InDouble:
    case InFileTime:
    case InHexInt64:
        return 8;
    case InGuid:
    case InSystemTime:
        return 16;
    default:
        return 0;
    }
}

// Skips one value of type; false when the type is unknown or the data ends.
bool skip_value(Payload &pl, std::uint8_t type) noexcept
{
    if (const std::uint32_t n = fixed_size(type))
        return pl.read(nullptr, n);
    std::uint32_t len = 0;
    switch (type) {
    case InUnicodeString:
        return pl.read_string(2, nullptr, 0, &len);
    case InAnsiString:
        return pl.read_string(1, nullptr, 0, &len);
    case InBinary:
    case InCountedString:
    case InCountedAnsiString:
    case InCountedBinary: {
        std::uint16_t bytes;
        return pl.read(&bytes, 2) && pl.read(nullptr, bytes);
    }
    case InSid: {
        std::uint8_t head[8];
        return pl.read(head, 8) && pl.read(nullptr, 4u * head[1]);
    }
    default:
        return false;
    }
}

// Metadata cursor: the event's name, then its fields one by one.
struct Field {
    const char *name;
    std::uint8_t type;
    std::uint8_t counting; // 0, kInCcount, kInVcount, kInCount (custom)
    std::uint16_t ccount;
    std::uint8_t members; // a struct's member count
};

class Meta {
public:
    Meta(const std::uint8_t *m, std::uint32_t size) noexcept : m_(m)
    {
        if (size < 3)
            return;
        std::uint16_t declared;
        std::memcpy(&declared, m, 2);
        end_ = declared < size ? declared : size;
        pos_ = 2;
        while (pos_ < end_ && (m_[pos_] & 0x80))
            ++pos_;
        ++pos_; // the last extension byte
        name_ = cstr();
    }
    const char *event_name() const noexcept { return name_; }
    bool next(Field *f) noexcept
    {
        const char *name = cstr();
        if (name == nullptr || pos_ >= end_)
            return false;
        const std::uint8_t in = m_[pos_++];
        f->name = name;
        f->type = in & 0x1F;
        f->counting = in & kInCount;
        f->ccount = 0;
        f->members = 0;
        if (in & kInChain) {
            if (pos_ >= end_)
                return false;
            const std::uint8_t out = m_[pos_++];
            f->members = out & 0x7F;
            if (out & 0x80) {
                std::uint8_t tag = 0x80;
                for (int k = 0; k < 4 && (tag & 0x80); ++k) {
                    if (pos_ >= end_)
                        return false;
                    tag = m_[pos_++];
                }
            }
        }
        if (f->counting == kInCcount || f->counting == kInCount) {
            if (pos_ + 2 > end_)
                return false;
            std::memcpy(&f->ccount, m_ + pos_, 2);
            pos_ += 2;
            if (f->counting == kInCount) { // custom: a schema of ccount bytes
                if (pos_ + f->ccount > end_)
                    return false;
                pos_ += f->ccount;
            }
        }
        return true;
    }

private:
    const char *cstr() noexcept
    {
        if (pos_ >= end_)
            return nullptr;
        const void *nul = std::memchr(m_ + pos_, 0, end_ - pos_);
        if (nul == nullptr)
            return nullptr;
        const char *s = reinterpret_cast<const char *>(m_ + pos_);
        pos_ = std::uint32_t(static_cast<const std::uint8_t *>(nul) - m_) + 1;
        return s;
    }
    const std::uint8_t *m_;
    std::uint32_t pos_ = 0, end_ = 0;
    const char *name_ = nullptr;
};

bool keyword_matches(std::uint64_t keyword, std::uint64_t any, std::uint64_t all) noexcept
{
    return any == 0 || keyword == 0 || ((keyword & any) != 0 && (keyword & all) == all);
}

bool is_signed(std::uint8_t type) noexcept
{
    return type == InInt8 || type == InInt16 || type == InInt32 || type == InInt64;
}

bool integer_type(std::uint8_t type) noexcept
{
    return (type >= InInt8 && type <= InUInt64) || type == InBool32 || type == InHexInt32 || type == InHexInt64;
}

bool compare_integer(const EventFilter::Predicate &p, std::uint8_t type, std::uint64_t raw) noexcept
{
    if (!p.numeric)
        return false;
    const unsigned bits = fixed_size(type) * 8;
    if (bits < 64 && is_signed(type) && (raw >> (bits - 1)) & 1)
        raw |= ~0ull << bits; // sign-extend
    auto cmp = [&](std::int64_t v) -> int {
        if (is_signed(type)) {
            const std::int64_t x = std::int64_t(raw);
            return x < v ? -1 : x > v ? 1 : 0;
        }
        const std::uint64_t y = std::uint64_t(v);
        return raw < y ? -1 : raw > y ? 1 : 0;
    };
    switch (p.op) {
    case ETW_PAYLOADFIELD_EQ:
        return cmp(p.lo) == 0;
    case ETW_PAYLOADFIELD_NE:
        return cmp(p.lo) != 0;
    case ETW_PAYLOADFIELD_LE:
        return cmp(p.lo) <= 0;
    case ETW_PAYLOADFIELD_GT:
        return cmp(p.lo) > 0;
    case ETW_PAYLOADFIELD_LT:
        return cmp(p.lo) < 0;
    case ETW_PAYLOADFIELD_GE:
        return cmp(p.lo) >= 0;
    case ETW_PAYLOADFIELD_BETWEEN:
        return cmp(p.lo) >= 0 && cmp(p.hi) <= 0;
    case ETW_PAYLOADFIELD_NOTBETWEEN:
        return cmp(p.lo) < 0 || cmp(p.hi) > 0;
    case ETW_PAYLOADFIELD_MODULO: // periodic sampling: a multiple of the value (never 0: refused when parsed)
        if (is_signed(type))
            return p.lo == -1 || std::int64_t(raw) % p.lo == 0;
        return raw % (p.lo < 0 ? std::uint64_t(0) - std::uint64_t(p.lo) : std::uint64_t(p.lo)) == 0;
    default:
        return false;
    }
}

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

// Whether n bytes of a and b are equal, ASCII letters in any case (b is folded already).
bool same_text(const char *a, const char *b, std::size_t n) noexcept
{
    for (std::size_t i = 0; i < n; ++i)
        if (lower(a[i]) != b[i])
            return false;
    return true;
}

// Strings compare case-insensitively (PAYLOAD_FILTER_PREDICATE's remarks);
// p.text is folded when parsed.
bool compare_string(const EventFilter::Predicate &p, const char *s, std::uint32_t len) noexcept
{
    const std::string &v = p.text;
    switch (p.op) {
    case ETW_PAYLOADFIELD_EQ:
        return len == v.size() && same_text(s, v.data(), len);
    case ETW_PAYLOADFIELD_NE:
        return !(len == v.size() && same_text(s, v.data(), len));
    case ETW_PAYLOADFIELD_CONTAINS:
    case ETW_PAYLOADFIELD_DOESNTCONTAIN: {
        bool found = v.empty();
        for (std::uint32_t i = 0; !found && i + v.size() <= len; ++i)
            found = same_text(s + i, v.data(), v.size());
        return found == (p.op == ETW_PAYLOADFIELD_CONTAINS);
    }
    default:
        return false;
    }
}

constexpr std::uint32_t kStringMax = 512; // longest string value a predicate compares

// Whether predicate p holds for the event (its field found by name).
bool holds(const EventFilter::Predicate &p, const std::uint8_t *meta, std::uint32_t meta_size, std::uint32_t data_count,
           const etw_event_data_descriptor *data) noexcept
{
    Meta m(meta, meta_size);
    Payload pl(data_count, data);
    Field f;
    while (m.next(&f)) {
        const bool target = std::strcmp(f.name, p.field.c_str()) == 0;
        if (f.type == InStruct) {
            if (f.counting != 0 || target)
                return false; // arrays of structs and whole structs are not compared
            continue;         // its members follow as fields
        }
        std::uint32_t count = 1;
        if (f.counting == kInVcount) {
            std::uint16_t n;
            if (!pl.read(&n, 2))
                return false;
            count = n;
        } else if (f.counting == kInCcount) {
            count = f.ccount;
        } else if (f.counting == kInCount) {
            if (target)
                return false;
            std::uint16_t n; // a custom-serialized value: its byte count, then the bytes
            if (!pl.read(&n, 2) || !pl.read(nullptr, n))
                return false;
            continue;
        }
        if (target) {
            if (count != 1)
                return false; // arrays are not compared
            if (integer_type(f.type)) {
                std::uint64_t raw = 0;
                if (!pl.read(&raw, fixed_size(f.type)))
                    return false;
                return compare_integer(p, f.type, raw);
            }
            char text[kStringMax];
            std::uint32_t len = 0;
            if (f.type == InUnicodeString || f.type == InAnsiString) {
                if (!pl.read_string(f.type == InUnicodeString ? 2 : 1, text, kStringMax, &len))
                    return false;
            } else if (f.type == InCountedString || f.type == InCountedAnsiString) {
                std::uint16_t bytes;
                if (!pl.read(&bytes, 2))
                    return false;
                const unsigned unit = f.type == InCountedString ? 2 : 1;
                for (std::uint32_t i = 0; i + unit <= bytes; i += unit) {
                    std::uint8_t c[2] = {0, 0};
                    if (!pl.read(c, unit))
                        return false;
                    Payload::append(unit == 1 ? c[0] : std::uint32_t(c[0] | c[1] << 8), text, kStringMax, &len);
                }
            } else {
                return false;
            }
            return len <= kStringMax && compare_string(p, text, len);
        }
        for (std::uint32_t i = 0; i < count; ++i)
            if (!skip_value(pl, f.type))
                return false;
    }
    return false; // the event has no such field
}

} // namespace

bool EventFilter::names_admit(const etw_event_descriptor &d, const std::uint8_t *meta,
                              std::uint32_t meta_size) const noexcept
{
    // Events outside the filter's level and keywords pass as the session decides.
    if ((names_level_ != 0 && d.Level > names_level_) || !keyword_matches(d.Keyword, names_any_, names_all_))
        return true;
    const char *name = meta ? Meta(meta, meta_size).event_name() : nullptr;
    bool listed = false;
    if (name != nullptr)
        for (const std::string &n : names_)
            listed = listed || std::strcmp(n.c_str(), name) == 0;
    return listed == names_in_;
}

bool EventFilter::payload_admits(const etw_event_descriptor &d, const std::uint8_t *meta, std::uint32_t meta_size,
                                 std::uint32_t data_count, const etw_event_data_descriptor *data) const noexcept
{
    if (meta == nullptr)
        return true; // not self-describing: the payload filter does not apply
    // Filters without an event hold for every event; those of the event's Id
    // and Version: every ALL_FILTERS one, and one of the others (filter.h).
    bool others = false, other_held = false;
    for (const PayloadGroup &g : payloads_) {
        if (g.scoped && (g.id != d.Id || g.version != d.Version))
            continue;
        bool h = g.match_all;
        for (std::uint32_t i = g.first; i < g.first + g.count; ++i) {
            const bool one = holds(predicates_[i], meta, meta_size, data_count, data);
            if (g.match_all != one) {
                h = one;
                break;
            }
        }
        if (!g.scoped || g.all_filters) {
            if (!h)
                return false;
        } else {
            others = true;
            other_held = other_held || h;
        }
    }
    return !others || other_held;
}

bool EventFilter::admits(const etw_event_descriptor &d, std::uint32_t data_count, const etw_event_data_descriptor *data,
                         const std::uint8_t *schema) const noexcept
{
    if (event_ids_.present && event_ids_.contains(d.Id) != event_ids_.filter_in)
        return false;
    if (!has_names_ && predicates_.empty())
        return true;
    const std::uint8_t *meta = schema;
    const std::uint32_t meta_size = schema ? std::uint32_t(schema[0] | schema[1] << 8) : 0;
    if (has_names_ && !names_admit(d, meta, meta_size))
        return false;
    return predicates_.empty() || payload_admits(d, meta, meta_size, data_count, data);
}

} // namespace openetw::engine
