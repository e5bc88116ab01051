// SystemConfig records (group 0x15, the EventTraceConfig class): CPU 10,
// PhyDisk 11, LogDisk 12, NIC 13, as the version 2 classes lay them out
// (SystemConfig_V2_CPU, _PhyDisk, _LogDisk, _NIC): fixed UTF-16 arrays
// where the MOF gives a Max, NUL-terminated strings where it gives none.
//
// Written with a SYSTEM_TRACE_HEADER naming the thread that stopped the
// session (docs/KERNEL_LOGGER.md: a choice, not checked against a Windows
// file). Pure: the caller gathers the facts (system_config.hpp).
#pragma once

#include "kernel/kernel_records.hpp"

#include <cstdint>
#include <string>

namespace openetw::kernel {

inline constexpr std::uint8_t kGroupConfig = 0x15;
inline constexpr std::uint16_t kSystemConfigVersion = 2;

enum class ConfigType : std::uint8_t { Cpu = 10, PhyDisk = 11, LogDisk = 12, Nic = 13 };

// ---- SystemConfig_V2_CPU: 800 bytes and a pointer ----
struct ConfigCpuFields {
    std::uint32_t mhz = 0;
    std::uint32_t number_of_processors = 0;
    std::uint32_t mem_size = 0; // MB
    std::uint32_t page_size = 0;
    std::uint32_t allocation_granularity = 0;
    std::u16string computer_name;           // char16[256]
    std::u16string domain_name;             // char16[134]
    std::uint64_t hyper_threading_flag = 0; // pointer-sized: one bit a processor
};
Bytes config_cpu_payload(const ConfigCpuFields &c, std::uint32_t pointer_size);

// ---- SystemConfig_V2_PhyDisk: 568 bytes ----
struct ConfigPhyDiskFields {
    std::uint32_t disk_number = 0;
    std::uint32_t bytes_per_sector = 0;
    std::uint32_t sectors_per_track = 0;
    std::uint32_t tracks_per_cylinder = 0;
    std::uint64_t cylinders = 0;
    std::uint32_t scsi_port = 0, scsi_path = 0, scsi_target = 0, scsi_lun = 0;
    std::u16string manufacturer; // char16[256]
    std::uint32_t partition_count = 0;
    std::uint8_t write_cache_enabled = 0;
    std::uint8_t pad = 0;
    std::u16string boot_drive_letter; // char16[3]
    std::u16string spare;             // char16[2]
};
Bytes config_phydisk_payload(const ConfigPhyDiskFields &d);

// ---- SystemConfig_V2_LogDisk: 112 bytes ----
struct ConfigLogDiskFields {
    std::uint64_t start_offset = 0;   // bytes from the disk's start
    std::uint64_t partition_size = 0; // bytes
    std::uint32_t disk_number = 0;
    std::uint32_t size = 0;
    std::uint32_t drive_type = 0;       // 1 partition, 2 volume, 3 extended partition on several disks
    std::u16string drive_letter_string; // char16[4]
    std::uint32_t pad1 = 0;
    std::uint32_t partition_number = 0;
    std::uint32_t sectors_per_cluster = 0;
    std::uint32_t bytes_per_sector = 0;
    std::uint32_t pad2 = 0;
    std::int64_t number_of_free_clusters = 0;
    std::int64_t total_number_of_clusters = 0;
    std::u16string file_system; // char16[16]
    std::uint32_t volume_ext = 0;
    std::uint32_t pad3 = 0;
};
Bytes config_logdisk_payload(const ConfigLogDiskFields &d);

// ---- SystemConfig_V2_NIC ----
struct ConfigNicFields {
    std::uint64_t physical_addr = 0; // the hardware address's bytes from the lowest one up
    std::uint32_t physical_addr_len = 0;
    std::uint32_t ipv4_index = 0;
    std::uint32_t ipv6_index = 0;
    std::u16string nic_description;
    std::u16string ip_addresses;         // comma-separated
    std::u16string dns_server_addresses; // comma-separated
};
Bytes config_nic_payload(const ConfigNicFields &n);

// A SystemConfig/<type> record of a payload above, SYSTEM header, version 2.
Bytes config_record(ConfigType type, HeaderFields header, std::uint32_t pointer_size, const Bytes &payload);

} // namespace openetw::kernel
