#include "format/tracelogging_encode.hpp"

#include "base/sha1.hpp"
#include "base/utf.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace openetw::format {

namespace {

constexpr std::uint8_t kInChain = 0x80, kOutMax = 38;
constexpr int kMaxStructDepth = 32; // as deep as the decoder reads
constexpr std::uint32_t kMaxCounted = 0xFFFF;
const std::uint8_t kZeros[2] = {0, 0}; // the NUL a string field ends with

// The width of a fixed-size in-type; 0 for the others.
std::uint32_t fixed_width(std::uint8_t in) noexcept
{
    switch (in) {
    case ETW_TL_IN_INT8:
    case ETW_TL_IN_UINT8:
        return 1;
    case ETW_TL_IN_INT16:
    case ETW_TL_IN_UINT16:
        return 2;
    case ETW_TL_IN_INT32:
    case ETW_TL_IN_UINT32:
    case ETW_TL_IN_FLOAT:
    case ETW_TL_IN_BOOL32:
    case ETW_TL_IN_HEXINT32:
        return 4;
    case ETW_TL_IN_INT64:
    case ETW_TL_IN_UINT64:
    case ETW_TL_IN_DOUBLE:
    case ETW_TL_IN_FILETIME:
    case ETW_TL_IN_HEXINT64:
        return 8;
    case ETW_TL_IN_GUID:
    case ETW_TL_IN_SYSTEMTIME:
        return 16;
    default:
        return 0;
    }
}

// TlgOut_t values: 0..18, 33, 35..38.
bool known_out(std::uint8_t out) noexcept { return out <= 18 || out == 33 || (out >= 35 && out <= kOutMax); }

std::string field_text(std::uint32_t i, const char *name)
{
    std::string s = "field " + std::to_string(i);
    if (name) {
        s += " ('";
        s += name;
        s += "')";
    }
    return s;
}

std::size_t utf16_units(const void *p) noexcept
{
    const auto *b = static_cast<const std::uint8_t *>(p);
    std::size_t n = 0;
    while (b[2 * n] != 0 || b[2 * n + 1] != 0)
        ++n;
    return n;
}

bool has_zero_unit(const void *p, std::uint32_t size) noexcept
{
    const auto *b = static_cast<const std::uint8_t *>(p);
    for (std::uint32_t i = 0; i + 1 < size; i += 2)
        if (b[i] == 0 && b[i + 1] == 0)
            return true;
    return false;
}

class Encoder {
public:
    explicit Encoder(TlEvent &out) : out_(out) {}

    bool put(const void *p, std::size_t n) noexcept
    {
        if (n > ETW_TL_MAX_METADATA_SIZE - pos_)
            return false;
        std::memcpy(out_.metadata + pos_, p, n);
        pos_ += std::uint32_t(n);
        return true;
    }
    bool put_byte(std::uint8_t b) noexcept { return put(&b, 1); }
    void data(const void *p, std::uint32_t n) noexcept
    {
        if (n)
            out_.data[out_.data_count++] = {std::uint64_t(reinterpret_cast<std::uintptr_t>(p)), n, 0};
    }
    std::uint32_t pos_ = 2;
    TlEvent &out_;
};

Status too_large()
{
    return Fail(ETW_ERROR_ARITHMETIC_OVERFLOW, "the TraceLogging event's metadata (event name, field names and types) "
                                               "is larger than ETW_TL_MAX_METADATA_SIZE (" +
                                                   std::to_string(ETW_TL_MAX_METADATA_SIZE) + " bytes)");
}

} // namespace

