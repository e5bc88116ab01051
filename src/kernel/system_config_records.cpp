#include "kernel/system_config_records.hpp"

#include "kernel/payload_bytes.hpp"

namespace openetw::kernel {

Bytes config_cpu_payload(const ConfigCpuFields &c, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.u32(c.mhz).u32(c.number_of_processors).u32(c.mem_size).u32(c.page_size).u32(c.allocation_granularity);
    // 134 units, not the MOF's 132: Windows' version 2 records put
    // HyperThreadingFlag at 800, aligned for its pointer.
    w.utf16_fixed(c.computer_name, 256).utf16_fixed(c.domain_name, 134);
    w.ptr(c.hyper_threading_flag);
    return w.take();
}

Bytes config_phydisk_payload(const ConfigPhyDiskFields &d)
{
    PayloadBytes w(8);
    w.u32(d.disk_number).u32(d.bytes_per_sector).u32(d.sectors_per_track).u32(d.tracks_per_cylinder);
    w.u64(d.cylinders).u32(d.scsi_port).u32(d.scsi_path).u32(d.scsi_target).u32(d.scsi_lun);
    w.utf16_fixed(d.manufacturer, 256).u32(d.partition_count).u8(d.write_cache_enabled).u8(d.pad);
    w.utf16_fixed(d.boot_drive_letter, 3).utf16_fixed(d.spare, 2);
    return w.take();
}

Bytes config_logdisk_payload(const ConfigLogDiskFields &d)
{
    PayloadBytes w(8);
    w.u64(d.start_offset).u64(d.partition_size).u32(d.disk_number).u32(d.size).u32(d.drive_type);
    w.utf16_fixed(d.drive_letter_string, 4).u32(d.pad1).u32(d.partition_number).u32(d.sectors_per_cluster);
    w.u32(d.bytes_per_sector).u32(d.pad2).u64(std::uint64_t(d.number_of_free_clusters));
    w.u64(std::uint64_t(d.total_number_of_clusters)).utf16_fixed(d.file_system, 16).u32(d.volume_ext).u32(d.pad3);
    return w.take();
}

Bytes config_nic_payload(const ConfigNicFields &n)
{
    PayloadBytes w(8);
    w.u64(n.physical_addr).u32(n.physical_addr_len).u32(n.ipv4_index).u32(n.ipv6_index);
    w.utf16(n.nic_description).utf16(n.ip_addresses).utf16(n.dns_server_addresses);
    return w.take();
}

Bytes config_record(ConfigType type, HeaderFields header, std::uint32_t pointer_size, const Bytes &payload)
{
    header.hook_id = hook_id(kGroupConfig, std::uint8_t(type));
    header.version = kSystemConfigVersion;
    return encode_record(HeaderKind::System, header, pointer_size, payload);
}

} // namespace openetw::kernel
