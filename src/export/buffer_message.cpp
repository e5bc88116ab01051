#include "export/buffer_message.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace openetw::exporter {

namespace {

bool plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool parse_decimal(const std::string &s, std::uint64_t *out)
{
    if (s.empty() || s.size() > 20)
        return false;
    std::uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
        const std::uint64_t next = v * 10 + std::uint64_t(c - '0');
        if (next / 10 != v)
            return false;
        v = next;
    }
    *out = v;
    return true;
}

void put(std::vector<std::uint8_t> &out, const void *p, std::size_t n)
{
    const auto *b = static_cast<const std::uint8_t *>(p);
    out.insert(out.end(), b, b + n);
}

} // namespace

std::string escape_token(std::string_view name)
{
    if (name.empty())
        return "%";
    static const char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(name.size());
    for (unsigned char c : name) {
        if (plain(c)) {
            out += char(c);
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

bool unescape_token(std::string_view token, std::string *out)
{
    out->clear();
    if (token == "%")
        return true;
    if (token.empty())
        return false;
    for (std::size_t i = 0; i < token.size(); ++i) {
        const char c = token[i];
        if (plain(static_cast<unsigned char>(c))) {
            *out += c;
            continue;
        }
        if (c != '%' || i + 2 >= token.size())
            return false;
        const int hi = hex_value(token[i + 1]), lo = hex_value(token[i + 2]);
        const unsigned char v = static_cast<unsigned char>(hi * 16 + lo);
        if (hi < 0 || lo < 0 || plain(v))
            return false; // escape_token never escapes a plain byte: one name, one token
        *out += char(v);
        i += 2;
    }
    return true;
}

std::string subject_of(const std::string &stream, const BufferTag &tag)
{
    return stream + "." + escape_token(tag.machine) + "." + escape_token(tag.session);
}

std::string stream_subjects(const std::string &stream) { return stream + ".>"; }

std::string message_id(const BufferTag &tag)
{
    return escape_token(tag.machine) + "/" + escape_token(tag.session) + "/" + std::to_string(tag.start_time) + "/" +
           std::to_string(tag.sequence);
}

namespace {
const char *const kKindNames[] = {"header", "buffer", "end"};
} // namespace

std::vector<std::pair<std::string, std::string>> message_headers(const BufferTag &tag)
{
    return {{kHeaderMsgId, message_id(tag)},
            {kHeaderMachine, escape_token(tag.machine)},
            {kHeaderSession, escape_token(tag.session)},
            {kHeaderStart, std::to_string(tag.start_time)},
            {kHeaderSequence, std::to_string(tag.sequence)},
            {kHeaderKind, kKindNames[std::size_t(tag.kind)]}};
}

Status tag_from_headers(const std::function<bool(const char *name, std::string *value)> &get, BufferTag *out)
{
    BufferTag t;
    std::string v;
    for (const auto &[name, dest] : {std::pair<const char *, std::string *>{kHeaderMachine, &t.machine},
                                     std::pair<const char *, std::string *>{kHeaderSession, &t.session}}) {
        if (!get(name, &v))
            return Fail(ETW_ERROR_INVALID_DATA, std::string("the message has no ") + name + " header");
        if (!unescape_token(v, dest))
            return Fail(ETW_ERROR_INVALID_DATA,
                        std::string("the message's ") + name + " header \"" + v + "\" is not an escaped name");
    }
    std::uint64_t start = 0;
    if (!get(kHeaderStart, &v) || !parse_decimal(v, &start) || start > std::uint64_t(INT64_MAX))
        return Fail(ETW_ERROR_INVALID_DATA,
                    std::string("the message's ") + kHeaderStart + " header is missing or not a FILETIME");
    t.start_time = std::int64_t(start);
    if (!get(kHeaderSequence, &v) || !parse_decimal(v, &t.sequence))
        return Fail(ETW_ERROR_INVALID_DATA,
                    std::string("the message's ") + kHeaderSequence + " header is missing or not a number");
    if (!get(kHeaderKind, &v))
        return Fail(ETW_ERROR_INVALID_DATA, std::string("the message has no ") + kHeaderKind + " header");
    bool known = false;
    for (std::size_t k = 0; k < 3; ++k)
        if (v == kKindNames[k]) {
            t.kind = BufferTag::Kind(k);
            known = true;
        }
    if (!known)
        return Fail(ETW_ERROR_INVALID_DATA,
                    std::string("the message's ") + kHeaderKind + " header \"" + v + "\" is not header, buffer or end");
    if ((t.kind == BufferTag::Kind::Header) != (t.sequence == 0))
        return Fail(ETW_ERROR_INVALID_DATA, "a message's sequence 0 is the header buffer's, and only its");
    *out = std::move(t);
    return Status::ok();
}

std::vector<std::uint8_t> encode_record(const BufferTag &tag, const std::uint8_t *bytes, std::uint32_t size)
{
    std::vector<std::uint8_t> out;
    encode_record(tag, bytes, size, &out);
    return out;
}

void encode_record(const BufferTag &tag, const std::uint8_t *bytes, std::uint32_t size, std::vector<std::uint8_t> *into)
{
    std::vector<std::uint8_t> &out = *into;
    out.clear();
    out.reserve(8 + 8 + 1 + 4 + tag.machine.size() + tag.session.size() + size);
    put(out, &tag.sequence, 8);
    put(out, &tag.start_time, 8);
    put(out, &tag.kind, 1);
    for (const std::string *s : {&tag.machine, &tag.session}) {
        const std::uint16_t n = std::uint16_t(std::min<std::size_t>(s->size(), 0xFFFF));
        put(out, &n, 2);
        put(out, s->data(), n);
    }
    put(out, bytes, size);
}

Status decode_record(const std::vector<std::uint8_t> &record, BufferTag *tag, std::size_t *payload_offset)
{
    std::size_t at = 17;
    if (record.size() < at + 4)
        return Fail(ETW_ERROR_INVALID_DATA, "a spool record is shorter than its tag");
    std::memcpy(&tag->sequence, record.data(), 8);
    std::memcpy(&tag->start_time, record.data() + 8, 8);
    if (record[16] > std::uint8_t(BufferTag::Kind::End))
        return Fail(ETW_ERROR_INVALID_DATA, "a spool record's kind is unknown");
    tag->kind = BufferTag::Kind(record[16]);
    for (std::string *s : {&tag->machine, &tag->session}) {
        std::uint16_t n = 0;
        if (record.size() < at + 2)
            return Fail(ETW_ERROR_INVALID_DATA, "a spool record is shorter than its tag");
        std::memcpy(&n, record.data() + at, 2);
        at += 2;
        if (record.size() < at + n)
            return Fail(ETW_ERROR_INVALID_DATA, "a spool record is shorter than its tag");
        s->assign(reinterpret_cast<const char *>(record.data() + at), n);
        at += n;
    }
    *payload_offset = at;
    return Status::ok();
}

} // namespace openetw::exporter
