#include "kernel/file_io_records.hpp"

#include "kernel/payload_bytes.hpp"

namespace openetw::kernel {

namespace {

constexpr std::size_t kSystemHeaderSize = 0x20;

// A NUL-terminated UTF-16 string holding at most max_bytes (its NUL
// included), cut before a split surrogate pair.
void utf16_within(PayloadBytes &w, std::u16string_view s, std::size_t max_bytes)
{
    s = s.substr(0, s.find(u'\0'));
    std::size_t n = max_bytes / 2 == 0 ? 0 : std::min(s.size(), max_bytes / 2 - 1);
    if (n > 0 && n < s.size() && s[n - 1] >= 0xD800 && s[n - 1] <= 0xDBFF)
        --n;
    w.utf16(s.substr(0, n));
}

std::size_t room(std::size_t max_record, std::size_t fixed)
{
    const std::size_t limit = std::min(max_record, kMaxRecordSize);
    return limit > kSystemHeaderSize + fixed ? limit - kSystemHeaderSize - fixed : 0;
}

} // namespace

Bytes file_name_payload(const FileNameFields &f, std::uint32_t pointer_size, std::size_t max_record)
{
    PayloadBytes w(pointer_size);
    w.ptr(f.file_object);
    utf16_within(w, f.file_name, room(max_record, w.size()));
    return w.take();
}

Bytes file_create_payload(const FileCreateFields &f, std::uint32_t pointer_size, std::size_t max_record)
{
    PayloadBytes w(pointer_size);
    w.ptr(f.irp).ptr(f.ttid).ptr(f.file_object).u32(f.create_options).u32(f.file_attributes).u32(f.share_access);
    utf16_within(w, f.open_path, room(max_record, w.size()));
    return w.take();
}

Bytes file_simple_op_payload(const FileSimpleOpFields &f, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.ptr(f.irp).ptr(f.ttid).ptr(f.file_object).ptr(f.file_key);
    return w.take();
}

Bytes file_read_write_payload(const FileReadWriteFields &f, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.u64(f.offset).ptr(f.irp).ptr(f.ttid).ptr(f.file_object).ptr(f.file_key).u32(f.io_size).u32(f.io_flags);
    return w.take();
}

Bytes file_info_payload(const FileInfoFields &f, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.ptr(f.irp).ptr(f.ttid).ptr(f.file_object).ptr(f.file_key).ptr(f.extra_info).u32(f.info_class);
    return w.take();
}

Bytes file_op_end_payload(const FileOpEndFields &f, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.ptr(f.irp).ptr(f.extra_info).u32(f.nt_status);
    return w.take();
}

Bytes file_io_record(FileIoType type, HeaderFields header, const Bytes &payload, std::uint32_t pointer_size)
{
    if (payload.empty())
        return {};
    header.hook_id = hook_id(kGroupFile, std::uint8_t(type));
    header.version = kFileIoVersion;
    return encode_record(HeaderKind::System, header, pointer_size, payload);
}

} // namespace openetw::kernel