Status encode_tl_event(const char *event_name, const etw_tl_field *fields, std::uint32_t count, TlEvent &out)
{
    if (!event_name)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "event_name is NULL");
    if (count && !fields)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "fields is NULL with a field_count of " + std::to_string(count));
    if (count > ETW_TL_MAX_FIELDS)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "field_count " + std::to_string(count) +
                                                     " is above ETW_TL_MAX_FIELDS (" +
                                                     std::to_string(ETW_TL_MAX_FIELDS) + ")");
    out.data_count = 0;
    Encoder enc(out);
    // Open structs, innermost last: how many members each still takes, and its field.
    std::uint8_t owed[kMaxStructDepth];
    std::uint32_t opened[kMaxStructDepth];
    int depth = 0;
    // UINT16 size (below), one extension byte (no tags), the event name.
    if (!enc.put_byte(0) || !enc.put(event_name, std::strlen(event_name) + 1))
        return too_large();
    for (std::uint32_t i = 0; i < count; ++i) {
        const etw_tl_field &f = fields[i];
        if (!f.name)
            return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, nullptr) + " has a NULL name");
        const bool array = (f.in_type & ETW_TL_IN_ARRAY) != 0;
        const std::uint8_t in = f.in_type & std::uint8_t(~ETW_TL_IN_ARRAY);
        if (f.reserved != 0)
            return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, f.name) + " has a non-zero reserved");
        if (depth > 0)
            --owed[depth - 1]; // a member of the innermost open struct
        if (f.in_type == ETW_TL_IN_STRUCT) {
            // No data: the metadata's out-type slot holds the member count.
            if (f.data || f.out_type || f.size == 0 || f.size > 127)
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            field_text(i, f.name) + " is a struct: its size must be its member count (1..127), "
                                                    "with NULL data and out-type 0");
            if (depth == kMaxStructDepth)
                return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, f.name) + " nests structs deeper than " +
                                                             std::to_string(kMaxStructDepth) + " levels");
            if (!enc.put(f.name, std::strlen(f.name) + 1) || !enc.put_byte(std::uint8_t(ETW_TL_IN_STRUCT | kInChain)) ||
                !enc.put_byte(std::uint8_t(f.size)))
                return too_large();
            owed[depth] = std::uint8_t(f.size);
            opened[depth++] = i;
            continue;
        }
        if (!known_out(f.out_type))
            return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, f.name) + " has out-type " +
                                                         std::to_string(f.out_type) +
                                                         ", which is not one of ETW_TL_OUT_*");
        const std::uint32_t width = fixed_width(in);
        const bool string8 = in == ETW_TL_IN_ANSISTRING || in == ETW_TL_IN_COUNTEDANSISTRING;
        const bool string16 = in == ETW_TL_IN_UNICODESTRING || in == ETW_TL_IN_COUNTEDSTRING;
        const bool counted = in == ETW_TL_IN_BINARY || in == ETW_TL_IN_COUNTEDSTRING ||
                             in == ETW_TL_IN_COUNTEDANSISTRING || in == ETW_TL_IN_COUNTEDBINARY;
        if ((f.in_type & 0x80) || (array && width == 0) ||
            (width == 0 && !string8 && !string16 && !counted && in != ETW_TL_IN_SID))
            return Fail(
                ETW_ERROR_INVALID_PARAMETER,
                field_text(i, f.name) + " has in-type " + std::to_string(f.in_type) +
                    (array ? ", an array of a type that is not fixed-size" : ", which is not one of ETW_TL_IN_*"));
        std::uint32_t size = f.size;
        if (size == ETW_TL_NUL_TERMINATED) {
            if (!string8 && !string16)
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            field_text(i, f.name) + " has size ETW_TL_NUL_TERMINATED but is not a string");
            const std::size_t n = !f.data   ? 0
                                  : string8 ? std::strlen(static_cast<const char *>(f.data))
                                            : 2 * utf16_units(f.data);
            if (n > 0xFFFF)
                return Fail(ETW_ERROR_ARITHMETIC_OVERFLOW,
                            field_text(i, f.name) + " is a string of more than 65535 bytes");
            size = std::uint32_t(n);
        } else if (!f.data && size != 0) {
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        field_text(i, f.name) + " has NULL data and size " + std::to_string(size));
        } else if (string8 && size && std::memchr(f.data, 0, size)) {
            return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, f.name) + " is a string holding a NUL");
        } else if (string16 && (size % 2 != 0 || has_zero_unit(f.data, size))) {
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        field_text(i, f.name) +
                            (size % 2 ? " is a UTF-16 string of an odd byte count" : " is a string holding a NUL"));
        }
        // The payload.
        if (array) {
            if (size % width != 0 || size / width > kMaxCounted)
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            field_text(i, f.name) + " is an array of size " + std::to_string(size) +
                                ", which is not a multiple of its element's " + std::to_string(width) +
                                " bytes or holds more than 65535 elements");
            out.counts[i] = std::uint16_t(size / width);
            enc.data(&out.counts[i], 2);
            enc.data(f.data, size);
        } else if (width) {
            if (size != width)
                return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, f.name) + " has size " + std::to_string(size) +
                                                             "; its in-type is " + std::to_string(width) + " bytes");
            enc.data(f.data, size);
        } else if (counted) {
            if (size > kMaxCounted)
                return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, f.name) + " has size " + std::to_string(size) +
                                                             ", above the 65535 bytes a UINT16 counts");
            out.counts[i] = std::uint16_t(size);
            enc.data(&out.counts[i], 2);
            enc.data(f.data, size);
        } else if (in == ETW_TL_IN_SID) {
            const auto *sid = static_cast<const std::uint8_t *>(f.data);
            if (size < 8 || size != 8u + 4u * sid[1])
                return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(i, f.name) + " is a SID whose size " +
                                                             std::to_string(size) +
                                                             " is not 8 + 4 * its SubAuthorityCount");
            enc.data(f.data, size);
        } else { // NUL-terminated strings
            enc.data(f.data, size);
            enc.data(kZeros, string16 ? 2 : 1);
        }
        // The metadata: name, in-type (with the chain bit when an out-type follows), out-type.
        const std::uint8_t in_byte = std::uint8_t(f.in_type | (f.out_type ? kInChain : 0));
        if (!enc.put(f.name, std::strlen(f.name) + 1) || !enc.put_byte(in_byte) ||
            (f.out_type && !enc.put_byte(f.out_type)))
            return too_large();
        while (depth > 0 && owed[depth - 1] == 0)
            --depth; // the struct's last member
    }
    if (depth > 0) {
        const etw_tl_field &f = fields[opened[depth - 1]];
        return Fail(ETW_ERROR_INVALID_PARAMETER, field_text(opened[depth - 1], f.name) + " is a struct of " +
                                                     std::to_string(f.size) + " members, but only " +
                                                     std::to_string(f.size - owed[depth - 1]) + " fields follow it");
    }
    out.metadata_size = std::uint16_t(enc.pos_);
    out.metadata[0] = std::uint8_t(enc.pos_);
    out.metadata[1] = std::uint8_t(enc.pos_ >> 8);
    return Status::ok();
}

