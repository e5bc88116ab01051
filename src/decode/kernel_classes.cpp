#include "decode/kernel_classes.hpp"

#include "format/kernel_class_guids.hpp"

#include <cstring>
#include <initializer_list>
#include <vector>

namespace openetw::decode {

namespace {

// EVENT_TRACE_GROUP_* (the high byte of a HookId).
constexpr std::uint8_t kGroupHeader = 0x00, kGroupDiskIo = 0x01, kGroupMemory = 0x02, kGroupProcess = 0x03,
                       kGroupFile = 0x04, kGroupThread = 0x05, kGroupTcpIp = 0x06, kGroupRegistry = 0x09,
                       kGroupImage = 0x14, kGroupUdpIp = 0x11, kGroupPerfInfo = 0x0F, kGroupConfig = 0x15,
                       kGroupStackWalk = 0x18;

struct F {
    const char *name;
    std::uint16_t in;
    std::uint16_t out = kOutNull;
    std::uint16_t length = 0; // bytes of a BINARY field, characters of a fixed string
    bool rest = false;        // an array filling the rest of the payload
};

// Short names for the MOF types.
constexpr std::uint16_t I8 = kInInt8, I16 = kInInt16, U8 = kInUInt8, U16 = kInUInt16, U32 = kInUInt32, I32 = kInInt32,
                        U64 = kInUInt64, I64 = kInInt64, PTR = kInPointer, WSTR = kInUnicodeString,
                        ASTR = kInAnsiString, WSID = kInWbemSid;

} // namespace

KernelClasses::KernelClasses()
{
    auto add = [this](std::uint8_t group, const char *task, std::initializer_list<std::uint8_t> versions,
                      std::initializer_list<std::pair<std::uint8_t, const char *>> types,
                      const std::vector<F> &fields) {
        for (const auto &[type, opcode] : types) {
            for (std::uint8_t version : versions) {
                EventSchema s;
                s.provider_name = "MSNT_SystemTrace";
                s.task_name = task;
                s.opcode_name = opcode;
                s.event_name = std::string(task) + "/" + opcode;
                for (const F &f : fields) {
                    Field field;
                    field.name = f.name;
                    field.in_type = f.in;
                    field.out_type = f.out;
                    field.end = static_cast<std::uint32_t>(s.fields.size() + 1);
                    if (f.length) {
                        field.length_kind = LengthKind::Fixed;
                        field.length = f.length;
                    }
                    if (f.rest)
                        field.count_kind = CountKind::Rest;
                    s.fields.push_back(std::move(field));
                }
                schemas_[{group, type, version}] = std::move(s);
            }
        }
    };
    const std::initializer_list<std::pair<std::uint8_t, const char *>> start_end = {{1, "Start"},
                                                                                    {2, "End"},
                                                                                    {3, "DCStart"},
                                                                                    {4, "DCEnd"}};

    // EventTrace_Header (2): the TRACE_LOGFILE_HEADER of a file's first record, then the two names.
    add(kGroupHeader, "EventTrace", {2}, {{0, "Header"}},
        {{"BufferSize", U32},        {"Version", U32, kOutHexInt32},
         {"ProviderVersion", U32},   {"NumberOfProcessors", U32},
         {"EndTime", I64},           {"TimerResolution", U32},
         {"MaxFileSize", U32},       {"LogFileMode", U32, kOutHexInt32},
         {"BuffersWritten", U32},    {"StartBuffers", U32},
         {"PointerSize", U32},       {"EventsLost", U32},
         {"CPUSpeed", U32},          {"LoggerName", PTR},
         {"LogFileName", PTR},       {"TimeZoneInformation", kInBinary, kOutNull, 176},
         {"BootTime", I64},          {"PerfFreq", I64},
         {"StartTime", I64},         {"ReservedFlags", U32},
         {"BuffersLost", U32},       {"SessionNameString", WSTR},
         {"LogFileNameString", WSTR}});

    // Process_V2_TypeGroup1 (version 2) / Process_TypeGroup1 (3); version 4 adds Flags and the package names.
    add(kGroupProcess, "Process", {2, 3}, {{1, "Start"}, {2, "End"}, {3, "DCStart"}, {4, "DCEnd"}, {39, "Defunct"}},
        {{"UniqueProcessKey", PTR},
         {"ProcessId", U32},
         {"ParentId", U32},
         {"SessionId", U32},
         {"ExitStatus", I32},
         {"DirectoryTableBase", PTR},
         {"UserSID", WSID},
         {"ImageFileName", ASTR},
         {"CommandLine", WSTR}});
    add(kGroupProcess, "Process", {4}, {{1, "Start"}, {2, "End"}, {3, "DCStart"}, {4, "DCEnd"}, {39, "Defunct"}},
        {{"UniqueProcessKey", PTR},
         {"ProcessId", U32},
         {"ParentId", U32},
         {"SessionId", U32},
         {"ExitStatus", I32},
         {"DirectoryTableBase", PTR},
         {"Flags", U32},
         {"UserSID", WSID},
         {"ImageFileName", ASTR},
         {"CommandLine", WSTR},
         {"PackageFullName", WSTR},
         {"ApplicationId", WSTR}});

    // Thread_V2_TypeGroup1 (2) and Thread_TypeGroup1 (3).
    add(kGroupThread, "Thread", {2}, start_end,
        {{"ProcessId", U32, kOutHexInt32},
         {"TThreadId", U32, kOutHexInt32},
         {"StackBase", PTR},
         {"StackLimit", PTR},
         {"UserStackBase", PTR},
         {"UserStackLimit", PTR},
         {"StartAddr", PTR},
         {"Win32StartAddr", PTR},
         {"TebBase", PTR},
         {"SubProcessTag", U32, kOutHexInt32}});
    add(kGroupThread, "Thread", {3}, start_end,
        {{"ProcessId", U32, kOutHexInt32},
         {"TThreadId", U32, kOutHexInt32},
         {"StackBase", PTR},
         {"StackLimit", PTR},
         {"UserStackBase", PTR},
         {"UserStackLimit", PTR},
         {"Affinity", PTR},
         {"Win32StartAddr", PTR},
         {"TebBase", PTR},
         {"SubProcessTag", U32, kOutHexInt32},
         {"BasePriority", U8},
         {"PagePriority", U8},
         {"IoPriority", U8},
         {"ThreadFlags", U8}});

    // Image_Load (2, 3): Load is type 10, also logged under the process group.
    const std::initializer_list<F> image = {{"ImageBase", PTR},     {"ImageSize", PTR},     {"ProcessId", U32},
                                            {"ImageCheckSum", U32}, {"TimeDateStamp", U32}, {"Reserved0", U32},
                                            {"DefaultBase", PTR},   {"Reserved1", U32},     {"Reserved2", U32},
                                            {"Reserved3", U32},     {"Reserved4", U32},     {"FileName", WSTR}};
    add(kGroupImage, "Image", {2, 3}, {{10, "Load"}, {2, "UnLoad"}, {3, "DCStart"}, {4, "DCEnd"}}, image);
    add(kGroupProcess, "Image", {2, 3}, {{10, "Load"}}, image);

    // DiskIo_TypeGroup1: version 3 adds IssuingThreadId.
    add(kGroupDiskIo, "DiskIo", {2}, {{10, "Read"}, {11, "Write"}},
        {{"DiskNumber", U32},
         {"IrpFlags", U32, kOutHexInt32},
         {"TransferSize", U32},
         {"Reserved", U32},
         {"ByteOffset", I64},
         {"FileObject", PTR},
         {"Irp", PTR},
         {"HighResResponseTime", U64}});
    add(kGroupDiskIo, "DiskIo", {3}, {{10, "Read"}, {11, "Write"}},
        {{"DiskNumber", U32},
         {"IrpFlags", U32, kOutHexInt32},
         {"TransferSize", U32},
         {"Reserved", U32},
         {"ByteOffset", I64},
         {"FileObject", PTR},
         {"Irp", PTR},
         {"HighResResponseTime", U64},
         {"IssuingThreadId", U32}});

    // FileIo_Name (2, 3).
    add(kGroupFile, "FileIo", {2, 3}, {{0, "Name"}, {32, "FileCreate"}, {35, "FileDelete"}, {36, "FileRundown"}},
        {{"FileObject", PTR}, {"FileName", WSTR}});

    // FileIo_Create, FileIo_SimpleOp, FileIo_ReadWrite, FileIo_Info and FileIo_OpEnd (2).
    add(kGroupFile, "FileIo", {2}, {{64, "Create"}},
        {{"IrpPtr", PTR},
         {"TTID", PTR},
         {"FileObject", PTR},
         {"CreateOptions", U32, kOutHexInt32},
         {"FileAttributes", U32, kOutHexInt32},
         {"ShareAccess", U32, kOutHexInt32},
         {"OpenPath", WSTR}});
    add(kGroupFile, "FileIo", {2}, {{65, "Cleanup"}, {66, "Close"}, {73, "Flush"}},
        {{"IrpPtr", PTR}, {"TTID", PTR}, {"FileObject", PTR}, {"FileKey", PTR}});
    add(kGroupFile, "FileIo", {2}, {{67, "Read"}, {68, "Write"}},
        {{"Offset", U64},
         {"IrpPtr", PTR},
         {"TTID", PTR},
         {"FileObject", PTR},
         {"FileKey", PTR},
         {"IoSize", U32},
         {"IoFlags", U32, kOutHexInt32}});
    add(kGroupFile, "FileIo", {2},
        {{69, "SetInfo"}, {70, "Delete"}, {71, "Rename"}, {74, "QueryInfo"}, {75, "FSControl"}},
        {{"IrpPtr", PTR},
         {"TTID", PTR},
         {"FileObject", PTR},
         {"FileKey", PTR},
         {"ExtraInfo", PTR},
         {"InfoClass", U32}});
    add(kGroupFile, "FileIo", {2}, {{76, "OperationEnd"}},
        {{"IrpPtr", PTR}, {"ExtraInfo", PTR}, {"NtStatus", U32, kOutHexInt32}});

    // TcpIp_TypeGroup1 and TcpIp_SendIPV4 (2).
    add(kGroupTcpIp, "TcpIp", {2},
        {{11, "RecvIPV4"}, {13, "DisconnectIPV4"}, {14, "RetransmitIPV4"}, {16, "ReconnectIPV4"}, {18, "TCPCopyIPV4"}},
        {{"PID", U32},
         {"size", U32},
         {"daddr", U32, kOutIpv4},
         {"saddr", U32, kOutIpv4},
         {"dport", U16, kOutPort},
         {"sport", U16, kOutPort},
         {"seqnum", U32},
         {"connid", PTR}});
    add(kGroupTcpIp, "TcpIp", {2}, {{10, "SendIPV4"}},
        {{"PID", U32},
         {"size", U32},
         {"daddr", U32, kOutIpv4},
         {"saddr", U32, kOutIpv4},
         {"dport", U16, kOutPort},
         {"sport", U16, kOutPort},
         {"startime", U32},
         {"endtime", U32},
         {"seqnum", U32},
         {"connid", PTR}});

    // Registry_TypeGroup1 (2). Status is 4 bytes in the records although the MOF text qualifies it Pointer.
    add(kGroupRegistry, "Registry", {2},
        {{10, "Create"},
         {11, "Open"},
         {12, "Delete"},
         {13, "Query"},
         {14, "SetValue"},
         {15, "DeleteValue"},
         {16, "QueryValue"},
         {17, "EnumerateKey"},
         {18, "EnumerateValueKey"},
         {19, "QueryMultipleValue"},
         {20, "SetInformation"},
         {21, "Flush"},
         {22, "KCBCreate"},
         {23, "KCBDelete"},
         {24, "KCBRundownBegin"},
         {25, "KCBRundownEnd"},
         {26, "Virtualize"},
         {27, "Close"}},
        {{"InitialTime", I64}, {"Status", U32, kOutNtStatus}, {"Index", U32}, {"KeyHandle", PTR}, {"KeyName", WSTR}});

    // PageFault_TypeGroup1 (2).
    add(kGroupMemory, "PageFault", {2},
        {{10, "TransitionFault"},
         {11, "DemandZeroFault"},
         {12, "CopyOnWrite"},
         {13, "GuardPageFault"},
         {14, "HardPageFault"},
         {15, "AccessViolation"}},
        {{"VirtualAddress", PTR}, {"ProgramCounter", PTR}});
    // PageFault_HardFault (2): InitialTime a WmiTime (the session's clock).
    add(kGroupMemory, "PageFault", {2}, {{32, "HardFault"}},
        {{"InitialTime", I64},
         {"ReadOffset", U64, kOutHexInt64},
         {"VirtualAddress", PTR},
         {"FileObject", PTR},
         {"TThreadId", U32, kOutHexInt32},
         {"ByteCount", U32}});

    // CSwitch and ReadyThread (Thread_V2 classes, version 2).
    add(kGroupThread, "Thread", {2}, {{36, "CSwitch"}},
        {{"NewThreadId", U32, kOutHexInt32},
         {"OldThreadId", U32, kOutHexInt32},
         {"NewThreadPriority", I8},
         {"OldThreadPriority", I8},
         {"PreviousCState", U8},
         {"SpareByte", I8},
         {"OldThreadWaitReason", I8},
         {"OldThreadWaitMode", I8},
         {"OldThreadState", I8},
         {"OldThreadWaitIdealProcessor", I8},
         {"NewThreadWaitTime", U32, kOutHexInt32},
         {"Reserved", U32}});
    add(kGroupThread, "Thread", {2}, {{50, "ReadyThread"}},
        {{"TThreadId", U32, kOutHexInt32},
         {"AdjustReason", I8},
         {"AdjustIncrement", I8},
         {"Flag", I8},
         {"Reserved", I8}});

    // SampledProfile (2): Count is the samples the record stands for.
    add(kGroupPerfInfo, "PerfInfo", {2}, {{46, "SampleProfile"}},
        {{"InstructionPointer", PTR, kOutCodePointer}, {"ThreadId", U32}, {"Count", U16}, {"Reserved", U16}});
    // StackWalk_Event (2): the frames fill the rest of the record.
    add(kGroupStackWalk, "StackWalk", {2}, {{32, "Stack"}},
        {{"EventTimeStamp", U64},
         {"StackProcess", U32},
         {"StackThread", U32},
         {"Stacks", PTR, kOutCodePointer, 0, true}});

    // DiskIo_TypeGroup2 (the Init events) and DiskIo_TypeGroup3 (FlushBuffers): version 3 adds IssuingThreadId.
    add(kGroupDiskIo, "DiskIo", {2}, {{12, "ReadInit"}, {13, "WriteInit"}, {15, "FlushInit"}}, {{"Irp", PTR}});
    add(kGroupDiskIo, "DiskIo", {3}, {{12, "ReadInit"}, {13, "WriteInit"}, {15, "FlushInit"}},
        {{"Irp", PTR}, {"IssuingThreadId", U32}});
    add(kGroupDiskIo, "DiskIo", {2}, {{14, "FlushBuffers"}},
        {{"DiskNumber", U32}, {"IrpFlags", U32, kOutHexInt32}, {"HighResResponseTime", U64}, {"Irp", PTR}});
    add(kGroupDiskIo, "DiskIo", {3}, {{14, "FlushBuffers"}},
        {{"DiskNumber", U32},
         {"IrpFlags", U32, kOutHexInt32},
         {"HighResResponseTime", U64},
         {"Irp", PTR},
         {"IssuingThreadId", U32}});

    // TcpIp_TypeGroup2 (connect, accept) and the IPv6 classes: SendIPV6, TypeGroup3, TypeGroup4 (2).
    const auto join = [](std::vector<F> a, const std::vector<F> &b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    const std::vector<F> v4_head = {{"PID", U32},
                                    {"size", U32},
                                    {"daddr", U32, kOutIpv4},
                                    {"saddr", U32, kOutIpv4},
                                    {"dport", U16, kOutPort},
                                    {"sport", U16, kOutPort}};
    const std::vector<F> v6_head = {{"PID", U32},
                                    {"size", U32},
                                    {"daddr", kInBinary, kOutIpv6, 16},
                                    {"saddr", kInBinary, kOutIpv6, 16},
                                    {"dport", U16, kOutPort},
                                    {"sport", U16, kOutPort}};
    const std::vector<F> connect_tail = {{"mss", U16},         {"sackopt", U16}, {"tsopt", U16},
                                         {"wsopt", U16},       {"rcvwin", U32},  {"rcvwinscale", I16},
                                         {"sndwinscale", I16}, {"seqnum", U32},  {"connid", PTR}};
    const std::vector<F> send_tail = {{"startime", U32}, {"endtime", U32}, {"seqnum", U32}, {"connid", PTR}};
    const std::vector<F> group1_tail = {{"seqnum", U32}, {"connid", PTR}};
    add(kGroupTcpIp, "TcpIp", {2}, {{12, "ConnectIPV4"}, {15, "AcceptIPV4"}}, join(v4_head, connect_tail));
    add(kGroupTcpIp, "TcpIp", {2}, {{28, "ConnectIPV6"}, {31, "AcceptIPV6"}}, join(v6_head, connect_tail));
    add(kGroupTcpIp, "TcpIp", {2}, {{26, "SendIPV6"}}, join(v6_head, send_tail));
    add(kGroupTcpIp, "TcpIp", {2},
        {{27, "RecvIPV6"}, {29, "DisconnectIPV6"}, {30, "RetransmitIPV6"}, {32, "ReconnectIPV6"}, {34, "TCPCopyIPV6"}},
        join(v6_head, group1_tail));

    // UdpIp_TypeGroup1 (IPv4) and UdpIp_TypeGroup2 (IPv6), version 2.
    add(kGroupUdpIp, "UdpIp", {2}, {{10, "SendIPV4"}, {11, "RecvIPV4"}}, join(v4_head, group1_tail));
    add(kGroupUdpIp, "UdpIp", {2}, {{26, "SendIPV6"}, {27, "RecvIPV6"}}, join(v6_head, group1_tail));

    // SysCallEnter and SysCallExit (PerfInfo, version 2).
    add(kGroupPerfInfo, "PerfInfo", {2}, {{51, "SysClEnter"}}, {{"SysCallAddress", PTR}});
    add(kGroupPerfInfo, "PerfInfo", {2}, {{52, "SysClExit"}}, {{"SysCallNtStatus", U32, kOutNtStatus}});

    // SystemConfig_V2 CPU, PhyDisk, LogDisk, NIC: a char16 array with a Max
    // is that many characters in the record (F's length), NUL-padded.
    add(kGroupConfig, "SystemConfig", {2}, {{10, "CPU"}},
        {{"MHz", U32},
         {"NumberOfProcessors", U32},
         {"MemSize", U32},
         {"PageSize", U32},
         {"AllocationGranularity", U32},
         {"ComputerName", WSTR, kOutNull, 256},
         {"DomainName", WSTR, kOutNull, 134},
         {"HyperThreadingFlag", PTR}});
    add(kGroupConfig, "SystemConfig", {2}, {{11, "PhyDisk"}},
        {{"DiskNumber", U32},
         {"BytesPerSector", U32},
         {"SectorsPerTrack", U32},
         {"TracksPerCylinder", U32},
         {"Cylinders", U64},
         {"SCSIPort", U32},
         {"SCSIPath", U32},
         {"SCSITarget", U32},
         {"SCSILun", U32},
         {"Manufacturer", WSTR, kOutNull, 256},
         {"PartitionCount", U32},
         {"WriteCacheEnabled", U8},
         {"Pad", U8},
         {"BootDriveLetter", WSTR, kOutNull, 3},
         {"Spare", WSTR, kOutNull, 2}});
    add(kGroupConfig, "SystemConfig", {2}, {{12, "LogDisk"}},
        {{"StartOffset", U64},
         {"PartitionSize", U64},
         {"DiskNumber", U32},
         {"Size", U32},
         {"DriveType", U32},
         {"DriveLetterString", WSTR, kOutNull, 4},
         {"Pad1", U32},
         {"PartitionNumber", U32},
         {"SectorsPerCluster", U32},
         {"BytesPerSector", U32},
         {"Pad2", U32},
         {"NumberOfFreeClusters", I64},
         {"TotalNumberOfClusters", I64},
         {"FileSystem", WSTR, kOutNull, 16},
         {"VolumeExt", U32},
         {"Pad3", U32}});
    add(kGroupConfig, "SystemConfig", {2}, {{13, "NIC"}},
        {{"PhysicalAddr", U64, kOutHexInt64},
         {"PhysicalAddrLen", U32},
         {"Ipv4Index", U32},
         {"Ipv6Index", U32},
         {"NICDescription", WSTR},
         {"IpAddresses", WSTR},
         {"DnsServerAddresses", WSTR}});
}

const EventSchema *KernelClasses::find(const etw_record &r) const
{
    std::uint8_t group = 0, type = 0, version = 0;
    if (r.kind == ETW_RECORD_KIND_SYSTEM || r.kind == ETW_RECORD_KIND_COMPACT || r.kind == ETW_RECORD_KIND_PERFINFO) {
        group = static_cast<std::uint8_t>(r.hook_id >> 8);
        type = static_cast<std::uint8_t>(r.hook_id);
        version = static_cast<std::uint8_t>(r.version_word);
    } else if (r.kind == ETW_RECORD_KIND_FULL) {
        const auto known = etl::kernel_class_group(r.guid);
        if (!known)
            return nullptr;
        group = *known;
        type = r.opcode;
        version = static_cast<std::uint8_t>(r.version);
    } else {
        return nullptr;
    }
    // The newest schema whose version is at most the record's.
    auto it = schemas_.upper_bound({group, type, version});
    if (it == schemas_.begin())
        return nullptr;
    --it;
    const auto &[g, t, v] = it->first;
    if (g != group || t != type)
        return nullptr;
    (void)v;
    return &it->second;
}

} // namespace openetw::decode
