#include "kernel/system_config.hpp"

#include "base/utf.hpp"
#include "platform/proc_info.hpp"

#include <algorithm>

namespace openetw::kernel {

namespace {

constexpr std::uint32_t kArphrdLoopback = 772;
constexpr std::uint32_t kDriveTypePartition = 1, kDriveTypeVolume = 2;

std::u16string utf16(const std::string &s) { return utf8_to_utf16_lossy(s); }

std::string join(const std::vector<std::string> &items)
{
    std::string out;
    for (const std::string &i : items)
        out += (out.empty() ? "" : ",") + i;
    return out;
}

} // namespace

ConfigCpuFields cpu_fields(const platform::MachineSummary &m)
{
    ConfigCpuFields c;
    c.mhz = m.mhz;
    c.number_of_processors = m.processors;
    c.mem_size = std::uint32_t(std::min<std::uint64_t>(m.memory_bytes >> 20, 0xFFFFFFFFu));
    c.page_size = m.page_size;
    c.allocation_granularity = m.page_size; // mmap's granularity: Linux has no 64 KB reservation unit
    c.computer_name = utf16(m.host_name);
    c.domain_name = utf16(m.domain_name);
    c.hyper_threading_flag = m.smt_processors;
    return c;
}

ConfigPhyDiskFields phydisk_fields(std::uint32_t disk_number, const platform::BlockDiskDetail &d)
{
    ConfigPhyDiskFields p;
    p.disk_number = disk_number;
    p.bytes_per_sector = d.logical_block_size ? d.logical_block_size : 512;
    // One sector a track and one track a cylinder: Cylinders counts the
    // disk's sectors, so the product the class implies is its exact size
    // (a 255-head, 63-sector geometry would drop the remainder).
    p.sectors_per_track = 1;
    p.tracks_per_cylinder = 1;
    p.cylinders = d.sectors * 512 / p.bytes_per_sector;
    if (d.has_scsi_address) {
        p.scsi_port = d.scsi_host;
        p.scsi_path = d.scsi_channel;
        p.scsi_target = d.scsi_target;
        p.scsi_lun = d.scsi_lun;
    }
    std::string maker = d.vendor;
    if (!d.model.empty())
        maker += (maker.empty() ? "" : " ") + d.model;
    p.manufacturer = utf16(maker);
    p.partition_count = std::uint32_t(d.partitions.size());
    p.write_cache_enabled = d.write_back_cache ? 1 : 0;
    return p;
}

ConfigLogDiskFields logdisk_fields(std::uint32_t disk_number, const platform::BlockDiskDetail &disk,
                                   const platform::BlockPartition *partition, const platform::MountedFilesystem &mount,
                                   const platform::FilesystemSpace &space)
{
    ConfigLogDiskFields l;
    l.disk_number = disk_number;
    l.start_offset = partition ? partition->start_sector * 512 : 0;
    l.partition_size = (partition ? partition->sectors : disk.sectors) * 512;
    l.size = std::uint32_t(config_logdisk_payload(l).size()); // the structure's size, as Windows' cbSize
    l.drive_type = partition ? kDriveTypePartition : kDriveTypeVolume;
    l.partition_number = partition ? partition->number : 0;
    l.bytes_per_sector = disk.logical_block_size ? disk.logical_block_size : 512;
    // A cluster is the filesystem's block (f_frsize), at least a sector.
    const std::uint64_t cluster = std::max<std::uint64_t>(space.block_size, l.bytes_per_sector);
    l.sectors_per_cluster = std::uint32_t(cluster / l.bytes_per_sector);
    l.total_number_of_clusters = std::int64_t(space.blocks * space.block_size / cluster);
    l.number_of_free_clusters = std::int64_t(space.blocks_available * space.block_size / cluster);
    l.file_system = utf16(mount.type);
    return l;
}

bool nic_described(const platform::NetworkInterface &n) { return n.hardware_type != kArphrdLoopback; }

ConfigNicFields nic_fields(const platform::NetworkInterface &n, const std::vector<std::string> &dns_servers)
{
    ConfigNicFields c;
    for (std::size_t i = 0; i < n.hw_address.size() && i < 8; ++i)
        c.physical_addr |= std::uint64_t(n.hw_address[i]) << (8 * i);
    c.physical_addr_len = std::uint32_t(std::min<std::size_t>(n.hw_address.size(), 8));
    c.ipv4_index = n.index;
    c.ipv6_index = n.index;
    c.nic_description = utf16(n.name);
    c.ip_addresses = utf16(join(n.addresses));
    c.dns_server_addresses = utf16(join(dns_servers));
    return c;
}

void system_config_rundown(const SystemConfigOptions &o, const std::function<void(Bytes &&)> &each)
{
    auto emit = [&](ConfigType type, const Bytes &payload) {
        if (Bytes r = config_record(type, o.header, o.pointer_size, payload); !r.empty())
            each(std::move(r));
    };
    platform::MachineSummary machine;
    if (platform::machine_summary(&machine) == ETW_OK)
        emit(ConfigType::Cpu, config_cpu_payload(cpu_fields(machine), o.pointer_size));

    // Whole disks in DiskIo's order, so that PhyDisk's DiskNumber is DiskIo's.
    std::vector<platform::SysBlockDisk> disks;
    if (platform::sys_block_disks(&disks) != ETW_OK)
        disks.clear();
    std::sort(disks.begin(), disks.end(), [](const platform::SysBlockDisk &a, const platform::SysBlockDisk &b) {
        return disk_name_less(a.name, b.name);
    });
    std::vector<platform::BlockDiskDetail> details(disks.size());
    for (std::size_t i = 0; i < disks.size(); ++i) {
        if (platform::sys_block_disk_detail(disks[i].name, &details[i]) != ETW_OK)
            continue; // gone since listed: its number stays taken
        emit(ConfigType::PhyDisk, config_phydisk_payload(phydisk_fields(std::uint32_t(i), details[i])));
    }

    std::vector<platform::MountedFilesystem> mounts;
    if (platform::mounted_filesystems(&mounts) != ETW_OK)
        mounts.clear();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> described;
    for (const platform::MountedFilesystem &m : mounts) {
        const std::pair<std::uint32_t, std::uint32_t> dev{m.major, m.minor};
        if (std::find(described.begin(), described.end(), dev) != described.end())
            continue;
        for (std::size_t i = 0; i < disks.size(); ++i) {
            const platform::BlockPartition *part = nullptr;
            for (const auto &p : details[i].partitions)
                if (p.major == m.major && p.minor == m.minor)
                    part = &p;
            const bool whole = disks[i].major == m.major && disks[i].minor == m.minor;
            if (!part && !whole)
                continue;
            platform::FilesystemSpace space;
            if (platform::filesystem_space(m.mount_point, &space) == ETW_OK) {
                emit(ConfigType::LogDisk,
                     config_logdisk_payload(logdisk_fields(std::uint32_t(i), details[i], part, m, space)));
                described.push_back(dev);
            }
            break;
        }
    }

    std::vector<platform::NetworkInterface> nics;
    std::vector<std::string> dns;
    if (platform::dns_servers(&dns) != ETW_OK)
        dns.clear();
    if (platform::network_interfaces(&nics) == ETW_OK)
        for (const auto &n : nics)
            if (nic_described(n))
                emit(ConfigType::Nic, config_nic_payload(nic_fields(n, dns)));
}

} // namespace openetw::kernel
