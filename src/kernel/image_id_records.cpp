#include "kernel/image_id_records.hpp"

#include "format/etl_layout.hpp"
#include "kernel/payload_bytes.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::kernel {

DbgIdRsdsFields dbgid_from_build_id(std::span<const std::uint8_t> build_id, std::uint64_t image_base,
                                    std::uint32_t process_id, std::string pdb_file_name)
{
    std::uint8_t id[kDbgIdBuildIdBytes] = {};
    std::copy_n(build_id.begin(), std::min(build_id.size(), kDbgIdBuildIdBytes), id);
    DbgIdRsdsFields f;
    f.image_base = image_base;
    f.process_id = process_id;
    std::memcpy(f.guid_sig, id, 16);
    f.age =
        std::uint32_t(id[16]) | std::uint32_t(id[17]) << 8 | std::uint32_t(id[18]) << 16 | std::uint32_t(id[19]) << 24;
    f.pdb_file_name = std::move(pdb_file_name);
    return f;
}

Bytes dbgid_rsds_payload(const DbgIdRsdsFields &f, std::uint32_t pointer_size, std::size_t max_record)
{
    PayloadBytes w(pointer_size);
    w.ptr(f.image_base);
    w.u32(f.process_id);
    w.raw(f.guid_sig, 16);
    w.u32(f.age);
    const std::size_t limit = std::min(max_record, kMaxRecordSize);
    const std::size_t used = etl::kFullHeaderSize + w.size() + 1; // the name's NUL
    std::string name = f.pdb_file_name.substr(0, f.pdb_file_name.find('\0'));
    if (used + name.size() > limit) {
        std::size_t n = limit > used ? limit - used : 0;
        while (n > 0 && (std::uint8_t(name[n]) & 0xC0) == 0x80) // not inside a UTF-8 sequence
            --n;
        name.resize(n);
    }
    w.ansi(name);
    return w.take();
}

Bytes encode_classic_record(const etw_guid &guid, std::uint8_t type, std::uint16_t version, const HeaderFields &header,
                            std::uint32_t pointer_size, const Bytes &payload)
{
    const std::size_t size = etl::kFullHeaderSize + payload.size();
    if (size > kMaxRecordSize)
        return {};
    Bytes out(size, 0);
    std::uint8_t *p = out.data();
    etl::wr16(p, std::uint16_t(size));
    p[2] = pointer_size == 4 ? etl::kFullHeader32 : etl::kFullHeader64;
    p[3] = etl::kMarkerFixedHeader;
    p[4] = type; // Class.Type, Class.Level (0), Class.Version
    etl::wr16(p + 6, version);
    etl::wr32(p + 8, header.thread_id);
    etl::wr32(p + 12, header.process_id);
    etl::wr64(p + 16, std::uint64_t(header.timestamp));
    etl::wr32(p + 24, guid.Data1);
    etl::wr16(p + 28, guid.Data2);
    etl::wr16(p + 30, guid.Data3);
    std::memcpy(p + 32, guid.Data4, 8);
    // KernelTime/UserTime at 40 stay 0: the logger has no CPU times for it.
    std::copy(payload.begin(), payload.end(), out.begin() + std::ptrdiff_t(etl::kFullHeaderSize));
    return out;
}

Bytes dbgid_rsds_record(const HeaderFields &header, const DbgIdRsdsFields &f, std::uint32_t pointer_size,
                        std::size_t max_record)
{
    return encode_classic_record(kImageIdGuid, kImageIdTypeDbgIdRsds, kImageIdVersion, header, pointer_size,
                                 dbgid_rsds_payload(f, pointer_size, max_record));
}

} // namespace openetw::kernel
