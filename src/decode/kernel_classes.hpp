// The classic MOF classes of the NT Kernel Logger, as the ETW documentation
// publishes them (EventTrace_Header, Process_TypeGroup1, Thread_TypeGroup1, Image_Load,
// DiskIo_TypeGroup1, FileIo_Name, TcpIp_TypeGroup1/SendIPV4,
// Registry_TypeGroup1, PageFault_TypeGroup1 and _HardFault, SysCallEnter/Exit,
// SystemConfig_V2 CPU/PhyDisk/LogDisk/NIC), by event version. Fields
// with the MOF Pointer qualifier are POINTER (4 or 8 bytes as the record's
// header type says), so one schema serves 32- and 64-bit traces.
// SYSTEM/COMPACT/PERFINFO records are found by HookId (group << 8 | type),
// EVENT_TRACE_HEADER records by class GUID and Class.Type; a version newer
// than any known one uses the newest known (versions only append fields).
#pragma once

#include "decode/event_decoder.hpp"

#include <map>
#include <tuple>

namespace openetw::decode {

class KernelClasses : public SchemaSource {
public:
    KernelClasses();
    const EventSchema *find(const etw_record &record) const override;
    Source kind() const override { return Source::Kernel; }

    // For tests and documentation: how many (group, type, version) schemas there are.
    std::size_t size() const { return schemas_.size(); }

private:
    // (group, opcode, version) -> schema
    std::map<std::tuple<std::uint8_t, std::uint8_t, std::uint8_t>, EventSchema> schemas_;
};

} // namespace openetw::decode