bool tl_metadata_frame_ok(const std::uint8_t *m, std::uint32_t size) noexcept
{
    return size >= 4 && size <= 0xFFFF && std::uint32_t(m[0] | m[1] << 8) == size;
}

bool tl_traits_frame_ok(const std::uint8_t *t, std::uint32_t size) noexcept
{
    return size >= 3 && size <= 0xFFFF && std::uint32_t(t[0] | t[1] << 8) == size;
}

Status check_provider_traits(const std::uint8_t *t, std::uint32_t size)
{
    if (size < 3 || size > 0xFFFF)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "traits size " + std::to_string(size) + " is not between 3 and 65535 bytes");
    const std::uint32_t own = std::uint32_t(t[0] | t[1] << 8);
    if (own != size)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "the traits' TraitsSize " + std::to_string(own) + " is not their size " + std::to_string(size));
    const void *nul = std::memchr(t + 2, 0, size - 2);
    if (!nul)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the traits' provider name has no terminating NUL");
    std::uint32_t pos = std::uint32_t(static_cast<const std::uint8_t *>(nul) - t) + 1;
    while (pos < size) {
        if (size - pos < 3)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "the trait at offset " + std::to_string(pos) + " is shorter than its 3-byte header");
        const std::uint32_t n = std::uint32_t(t[pos] | t[pos + 1] << 8);
        if (n < 3 || n > size - pos)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "the trait at offset " + std::to_string(pos) + " has TraitSize " +
                                                         std::to_string(n) +
                                                         ", below its 3-byte header or past the traits' end");
        pos += n;
    }
    return Status::ok();
}

Status build_provider_traits(const char *name, const etw_guid *group, std::string &out)
{
    if (!name)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "name is NULL");
    const std::size_t size = 2 + std::strlen(name) + 1 + (group ? 19 : 0);
    if (size > 0xFFFF)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the provider name is too long for the 65535-byte traits");
    out.clear();
    out.push_back(char(size & 0xFF));
    out.push_back(char(size >> 8));
    out.append(name, std::strlen(name) + 1);
    if (group) {
        out.push_back(19);
        out.push_back(0);
        out.push_back(char(ETW_PROVIDER_TRAIT_TYPE_GROUP));
        out.append(reinterpret_cast<const char *>(group), 16);
    }
    return Status::ok();
}

Status provider_guid_from_name(const char *name, etw_guid &out)
{
    if (!name)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "name is NULL");
    const auto wide = utf8_to_utf16(name);
    if (!wide)
        return Fail(ETW_ERROR_NO_UNICODE_TRANSLATION, "name is not valid UTF-8");
    static const std::uint8_t kNamespace[16] = {0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8,
                                                0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB};
    Sha1 sha;
    sha.update(kNamespace, sizeof kNamespace);
    for (char16_t c : *wide) {
        // Upper case as ToUpperInvariant does for ASCII and Latin-1 letters
        // (provider names are ASCII in practice); other units are kept.
        if ((c >= u'a' && c <= u'z') || (c >= 0xE0 && c <= 0xFE && c != 0xF7))
            c = char16_t(c - 0x20);
        else if (c == 0xFF)
            c = 0x178;
        const std::uint8_t be[2] = {std::uint8_t(c >> 8), std::uint8_t(c)};
        sha.update(be, 2);
    }
    std::uint8_t digest[20];
    sha.finish(digest);
    digest[7] = std::uint8_t((digest[7] & 0x0F) | 0x50);
    // The first 16 bytes as .NET's Guid(byte[]) reads them: Data1..3 little-endian.
    out.Data1 = std::uint32_t(digest[0]) | std::uint32_t(digest[1]) << 8 | std::uint32_t(digest[2]) << 16 |
                std::uint32_t(digest[3]) << 24;
    out.Data2 = std::uint16_t(digest[4] | digest[5] << 8);
    out.Data3 = std::uint16_t(digest[6] | digest[7] << 8);
    std::memcpy(out.Data4, digest + 8, 8);
    return Status::ok();
}

} // namespace openetw::format
