// SystemConfig CPU, PhyDisk, LogDisk and NIC in both layouts, read back
// through the consumer and decoded by name with exact field values; the
// Linux facts mapped onto their fields (sizes, clusters, the MAC); the
// parsers of mountinfo, resolv.conf and cpuinfo text.
#include "kernel_etl.hpp"

#include "kernel/system_config.hpp"

#include <gtest/gtest.h>

using namespace openetw::kernel;
using kerneltest::Seen;
namespace platform = openetw::platform;

namespace {

HeaderFields header() { return kerneltest::header_of(11, 22, 0x0123456789AB); }

void expect_config(const Seen &s, std::uint16_t hook, std::uint32_t ptr, const std::string &name)
{
    EXPECT_EQ(s.kind, ETW_RECORD_KIND_SYSTEM);
    EXPECT_EQ(s.header_type, ptr == 8 ? 0x02u : 0x01u);
    EXPECT_EQ(s.hook_id, hook);
    EXPECT_EQ(s.version_word, 2u);
    EXPECT_EQ(s.thread_id, 11u);
    EXPECT_EQ(s.process_id, 22u);
    EXPECT_EQ(s.timestamp_raw, 0x0123456789AB);
    EXPECT_EQ(s.problem, "");
    EXPECT_EQ(s.consumed, s.payload_size) << "the class must account for every payload byte";
    EXPECT_EQ(s.event_name, name);
}

std::uint32_t u32_at(const Bytes &b, std::size_t at)
{
    return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
           std::uint32_t(b[at + 3]) << 24;
}

} // namespace

