// What the machine is made of: its processors, memory and names, its disks
// and their partitions, the filesystems mounted on them and their space,
// its network interfaces and DNS servers (Linux: /proc, /sys, getifaddrs,
// statvfs, /etc/resolv.conf). The system logger's SystemConfig records
// (kernel/system_config.hpp) describe the machine from these at a
// session's end.
//
// Rules (every header of src/platform): nothing here is on the
// event-writing path; nothing throws; failures are etw_status values.
// posix/machine_config_posix.cpp reads Linux's files;
// windows/machine_config_windows.cpp returns ETW_ERROR_NOT_SUPPORTED
// (Windows' own kernel logger writes SystemConfig there). The text parsers
// (machine_text.cpp) are pure and serve every OS.
#pragma once

#include <openetw/status.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openetw::platform {

struct MachineSummary {
    std::uint32_t processors = 0;     // online processors
    std::uint32_t mhz = 0;            // the fastest a processor runs (cpufreq's maximum, else /proc/cpuinfo); 0 unknown
    std::uint64_t memory_bytes = 0;   // MemTotal
    std::uint32_t page_size = 0;      // bytes
    std::uint64_t smt_processors = 0; // processors 0..63 that share their core with another
    std::string host_name;
    std::string domain_name; // NIS domain; empty when none ("(none)")
};
etw_status machine_summary(MachineSummary *out) noexcept;

// A partition of a whole disk (/sys/block/DISK/PART).
struct BlockPartition {
    std::string name; // "vda1"
    std::uint32_t number = 0;
    std::uint32_t major = 0, minor = 0;
    std::uint64_t start_sector = 0; // 512-byte units from the disk's start
    std::uint64_t sectors = 0;      // 512-byte units
};

// What /sys/block/DISK says of a whole disk.
struct BlockDiskDetail {
    std::uint64_t sectors = 0;            // 512-byte units (the size file, whatever the block size)
    std::uint32_t logical_block_size = 0; // bytes (queue/logical_block_size)
    std::string vendor, model;            // device/vendor, device/model (SCSI, ATA); empty when absent
    bool write_back_cache = false;        // queue/write_cache says "write back"
    bool has_scsi_address = false;        // the device is a SCSI one (host:channel:target:lun)
    std::uint32_t scsi_host = 0, scsi_channel = 0, scsi_target = 0, scsi_lun = 0;
    std::vector<BlockPartition> partitions; // in no order
};
// ETW_ERROR_NOT_FOUND when /sys/block has no such disk.
etw_status sys_block_disk_detail(const std::string &disk, BlockDiskDetail *out) noexcept;

// One line of /proc/self/mountinfo.
struct MountedFilesystem {
    std::uint32_t major = 0, minor = 0; // the device mounted
    std::string mount_point;            // unescaped ("\040" is a space)
    std::string type;                   // "ext4"
};
// The filesystems mounted in this process's mount namespace, in mount order.
etw_status mounted_filesystems(std::vector<MountedFilesystem> *out) noexcept;

struct FilesystemSpace {
    std::uint64_t block_size = 0;       // f_frsize
    std::uint64_t blocks = 0;           // f_blocks
    std::uint64_t blocks_available = 0; // f_bavail: free to an unprivileged user
};
etw_status filesystem_space(const std::string &path, FilesystemSpace *out) noexcept;

struct NetworkInterface {
    std::string name; // "eth0"
    std::uint32_t index = 0;
    std::uint32_t hardware_type = 0;      // ARPHRD_* (1 Ethernet, 772 loopback)
    std::vector<std::uint8_t> hw_address; // the MAC, as on the wire
    std::vector<std::string> addresses;   // IPv4 then IPv6, as text
};
// Every interface of /sys/class/net, ordered by index, with its addresses.
etw_status network_interfaces(std::vector<NetworkInterface> *out) noexcept;
// The name servers of /etc/resolv.conf, in its order (none: empty, ETW_OK).
etw_status dns_servers(std::vector<std::string> *out) noexcept;

// ---- Parsers (machine_text.cpp) ----
// A mountinfo line ("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw").
// False when malformed.
bool parse_mountinfo_line(std::string_view line, MountedFilesystem *out);
// The nameserver addresses of a resolv.conf text.
std::vector<std::string> parse_resolv_conf(std::string_view text);
// The first "cpu MHz" of a /proc/cpuinfo text, rounded; 0 when absent.
std::uint32_t parse_cpuinfo_mhz(std::string_view text);
// "52:54:00:12:34:56" as bytes; empty when malformed.
std::vector<std::uint8_t> parse_hw_address(std::string_view text);

} // namespace openetw::platform
