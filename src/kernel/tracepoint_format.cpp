#include "kernel/tracepoint_format.hpp"

#include <algorithm>
#include <charconv>

namespace openetw::kernel {

namespace {

std::string_view trim(std::string_view s)
{
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!s.empty() && space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && space(s.back()))
        s.remove_suffix(1);
    return s;
}

bool parse_u32(std::string_view s, std::uint32_t *v)
{
    s = trim(s);
    if (s.empty())
        return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && end == s.data() + s.size();
}

// "offset:8" -> value of key "offset"; false when the item is another key.
bool keyed(std::string_view item, std::string_view key, std::string_view *value)
{
    item = trim(item);
    if (item.size() <= key.size() || item.substr(0, key.size()) != key || item[key.size()] != ':')
        return false;
    *value = item.substr(key.size() + 1);
    return true;
}

// "'text'", built by appending: GCC 12 warns falsely (-Wrestrict) on "'" + std::string(...).
std::string quoted(std::string_view text)
{
    std::string q(1, '\'');
    q.append(text);
    q += '\'';
    return q;
}

Status bad(std::size_t line, const std::string &why)
{
    return Fail(ETW_ERROR_INVALID_DATA, "tracepoint format, line " + std::to_string(line) + ": " + why);
}

// "unsigned short common_type", "char prev_comm[16]", "__data_loc char[] cmd".
Status parse_declaration(std::string_view decl, std::size_t line, TracepointField *f)
{
    decl = trim(decl);
    const std::size_t cut = decl.find_last_of(" \t*");
    if (cut == std::string_view::npos || cut + 1 >= decl.size())
        return bad(line, quoted(decl) + " is not a type followed by a name");
    std::string_view name = decl.substr(cut + 1);
    f->type = std::string(trim(decl.substr(0, cut + 1)));
    const std::size_t bracket = name.find('[');
    if (bracket != std::string_view::npos) {
        if (name.back() != ']')
            return bad(line, quoted(name) + " has an unclosed array bound");
        // A symbolic bound ("[TASK_COMM_LEN]") leaves array_len 0: size still says how many bytes.
        std::uint32_t n = 0;
        if (parse_u32(name.substr(bracket + 1, name.size() - bracket - 2), &n))
            f->array_len = n;
        else
            f->array_len = 0;
        f->type += std::string(name.substr(bracket));
        name = name.substr(0, bracket);
    }
    const bool ident = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    });
    if (!ident || f->type.empty())
        return bad(line, quoted(decl) + " is not a type followed by a name");
    f->name = std::string(name);
    f->data_loc = f->type.rfind("__data_loc", 0) == 0;
    f->rel_loc = f->type.rfind("__rel_loc", 0) == 0;
    return Status::ok();
}

// Where a __data_loc/__rel_loc word points: [begin, begin + length) of the sample.
std::optional<std::span<const std::uint8_t>> located(std::span<const std::uint8_t> sample, const TracepointField &f)
{
    if (f.size != 4 || std::size_t(f.offset) + 4 > sample.size())
        return std::nullopt;
    const std::uint8_t *p = sample.data() + f.offset;
    const std::uint32_t word =
        std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
    std::size_t begin = word & 0xFFFF;
    const std::size_t length = word >> 16;
    if (f.rel_loc)
        begin += std::size_t(f.offset) + 4;
    if (begin > sample.size() || length > sample.size() - begin)
        return std::nullopt;
    return sample.subspan(begin, length);
}

} // namespace

