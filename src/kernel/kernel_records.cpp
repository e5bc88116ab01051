#include "kernel/kernel_records.hpp"

#include "format/etl_layout.hpp"
#include "kernel/payload_bytes.hpp"

#include <algorithm>

namespace openetw::kernel {

namespace {

// How many code units of s fit in `room` bytes with their NUL, not ending
// between the halves of a surrogate pair.
std::u16string_view fit_utf16(std::u16string_view s, std::size_t room)
{
    s = s.substr(0, s.find(u'\0'));
    const std::size_t units = room >= 2 ? room / 2 - 1 : 0;
    if (s.size() <= units)
        return s;
    std::size_t n = units;
    if (n > 0 && s[n - 1] >= 0xD800 && s[n - 1] <= 0xDBFF)
        --n;
    return s.substr(0, n);
}

std::size_t utf16_bytes(std::u16string_view s) { return 2 * (s.substr(0, s.find(u'\0')).size() + 1); }

std::size_t header_size(HeaderKind kind)
{
    switch (kind) {
    case HeaderKind::System:
        return etl::kSystemHeaderSize;
    case HeaderKind::Compact:
        return etl::kCompactHeaderSize;
    case HeaderKind::PerfInfo:
        return etl::kPerfInfoHeaderSize;
    }
    return etl::kSystemHeaderSize;
}

std::uint8_t header_type(HeaderKind kind, std::uint32_t pointer_size)
{
    const bool wide = pointer_size == 8;
    switch (kind) {
    case HeaderKind::System:
        return wide ? etl::kSystem64 : etl::kSystem32;
    case HeaderKind::Compact:
        return wide ? etl::kCompact64 : etl::kCompact32;
    case HeaderKind::PerfInfo:
        return wide ? etl::kPerfInfo64 : etl::kPerfInfo32;
    }
    return etl::kSystem64;
}

// The room a payload has in a record of at most max_record bytes.
std::size_t payload_room(std::size_t max_record)
{
    return std::min(max_record, kMaxRecordSize) - std::min(max_record, etl::kSystemHeaderSize);
}

} // namespace

Bytes encode_record(HeaderKind kind, const HeaderFields &h, std::uint32_t pointer_size, const Bytes &payload)
{
    const std::size_t head = header_size(kind);
    const std::size_t size = head + payload.size();
    if (size > kMaxRecordSize)
        return {};
    Bytes out(size);
    std::uint8_t *p = out.data();
    // The Version word keeps only the event version: its high bits announce
    // PEBS/PMC items, which these records never carry.
    etl::wr16(p, std::uint16_t(h.version & ~(etl::kPebsIndexFlag | etl::kPmcCountersMask)));
    p[2] = header_type(kind, pointer_size);
    p[3] = etl::kMarkerFixedHeader;
    etl::wr16(p + 4, std::uint16_t(size));
    etl::wr16(p + 6, h.hook_id);
    if (kind == HeaderKind::PerfInfo) {
        etl::wr64(p + 8, std::uint64_t(h.timestamp));
    } else {
        etl::wr32(p + 8, h.thread_id);
        etl::wr32(p + 12, h.process_id);
        etl::wr64(p + 16, std::uint64_t(h.timestamp));
        if (kind == HeaderKind::System) {
            etl::wr32(p + 24, h.kernel_time);
            etl::wr32(p + 28, h.user_time);
        }
    }
    std::copy(payload.begin(), payload.end(), out.begin() + std::ptrdiff_t(head));
    return out;
}

Bytes perfinfo_record(std::uint16_t hook, std::uint16_t version, std::int64_t timestamp, std::uint32_t pointer_size,
                      const Bytes &payload)
{
    HeaderFields h;
    h.hook_id = hook;
    h.version = version;
    h.timestamp = timestamp;
    return encode_record(HeaderKind::PerfInfo, h, pointer_size, payload);
}

Bytes unix_user_sid(std::uint32_t uid)
{
    Bytes sid = {1, 2, 0, 0, 0, 0, 0, 22}; // revision 1, 2 sub-authorities, authority 22 (big-endian)
    for (std::uint32_t sub : {1u, uid})
        for (int i = 0; i < 4; ++i)
            sid.push_back(std::uint8_t(sub >> (8 * i)));
    return sid;
}

Bytes process_payload(const ProcessFields &p, std::uint32_t pointer_size, std::size_t max_record)
{
    PayloadBytes w(pointer_size);
    w.ptr(p.unique_process_key);
    w.u32(p.process_id);
    w.u32(p.parent_id);
    w.u32(p.session_id);
    w.u32(std::uint32_t(p.exit_status));
    w.ptr(p.directory_table_base);
    w.u32(p.flags);
    // UserSID as the kernel logs it: a TOKEN_USER (SID_AND_ATTRIBUTES: the
    // Sid pointer, then Attributes padded to a pointer) followed by the SID;
    // 4 zero bytes when there is none. Readers take a zero first 32-bit word
    // for "no SID", so the pointer must be non-zero in its low half: it is
    // the SID's offset from the TOKEN_USER (where it follows it).
    if (p.user_sid.empty()) {
        w.u32(0);
    } else {
        w.ptr(2 * pointer_size);
        w.ptr(0);
        w.bytes(p.user_sid);
    }
    w.ansi(p.image_file_name);
    const std::size_t rest = utf16_bytes(p.package_full_name) + utf16_bytes(p.application_id);
    const std::size_t used = w.size() + rest;
    const std::size_t room = payload_room(max_record);
    w.utf16(fit_utf16(p.command_line, room > used ? room - used : 0));
    w.utf16(p.package_full_name);
    w.utf16(p.application_id);
    return w.take();
}

Bytes process_record(Opcode type, HeaderFields header, const ProcessFields &p, std::uint32_t pointer_size,
                     std::size_t max_record)
{
    header.hook_id = hook_id(kGroupProcess, std::uint8_t(type));
    header.version = kProcessVersion;
    return encode_record(HeaderKind::System, header, pointer_size, process_payload(p, pointer_size, max_record));
}

Bytes thread_payload(const ThreadFields &t, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.u32(t.process_id);
    w.u32(t.thread_id);
    w.ptr(t.stack_base);
    w.ptr(t.stack_limit);
    w.ptr(t.user_stack_base);
    w.ptr(t.user_stack_limit);
    w.ptr(t.affinity);
    w.ptr(t.win32_start_addr);
    w.ptr(t.teb_base);
    w.u32(t.sub_process_tag);
    w.u8(t.base_priority);
    w.u8(t.page_priority);
    w.u8(t.io_priority);
    w.u8(t.thread_flags);
    return w.take();
}

Bytes thread_record(Opcode type, HeaderFields header, const ThreadFields &t, std::uint32_t pointer_size)
{
    header.hook_id = hook_id(kGroupThread, std::uint8_t(type));
    header.version = kThreadVersion;
    return encode_record(HeaderKind::System, header, pointer_size, thread_payload(t, pointer_size));
}

Bytes image_payload(const ImageFields &i, std::uint32_t pointer_size, std::size_t max_record)
{
    PayloadBytes w(pointer_size);
    w.ptr(i.image_base);
    w.ptr(i.image_size);
    w.u32(i.process_id);
    w.u32(i.image_checksum);
    w.u32(i.time_date_stamp);
    w.u32(i.reserved0);
    w.ptr(i.default_base);
    for (std::uint32_t r : i.reserved)
        w.u32(r);
    const std::size_t room = payload_room(max_record);
    w.utf16(fit_utf16(i.file_name, room > w.size() ? room - w.size() : 0));
    return w.take();
}

std::uint16_t image_hook_id(Opcode type)
{
    if (type == Opcode::Load || type == Opcode::Start)
        return hook_id(kGroupProcess, std::uint8_t(Opcode::Load));
    return hook_id(kGroupImage, std::uint8_t(type));
}

Bytes image_record(Opcode type, HeaderFields header, const ImageFields &i, std::uint32_t pointer_size,
                   std::size_t max_record)
{
    header.hook_id = image_hook_id(type);
    header.version = kImageVersion;
    return encode_record(HeaderKind::System, header, pointer_size, image_payload(i, pointer_size, max_record));
}

} // namespace openetw::kernel
