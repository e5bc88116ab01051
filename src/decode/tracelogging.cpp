#include "decode/tracelogging.hpp"

#include "decode/payload.hpp"

namespace openetw::decode {

namespace {

constexpr std::uint8_t kTlgInCcount = 0x20, kTlgInVcount = 0x40, kTlgInCustom = 0x60, kTlgInChain = 0x80;
constexpr std::uint8_t kTlgInStruct = 24, kTlgInMax = 26;
constexpr int kMaxDepth = 32;

// TlgOut_t -> TDH_OUTTYPE (the values differ below 19).
std::uint16_t out_type(std::uint8_t tlg, std::uint8_t in)
{
    switch (tlg) {
    case 0:
    case 1:
        return kOutNull; // default / NOPRINT
    case 2:
        return kOutString;
    case 3:
        return kOutBoolean;
    case 4:
        return fixed_size(in, 8) ? kOutHexInt64 : kOutHexBinary;
    case 5:
        return kOutPid;
    case 6:
        return kOutTid;
    case 7:
        return kOutPort;
    case 8:
        return kOutIpv4;
    case 9:
        return kOutIpv6;
    case 10:
        return kOutSocketAddress;
    case 11:
        return kOutXml;
    case 12:
        return kOutJson;
    case 13:
        return kOutWin32Error;
    case 14:
        return kOutNtStatus;
    case 15:
        return kOutHResult;
    case 16:
        return kOutDateTime;
    case 17:
        return kOutLong; // SIGNED
    case 18:
        return kOutUnsignedLong; // UNSIGNED
    default:
        return tlg; // 33..38 share TDH's values
    }
}

class Parser {
public:
    Parser(std::span<const std::uint8_t> m, EventSchema &s, Problem &p) : m_(m), s_(s), problem_(p) {}

    bool run()
    {
        if (m_.size() < 2)
            return fail("TraceLogging metadata is shorter than its 2-byte size");
        const std::uint32_t size = static_cast<std::uint32_t>(read_uint(m_.data(), 2));
        if (size < 2 || size > m_.size())
            return fail(text_printf("TraceLogging metadata size %u does not fit its %zu bytes", size, m_.size()));
        end_ = size;
        pos_ = 2;
        // Event extension bytes (tags): chained by bit 7.
        while (true) {
            if (pos_ >= end_)
                return fail("TraceLogging metadata ends inside its extension bytes");
            if (!(m_[pos_++] & 0x80))
                break;
        }
        if (!cstr(s_.event_name))
            return false;
        while (pos_ < end_) {
            if (!field(0))
                return false;
        }
        return true;
    }

private:
    bool fail(std::string text)
    {
        problem_.set(ETW_ERROR_INVALID_DATA, pos_, std::move(text));
        return false;
    }

    bool cstr(std::string &out)
    {
        const std::uint32_t start = pos_;
        while (pos_ < end_ && m_[pos_] != 0)
            ++pos_;
        if (pos_ >= end_) {
            pos_ = start;
            return fail("a TraceLogging name has no terminating NUL");
        }
        out.assign(reinterpret_cast<const char *>(m_.data()) + start, pos_ - start);
        ++pos_;
        return true;
    }

    bool byte(std::uint8_t &b)
    {
        if (pos_ >= end_)
            return fail("TraceLogging field metadata is truncated");
        b = m_[pos_++];
        return true;
    }

    bool u16(std::uint16_t &v)
    {
        if (end_ - pos_ < 2)
            return fail("TraceLogging field metadata is truncated");
        v = static_cast<std::uint16_t>(read_uint(m_.data() + pos_, 2));
        pos_ += 2;
        return true;
    }

    bool field(int depth)
    {
        if (depth > kMaxDepth)
            return fail(text_printf("TraceLogging structs nest deeper than %d levels", kMaxDepth));
        const std::uint32_t index = static_cast<std::uint32_t>(s_.fields.size());
        s_.fields.emplace_back();
        Field f;
        std::uint8_t in = 0, out = 0;
        if (!cstr(f.name) || !byte(in))
            return false;
        if (in & kTlgInChain) {
            if (!byte(out))
                return false;
            if (out & 0x80) { // field tags: up to 4 bytes chained by bit 7
                std::uint8_t tag = 0x80;
                for (int k = 0; k < 4 && (tag & 0x80); ++k) {
                    if (!byte(tag))
                        return false;
                }
            }
        }
        const std::uint8_t type = in & 0x1F, counting = in & kTlgInCustom;
        if (type == 0 || type == 16 || type >= kTlgInMax) {
            pos_ -= 1;
            return fail(text_printf("TraceLogging field '%s' has in-type %u, which TraceLogging does not define",
                                    f.name.c_str(), type));
        }
        f.in_type = type;
        f.out_type = type == kTlgInStruct ? std::uint16_t(kOutNull) : out_type(out & 0x7F, type);
        if (type == 14) // TlgInBINARY: a UINT16 byte count precedes the bytes
            f.length_kind = LengthKind::Prefix16;
        if (counting == kTlgInCcount) {
            if (!u16(f.count))
                return false;
            f.count_kind = CountKind::Fixed;
        } else if (counting == kTlgInVcount) {
            f.count_kind = CountKind::Prefix16;
        } else if (counting == kTlgInCustom) {
            std::uint16_t schema_size = 0;
            if (!u16(schema_size))
                return false;
            if (end_ - pos_ < schema_size)
                return fail("TraceLogging custom field schema is truncated");
            pos_ += schema_size;
            // The custom serializer's bytes: a UINT16 size, then the data.
            f.in_type = kInBinary;
            f.length_kind = LengthKind::Prefix16;
            f.out_type = kOutHexBinary;
        }
        if (type == kTlgInStruct) {
            const std::uint8_t members = out & 0x7F;
            if (members == 0)
                return fail(text_printf("TraceLogging struct '%s' has no members", f.name.c_str()));
            s_.fields[index] = std::move(f);
            for (std::uint8_t k = 0; k < members; ++k) {
                if (pos_ >= end_)
                    return fail(text_printf("TraceLogging struct '%s' ends before its %u members",
                                            s_.fields[index].name.c_str(), members));
                if (!field(depth + 1))
                    return false;
            }
        } else {
            s_.fields[index] = std::move(f);
        }
        s_.fields[index].end = static_cast<std::uint32_t>(s_.fields.size());
        return true;
    }

    std::span<const std::uint8_t> m_;
    EventSchema &s_;
    Problem &problem_;
    std::uint32_t pos_ = 0, end_ = 0;
};

} // namespace

bool parse_tracelogging_event(std::span<const std::uint8_t> metadata, EventSchema &out, Problem &problem)
{
    out = EventSchema{};
    problem.clear();
    return Parser(metadata, out, problem).run();
}

bool parse_provider_traits(std::span<const std::uint8_t> traits, std::string &name)
{
    if (traits.size() < 3)
        return false;
    const std::size_t size = read_uint(traits.data(), 2);
    if (size < 3 || size > traits.size())
        return false;
    for (std::size_t i = 2; i < size; ++i) {
        if (traits[i] == 0) {
            name.assign(reinterpret_cast<const char *>(traits.data()) + 2, i - 2);
            return true;
        }
    }
    return false;
}

} // namespace openetw::decode