Status TracepointFormat::parse(std::string_view text, TracepointFormat *out)
{
    TracepointFormat f;
    bool in_format = false, have_name = false, have_id = false;
    std::size_t line_no = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++line_no;
        const std::string_view t = trim(line);
        std::string_view value;
        if (t.empty())
            continue;
        if (keyed(t, "name", &value)) {
            f.name_ = std::string(trim(value));
            have_name = !f.name_.empty();
            continue;
        }
        if (keyed(t, "ID", &value)) {
            if (!parse_u32(value, &f.id_))
                return bad(line_no, "the ID " + quoted(trim(value)) + " is not a number");
            have_id = true;
            continue;
        }
        if (t == "format:") {
            in_format = true;
            continue;
        }
        if (t.rfind("print fmt:", 0) == 0)
            break; // the rest is the printk format, not the layout
        if (t.rfind("field:", 0) != 0)
            return bad(line_no, quoted(t) + " is neither a field nor a header line");
        if (!in_format)
            return bad(line_no, "a field before the 'format:' line");

        TracepointField field;
        std::size_t start = 0;
        bool have_offset = false, have_size = false;
        std::size_t item_no = 0;
        while (start < t.size()) {
            const std::size_t semi = t.find(';', start);
            if (semi == std::string_view::npos)
                return bad(line_no, quoted(trim(t.substr(start))) + " is not ended by ';'");
            const std::string_view item = t.substr(start, semi - start);
            start = semi + 1;
            if (item_no++ == 0) {
                Status st = parse_declaration(item.substr(6), line_no, &field); // after "field:"
                if (!st)
                    return st;
            } else if (keyed(item, "offset", &value)) {
                if (!parse_u32(value, &field.offset))
                    return bad(line_no, "offset " + quoted(trim(value)) + " is not a number");
                have_offset = true;
            } else if (keyed(item, "size", &value)) {
                if (!parse_u32(value, &field.size) || field.size == 0)
                    return bad(line_no, "size " + quoted(trim(value)) + " is not a positive number");
                have_size = true;
            } else if (keyed(item, "signed", &value)) {
                std::uint32_t s = 0;
                if (!parse_u32(value, &s) || s > 1)
                    return bad(line_no, "signed " + quoted(trim(value)) + " is neither 0 nor 1");
                field.is_signed = s == 1;
            } else if (!trim(item).empty()) {
                return bad(line_no, "unknown item " + quoted(trim(item)));
            }
        }
        if (!have_offset || !have_size)
            return bad(line_no, "field " + field.name + " lacks its offset or size");
        if (field.offset > 0xFFFF || field.size > 0xFFFF)
            return bad(line_no, "field " + field.name + " lies past 64 KB, beyond any sample");
        if ((field.data_loc || field.rel_loc) && field.size != 4)
            return bad(line_no, "__data_loc field " + field.name + " is not a 4-byte word");
        if (f.find(field.name))
            return bad(line_no, "field " + field.name + " appears twice");
        f.fixed_size_ = std::max(f.fixed_size_, field.offset + field.size);
        f.fields_.push_back(std::move(field));
    }
    if (!have_name)
        return Fail(ETW_ERROR_INVALID_DATA, "tracepoint format: no 'name:' line");
    if (!have_id)
        return Fail(ETW_ERROR_INVALID_DATA, "tracepoint format of " + f.name_ + ": no 'ID:' line");
    if (f.fields_.empty())
        return Fail(ETW_ERROR_INVALID_DATA, "tracepoint format of " + f.name_ + ": no fields");
    *out = std::move(f);
    return Status::ok();
}

const TracepointField *TracepointFormat::find(std::string_view name) const
{
    for (const TracepointField &f : fields_)
        if (f.name == name)
            return &f;
    return nullptr;
}

std::optional<std::uint64_t> TracepointFormat::read_unsigned(std::span<const std::uint8_t> sample,
                                                             const TracepointField *f)
{
    if (!f || f->data_loc || f->rel_loc || f->array_len != 0)
        return std::nullopt;
    const std::uint32_t n = f->size;
    if ((n != 1 && n != 2 && n != 4 && n != 8) || std::size_t(f->offset) + n > sample.size())
        return std::nullopt;
    std::uint64_t v = 0;
    for (std::uint32_t k = 0; k < n; ++k)
        v |= std::uint64_t(sample[f->offset + k]) << (8 * k);
    return v;
}

std::optional<std::int64_t> TracepointFormat::read_signed(std::span<const std::uint8_t> sample,
                                                          const TracepointField *f)
{
    const auto u = read_unsigned(sample, f);
    if (!u)
        return std::nullopt;
    if (!f->is_signed || f->size == 8)
        return std::int64_t(*u);
    const unsigned shift = 64 - 8 * f->size;
    return std::int64_t(*u << shift) >> shift;
}

std::optional<std::span<const std::uint8_t>> TracepointFormat::read_bytes(std::span<const std::uint8_t> sample,
                                                                          const TracepointField *f)
{
    if (!f)
        return std::nullopt;
    if (f->data_loc || f->rel_loc)
        return located(sample, *f);
    if (std::size_t(f->offset) + f->size > sample.size())
        return std::nullopt;
    return sample.subspan(f->offset, f->size);
}

std::optional<std::string> TracepointFormat::read_string(std::span<const std::uint8_t> sample, const TracepointField *f)
{
    const auto bytes = read_bytes(sample, f);
    if (!bytes)
        return std::nullopt;
    const auto end = std::find(bytes->begin(), bytes->end(), std::uint8_t(0));
    return std::string(bytes->begin(), end);
}

} // namespace openetw::kernel
