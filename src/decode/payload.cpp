#include "decode/payload.hpp"

#include <cstring>

namespace openetw::decode {

std::uint64_t read_uint(const std::uint8_t *p, std::uint32_t size)
{
    std::uint64_t v = 0;
    for (std::uint32_t i = size; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

std::uint32_t fixed_size(std::uint16_t in_type, std::uint32_t pointer_size)
{
    switch (in_type) {
    case kInInt8:
    case kInUInt8:
    case kInAnsiChar:
        return 1;
    case kInInt16:
    case kInUInt16:
    case kInUnicodeChar:
        return 2;
    case kInInt32:
    case kInUInt32:
    case kInFloat:
    case kInBoolean:
    case kInHexInt32:
        return 4;
    case kInInt64:
    case kInUInt64:
    case kInDouble:
    case kInHexInt64:
    case kInFileTime:
        return 8;
    case kInGuid:
    case kInSystemTime:
        return 16;
    case kInPointer:
    case kInSizeT:
        return pointer_size;
    default:
        return 0;
    }
}

namespace {

bool char_array(const Field &f)
{
    return f.out_type == kOutString &&
           (f.in_type == kInInt8 || f.in_type == kInUInt8 || f.in_type == kInInt16 || f.in_type == kInUInt16);
}

bool is_integer(std::uint16_t t)
{
    return (t >= kInInt8 && t <= kInUInt64) || t == kInBoolean || t == kInHexInt32 || t == kInHexInt64 ||
           t == kInPointer || t == kInSizeT;
}

class Walker {
public:
    Walker(const EventSchema &s, std::span<const std::uint8_t> p, std::uint32_t ptr, std::vector<Node> &n, Problem &pr)
        : schema_(s), data_(p), ptr_(ptr), nodes_(n), problem_(pr), refs_(s.fields.size(), 0)
    {}

    bool fields(std::uint32_t begin, std::uint32_t end, std::uint32_t parent)
    {
        for (std::uint32_t i = begin; i < end;) {
            const Field &f = schema_.fields[i];
            if (f.end <= i || f.end > end)
                return fail(text_printf("field %u ('%s') has a bad struct extent", i, f.name.c_str()));
            if (!field(i, parent))
                return false;
            i = f.end;
        }
        return true;
    }

    std::uint32_t pos() const { return pos_; }

private:
    bool fail(std::string text)
    {
        problem_.set(ETW_ERROR_INVALID_DATA, pos_, std::move(text));
        return false;
    }

    bool short_payload(const Field &f, std::uint64_t need)
    {
        return fail(text_printf("field '%s' needs %llu bytes at payload offset %u; the payload has %zu", f.name.c_str(),
                                static_cast<unsigned long long>(need), pos_, data_.size()));
    }

    std::uint32_t add(std::uint32_t field, std::uint32_t parent, NodeKind kind, std::uint32_t offset,
                      std::uint32_t size)
    {
        if (nodes_.size() >= kMaxNodes)
            return kNoParent;
        if (parent != kNoParent)
            ++nodes_[parent].child_count;
        nodes_.push_back(Node{field, parent, 0, kind, offset, size});
        return static_cast<std::uint32_t>(nodes_.size() - 1);
    }

    std::size_t left() const { return data_.size() - pos_; }

    bool reference(const Field &f, std::uint16_t index, const char *what, std::uint64_t &out)
    {
        if (index >= schema_.fields.size())
            return fail(text_printf("field '%s' takes its %s from field %u, which does not exist", f.name.c_str(), what,
                                    index));
        out = refs_[index];
        return true;
    }

    bool field(std::uint32_t index, std::uint32_t parent)
    {
        const Field &f = schema_.fields[index];
        std::uint64_t count = 1;
        bool array = true;
        switch (f.count_kind) {
        case CountKind::One:
            array = false;
            break;
        case CountKind::Fixed:
            count = f.count;
            break;
        case CountKind::Field:
            if (!reference(f, f.count, "count", count))
                return false;
            break;
        case CountKind::Prefix16:
            if (left() < 2)
                return short_payload(f, 2);
            count = read_uint(data_.data() + pos_, 2);
            pos_ += 2;
            break;
        case CountKind::Rest: {
            const std::uint32_t size = fixed_size(f.in_type, ptr_);
            if (size == 0)
                return fail(text_printf("field '%s' fills the rest of the payload but its type has no fixed size",
                                        f.name.c_str()));
            count = left() / size;
            break;
        }
        }
        if (count > kMaxNodes)
            return fail(text_printf("field '%s' has %llu elements; at most %zu are decoded", f.name.c_str(),
                                    static_cast<unsigned long long>(count), kMaxNodes));
        if (array && char_array(f)) {
            // An array of 8- or 16-bit characters (out-type STRING) is one string, as TDH shows it.
            const std::uint64_t bytes = count * fixed_size(f.in_type, ptr_);
            if (bytes > left())
                return short_payload(f, bytes);
            if (add(index, parent, NodeKind::Value, pos_, static_cast<std::uint32_t>(bytes)) == kNoParent)
                return too_many();
            pos_ += static_cast<std::uint32_t>(bytes);
            return true;
        }
        std::uint32_t owner = parent;
        if (array) {
            owner = add(index, parent, NodeKind::Array, pos_, 0);
            if (owner == kNoParent)
                return too_many();
        }
        for (std::uint64_t k = 0; k < count; ++k) {
            if (!element(index, owner))
                return false;
        }
        if (array)
            nodes_[owner].size = pos_ - nodes_[owner].offset;
        return true;
    }

    bool too_many() { return fail(text_printf("the event has more than %zu properties", kMaxNodes)); }

    bool element(std::uint32_t index, std::uint32_t parent)
    {
        const Field &f = schema_.fields[index];
        if (f.in_type == kInStruct) {
            const std::uint32_t node = add(index, parent, NodeKind::Struct, pos_, 0);
            if (node == kNoParent)
                return too_many();
            if (!fields(index + 1, f.end, node))
                return false;
            nodes_[node].size = pos_ - nodes_[node].offset;
            return true;
        }
        std::uint32_t start = pos_, size = 0, skip = 0; // skip: prefix/terminator bytes around the content
        if (!measure(f, start, size, skip))
            return false;
        if (add(index, parent, NodeKind::Value, start, size) == kNoParent)
            return too_many();
        if (is_integer(f.in_type) && size <= 8)
            refs_[index] = read_uint(data_.data() + start, size);
        pos_ = start + size + skip;
        return true;
    }

    // Finds the content [start, start + size) of one value at pos_; skip is
    // what follows the content (a terminator). Prefixes move start.
    bool measure(const Field &f, std::uint32_t &start, std::uint32_t &size, std::uint32_t &skip)
    {
        const std::uint8_t *p = data_.data() + pos_;
        const std::size_t n = left();
        std::uint64_t length = 0;
        bool has_length = false;
        if (f.length_kind == LengthKind::Fixed) {
            length = f.length;
            has_length = true;
        } else if (f.length_kind == LengthKind::Field) {
            if (!reference(f, f.length, "length", length))
                return false;
            has_length = true;
        } else if (f.length_kind == LengthKind::Prefix16) {
            if (n < 2)
                return short_payload(f, 2);
            length = read_uint(p, 2);
            start += 2;
            p += 2;
            has_length = true;
            if (length > n - 2)
                return short_payload(f, length + 2);
            size = static_cast<std::uint32_t>(length);
            return true;
        }
        auto take = [&](std::uint64_t bytes) {
            if (bytes > n - (start - pos_))
                return short_payload(f, bytes + (start - pos_));
            size = static_cast<std::uint32_t>(bytes);
            return true;
        };
        switch (f.in_type) {
        case kInNull:
            size = 0;
            return true;
        case kInUnicodeString:
        case kInAnsiString: {
            const std::uint32_t unit = f.in_type == kInUnicodeString ? 2 : 1;
            if (has_length)
                return take(length * unit);
            // NUL-terminated; a final string without its terminator ends with the payload (as TDH reads it).
            std::size_t k = 0;
            for (; k + unit <= n; k += unit) {
                if (p[k] == 0 && (unit == 1 || p[k + 1] == 0))
                    break;
            }
            if (k + unit <= n) {
                size = static_cast<std::uint32_t>(k);
                skip = unit;
            } else {
                size = static_cast<std::uint32_t>(n - n % unit);
                skip = static_cast<std::uint32_t>(n % unit);
            }
            return true;
        }
        case kInBinary:
        case kInNonNulTerminatedString:
        case kInNonNulTerminatedAnsiString:
            if (has_length)
                return take(f.in_type == kInNonNulTerminatedString ? length * 2 : length);
            if (f.in_type == kInBinary)
                return fail(text_printf("binary field '%s' has no length", f.name.c_str()));
            return take(n);
        case kInManifestCountedString:
        case kInManifestCountedAnsiString:
        case kInManifestCountedBinary:
        case kInCountedString:
        case kInCountedAnsiString:
        case kInReversedCountedString:
        case kInReversedCountedAnsiString: {
            if (n < 2)
                return short_payload(f, 2);
            const bool reversed = f.in_type == kInReversedCountedString || f.in_type == kInReversedCountedAnsiString;
            const std::uint32_t bytes = reversed ? (std::uint32_t(p[0]) << 8 | p[1]) : std::uint32_t(read_uint(p, 2));
            start += 2;
            return take(bytes);
        }
        case kInHexDump: {
            if (n < 4)
                return short_payload(f, 4);
            start += 4;
            return take(read_uint(p, 4));
        }
        case kInSid:
        case kInWbemSid: {
            // A kernel WBEMSID with no SID is 4 zero bytes (what the records hold).
            if (f.in_type == kInWbemSid && n >= 4 && read_uint(p, 4) == 0)
                return take(4);
            const std::uint32_t lead = f.in_type == kInWbemSid ? 2 * ptr_ : 0;
            if (n < lead + 8u)
                return short_payload(f, lead + 8u);
            const std::uint8_t subs = p[lead + 1];
            if (subs > 15)
                return fail(text_printf("SID field '%s' claims %u sub-authorities (at most 15)", f.name.c_str(), subs));
            return take(lead + 8u + 4u * subs);
        }
        default: {
            const std::uint32_t fixed = fixed_size(f.in_type, ptr_);
            if (fixed == 0)
                return fail(
                    text_printf("field '%s' has in-type %u, which cannot be decoded", f.name.c_str(), f.in_type));
            return take(fixed);
        }
        }
    }

    const EventSchema &schema_;
    std::span<const std::uint8_t> data_;
    std::uint32_t ptr_;
    std::vector<Node> &nodes_;
    Problem &problem_;
    std::vector<std::uint64_t> refs_;
    std::uint32_t pos_ = 0;
};

} // namespace

bool decode_payload(const EventSchema &schema, std::span<const std::uint8_t> payload, std::uint32_t pointer_size,
                    std::vector<Node> &nodes, Problem &problem, std::uint32_t *consumed)
{
    nodes.clear();
    problem.clear();
    if (pointer_size != 4 && pointer_size != 8)
        pointer_size = 8;
    Walker walker(schema, payload, pointer_size, nodes, problem);
    const bool ok = walker.fields(0, static_cast<std::uint32_t>(schema.fields.size()), kNoParent);
    if (consumed)
        *consumed = walker.pos();
    return ok;
}

} // namespace openetw::decode
