// The SystemConfig rundown Windows writes at the end of a kernel trace
// (unless EVENT_TRACE_FLAG_NO_SYSCONFIG): the machine's processors and
// memory (CPU), its whole disks (PhyDisk, numbered as DiskIo numbers them),
// the filesystems mounted on them (LogDisk) and its network interfaces
// (NIC), read through platform/machine_config.hpp and mapped onto the
// classes of system_config_records.hpp (docs/KERNEL_LOGGER.md says field by
// field where each value comes from).
#pragma once

#include "kernel/disk_records.hpp"
#include "kernel/system_config_records.hpp"
#include "platform/machine_config.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace openetw::kernel {

// ---- Linux facts to Windows fields (pure) ----
ConfigCpuFields cpu_fields(const platform::MachineSummary &m);
// disk_number: the disk's place in DiskIo's order (disk_name_less).
ConfigPhyDiskFields phydisk_fields(std::uint32_t disk_number, const platform::BlockDiskDetail &d);
// A filesystem mounted on a partition (partition non-null) or on the whole disk.
ConfigLogDiskFields logdisk_fields(std::uint32_t disk_number, const platform::BlockDiskDetail &disk,
                                   const platform::BlockPartition *partition, const platform::MountedFilesystem &mount,
                                   const platform::FilesystemSpace &space);
ConfigNicFields nic_fields(const platform::NetworkInterface &n, const std::vector<std::string> &dns_servers);
// Whether an interface is described (loopback is not an adapter).
bool nic_described(const platform::NetworkInterface &n);

// ---- The rundown ----
struct SystemConfigOptions {
    std::uint32_t pointer_size = 8;
    HeaderFields header; // timestamp, thread and process that write them
};
// Reads the machine and hands each record to `each`: CPU, then a PhyDisk per
// whole disk in DiskIo's order, a LogDisk per filesystem mounted on one of
// them (a device mounted twice once, at its first mount point), a NIC per
// interface but loopback. A part that cannot be read is left out (Windows:
// nothing is read, nothing written).
void system_config_rundown(const SystemConfigOptions &o, const std::function<void(Bytes &&)> &each);

} // namespace openetw::kernel