TEST(SystemConfigRecords, CpuIsEightHundredBytesAndAPointerAndDecodesAsSystemConfigCpu)
{
    ConfigCpuFields c;
    c.mhz = 2994;
    c.number_of_processors = 2;
    c.mem_size = 24107;
    c.page_size = 4096;
    c.allocation_granularity = 4096;
    c.computer_name = u"build-vm";
    c.domain_name = u"corp";
    c.hyper_threading_flag = 0x3;
    for (std::uint32_t ptr : {4u, 8u}) {
        const Bytes payload = config_cpu_payload(c, ptr);
        ASSERT_EQ(payload.size(), 800u + ptr);
        EXPECT_EQ(u32_at(payload, 20), u'b' | u'u' << 16);  // ComputerName at 20
        EXPECT_EQ(u32_at(payload, 532), u'c' | u'o' << 16); // DomainName at 532
        EXPECT_EQ(u32_at(payload, 800), 3u);                // HyperThreadingFlag at 800
        const std::vector<Seen> seen =
            kerneltest::round_trip({config_record(ConfigType::Cpu, header(), ptr, payload)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_config(seen[0], 0x150A, ptr, "SystemConfig/CPU");
        const kerneltest::Pairs want = {
            {"MHz", "2994"},        {"NumberOfProcessors", "2"},       {"MemSize", "24107"},
            {"PageSize", "4096"},   {"AllocationGranularity", "4096"}, {"ComputerName", "build-vm"},
            {"DomainName", "corp"}, {"HyperThreadingFlag", "0x3"}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
    // A name longer than its array keeps its NUL: 255 characters of it.
    c.computer_name = std::u16string(300, u'x');
    const Bytes payload = config_cpu_payload(c, 8);
    EXPECT_EQ(payload.size(), 808u);
    EXPECT_EQ(payload[20 + 2 * 254], 'x');
    EXPECT_EQ(payload[20 + 2 * 255], 0);
}

TEST(SystemConfigRecords, PhyDiskIs568BytesAndDecodesAsSystemConfigPhyDisk)
{
    ConfigPhyDiskFields d;
    d.disk_number = 8;
    d.bytes_per_sector = 512;
    d.sectors_per_track = 1;
    d.tracks_per_cylinder = 1;
    d.cylinders = 0x12345678;
    d.scsi_port = 1;
    d.scsi_path = 2;
    d.scsi_target = 3;
    d.scsi_lun = 4;
    d.manufacturer = u"ATA Samsung SSD";
    d.partition_count = 2;
    d.write_cache_enabled = 1;
    const Bytes payload = config_phydisk_payload(d);
    ASSERT_EQ(payload.size(), 568u);
    EXPECT_EQ(u32_at(payload, 552), 2u); // PartitionCount after the 256 characters
    EXPECT_EQ(payload[556], 1);          // WriteCacheEnabled
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen =
            kerneltest::round_trip({config_record(ConfigType::PhyDisk, header(), ptr, payload)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_config(seen[0], 0x150B, ptr, "SystemConfig/PhyDisk");
        const kerneltest::Pairs want = {{"DiskNumber", "8"},
                                        {"BytesPerSector", "512"},
                                        {"SectorsPerTrack", "1"},
                                        {"TracksPerCylinder", "1"},
                                        {"Cylinders", "305419896"},
                                        {"SCSIPort", "1"},
                                        {"SCSIPath", "2"},
                                        {"SCSITarget", "3"},
                                        {"SCSILun", "4"},
                                        {"Manufacturer", "ATA Samsung SSD"},
                                        {"PartitionCount", "2"},
                                        {"WriteCacheEnabled", "1"},
                                        {"Pad", "0"},
                                        {"BootDriveLetter", ""},
                                        {"Spare", ""}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}

TEST(SystemConfigRecords, LogDiskIs112BytesAndDecodesAsSystemConfigLogDisk)
{
    ConfigLogDiskFields l;
    l.start_offset = 1048576;
    l.partition_size = 10737418240ull;
    l.disk_number = 8;
    l.size = 112;
    l.drive_type = 1;
    l.partition_number = 1;
    l.sectors_per_cluster = 8;
    l.bytes_per_sector = 512;
    l.number_of_free_clusters = 1000;
    l.total_number_of_clusters = 2621440;
    l.file_system = u"ext4";
    const Bytes payload = config_logdisk_payload(l);
    ASSERT_EQ(payload.size(), 112u);
    EXPECT_EQ(u32_at(payload, 40), 1u);                // PartitionNumber after DriveLetterString[4] and Pad1
    EXPECT_EQ(u32_at(payload, 72), u'e' | u'x' << 16); // FileSystem at 72
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen =
            kerneltest::round_trip({config_record(ConfigType::LogDisk, header(), ptr, payload)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_config(seen[0], 0x150C, ptr, "SystemConfig/LogDisk");
        const kerneltest::Pairs want = {{"StartOffset", "1048576"},
                                        {"PartitionSize", "10737418240"},
                                        {"DiskNumber", "8"},
                                        {"Size", "112"},
                                        {"DriveType", "1"},
                                        {"DriveLetterString", ""},
                                        {"Pad1", "0"},
                                        {"PartitionNumber", "1"},
                                        {"SectorsPerCluster", "8"},
                                        {"BytesPerSector", "512"},
                                        {"Pad2", "0"},
                                        {"NumberOfFreeClusters", "1000"},
                                        {"TotalNumberOfClusters", "2621440"},
                                        {"FileSystem", "ext4"},
                                        {"VolumeExt", "0"},
                                        {"Pad3", "0"}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}

TEST(SystemConfigRecords, NicDecodesAsSystemConfigNic)
{
    ConfigNicFields n;
    n.physical_addr = 0x563412005452ull;
    n.physical_addr_len = 6;
    n.ipv4_index = 2;
    n.ipv6_index = 2;
    n.nic_description = u"eth0";
    n.ip_addresses = u"10.0.2.15,fe80::1";
    n.dns_server_addresses = u"10.0.2.3";
    const Bytes payload = config_nic_payload(n);
    EXPECT_EQ(payload.size(), 20u + 2 * (5 + 18 + 9));
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen =
            kerneltest::round_trip({config_record(ConfigType::Nic, header(), ptr, payload)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_config(seen[0], 0x150D, ptr, "SystemConfig/NIC");
        const kerneltest::Pairs want = {{"PhysicalAddr", "0x563412005452"},
                                        {"PhysicalAddrLen", "6"},
                                        {"Ipv4Index", "2"},
                                        {"Ipv6Index", "2"},
                                        {"NICDescription", "eth0"},
                                        {"IpAddresses", "10.0.2.15,fe80::1"},
                                        {"DnsServerAddresses", "10.0.2.3"}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}

TEST(SystemConfigFields, LinuxFactsMapOntoTheClasses)
{
    platform::MachineSummary m;
    m.processors = 4;
    m.mhz = 3000;
    m.memory_bytes = 8ull << 30;
    m.page_size = 4096;
    m.smt_processors = 0xF;
    m.host_name = "h\xC3\xA9te"; // UTF-8 in, UTF-16 out
    const ConfigCpuFields c = cpu_fields(m);
    EXPECT_EQ(c.number_of_processors, 4u);
    EXPECT_EQ(c.mhz, 3000u);
    EXPECT_EQ(c.mem_size, 8192u); // MB
    EXPECT_EQ(c.allocation_granularity, 4096u);
    EXPECT_EQ(c.computer_name, u"h\u00e9te");
    EXPECT_EQ(c.hyper_threading_flag, 0xFu);

    platform::BlockDiskDetail d;
    d.sectors = 2000000001; // 512-byte units, an odd count
    d.logical_block_size = 512;
    d.vendor = "ATA";
    d.model = "QEMU HARDDISK";
    d.has_scsi_address = true;
    d.scsi_host = 2;
    d.scsi_lun = 1;
    d.write_back_cache = true;
    d.partitions.push_back({"sda1", 1, 8, 1, 2048, 1000000});
    const ConfigPhyDiskFields p = phydisk_fields(3, d);
    EXPECT_EQ(p.disk_number, 3u);
    EXPECT_EQ(p.cylinders * p.tracks_per_cylinder * p.sectors_per_track * p.bytes_per_sector, d.sectors * 512)
        << "the geometry's product is the disk's exact size";
    EXPECT_EQ(p.manufacturer, u"ATA QEMU HARDDISK");
    EXPECT_EQ(p.scsi_port, 2u);
    EXPECT_EQ(p.scsi_lun, 1u);
    EXPECT_EQ(p.partition_count, 1u);
    EXPECT_EQ(p.write_cache_enabled, 1);
    d.logical_block_size = 4096;
    EXPECT_EQ(phydisk_fields(3, d).cylinders, d.sectors * 512 / 4096);

    d.logical_block_size = 512;
    platform::MountedFilesystem mount{8, 1, "/data", "xfs"};
    const platform::FilesystemSpace space{4096, 250000, 1000};
    const ConfigLogDiskFields l = logdisk_fields(3, d, &d.partitions[0], mount, space);
    EXPECT_EQ(l.disk_number, 3u);
    EXPECT_EQ(l.start_offset, 2048u * 512);
    EXPECT_EQ(l.partition_size, 1000000u * 512);
    EXPECT_EQ(l.partition_number, 1u);
    EXPECT_EQ(l.drive_type, 1u);
    EXPECT_EQ(l.size, 112u);
    EXPECT_EQ(l.sectors_per_cluster, 8u);
    EXPECT_EQ(l.total_number_of_clusters, 250000);
    EXPECT_EQ(l.number_of_free_clusters, 1000);
    EXPECT_EQ(l.file_system, u"xfs");
    EXPECT_EQ(l.drive_letter_string, u"");
    const ConfigLogDiskFields whole = logdisk_fields(3, d, nullptr, mount, space);
    EXPECT_EQ(whole.drive_type, 2u);
    EXPECT_EQ(whole.start_offset, 0u);
    EXPECT_EQ(whole.partition_size, d.sectors * 512);
    EXPECT_EQ(whole.partition_number, 0u);

    platform::NetworkInterface n;
    n.name = "eth0";
    n.index = 2;
    n.hardware_type = 1;
    n.hw_address = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
    n.addresses = {"10.0.2.15", "fe80::5054:ff:fe12:3456"};
    const ConfigNicFields nic = nic_fields(n, {"10.0.2.3", "1.1.1.1"});
    EXPECT_EQ(nic.physical_addr, 0x563412005452ull) << "the MAC's first byte lowest, as in memory";
    EXPECT_EQ(nic.physical_addr_len, 6u);
    EXPECT_EQ(nic.ipv4_index, 2u);
    EXPECT_EQ(nic.ip_addresses, u"10.0.2.15,fe80::5054:ff:fe12:3456");
    EXPECT_EQ(nic.dns_server_addresses, u"10.0.2.3,1.1.1.1");
    EXPECT_TRUE(nic_described(n));
    n.hardware_type = 772;
    EXPECT_FALSE(nic_described(n)) << "loopback is not an adapter";
}

TEST(MachineText, MountinfoResolvConfCpuinfoAndMacAddressesParse)
{
    platform::MountedFilesystem m;
    ASSERT_TRUE(platform::parse_mountinfo_line(
        "36 35 98:3 / /mnt/my\\040disk rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue", &m));
    EXPECT_EQ(m.major, 98u);
    EXPECT_EQ(m.minor, 3u);
    EXPECT_EQ(m.mount_point, "/mnt/my disk");
    EXPECT_EQ(m.type, "ext3");
    ASSERT_TRUE(platform::parse_mountinfo_line("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw", &m));
    EXPECT_EQ(m.major, 254u);
    EXPECT_EQ(m.mount_point, "/");
    EXPECT_FALSE(platform::parse_mountinfo_line("27 1 254:0 / / rw,relatime ext4 /dev/vda rw", &m)) << "no separator";
    EXPECT_FALSE(platform::parse_mountinfo_line("27 1 xx / / rw - ext4 /dev/vda rw", &m)) << "no device number";
    EXPECT_FALSE(platform::parse_mountinfo_line("", &m));

    EXPECT_EQ(platform::parse_resolv_conf("# comment\nsearch corp\nnameserver 10.0.0.1\nnameserver\t::1\n"
                                          "nameservers 9.9.9.9\n  nameserver 8.8.8.8  \n"),
              (std::vector<std::string>{"10.0.0.1", "::1", "8.8.8.8"}));
    EXPECT_TRUE(platform::parse_resolv_conf("").empty());

    EXPECT_EQ(platform::parse_cpuinfo_mhz("processor\t: 0\nmodel name\t: X\ncpu MHz\t\t: 2994.374\n"), 2994u);
    EXPECT_EQ(platform::parse_cpuinfo_mhz("processor\t: 0\nBogoMIPS\t: 50.00\n"), 0u) << "arm64 gives none";

    EXPECT_EQ(platform::parse_hw_address("52:54:00:12:34:56\n"),
              (std::vector<std::uint8_t>{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}));
    EXPECT_TRUE(platform::parse_hw_address("52:54:0").empty());
    EXPECT_TRUE(platform::parse_hw_address("52:54:").empty());
    EXPECT_TRUE(platform::parse_hw_address("zz:54").empty());
}
