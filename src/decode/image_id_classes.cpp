#include "decode/image_id_classes.hpp"

#include <cstring>
#include <initializer_list>
#include <utility>

namespace openetw::decode {

namespace {

// {b3e675d7-2554-4f18-830b-2762732560de}
constexpr etw_guid kImageIdGuid = {0xb3e675d7, 0x2554, 0x4f18, {0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde}};

EventSchema schema(const char *opcode,
                   std::initializer_list<std::pair<const char *, std::pair<InType, OutType>>> fields)
{
    EventSchema s;
    s.provider_name = "KernelTraceControl";
    s.task_name = "ImageID";
    s.opcode_name = opcode;
    s.event_name = std::string("ImageID/") + opcode;
    for (const auto &[name, types] : fields) {
        Field f;
        f.name = name;
        f.in_type = types.first;
        f.out_type = types.second;
        f.end = static_cast<std::uint32_t>(s.fields.size() + 1);
        s.fields.push_back(std::move(f));
    }
    return s;
}

} // namespace

ImageIdClasses::ImageIdClasses()
{
    // TraceEvent's ImageIDTraceData: the PE file's identity.
    schemas_[0] = schema("Info", {{"ImageBase", {kInPointer, kOutNull}},
                                  {"ImageSize", {kInPointer, kOutNull}},
                                  {"ProcessId", {kInUInt32, kOutNull}},
                                  {"TimeDateStamp", {kInUInt32, kOutHexInt32}},
                                  {"OriginalFileName", {kInUnicodeString, kOutNull}}});
    // DbgIDRSDSTraceData: the PDB's GUID and age (an ELF build id here).
    schemas_[36] = schema("DbgID_RSDS", {{"ImageBase", {kInPointer, kOutNull}},
                                         {"ProcessId", {kInUInt32, kOutNull}},
                                         {"GuidSig", {kInGuid, kOutNull}},
                                         {"Age", {kInUInt32, kOutNull}},
                                         {"PdbFileName", {kInAnsiString, kOutNull}}});
}

const EventSchema *ImageIdClasses::find(const etw_record &r) const
{
    if (r.kind != ETW_RECORD_KIND_FULL || std::memcmp(&r.guid, &kImageIdGuid, sizeof kImageIdGuid) != 0)
        return nullptr;
    const auto it = schemas_.find(r.opcode);
    return it == schemas_.end() ? nullptr : &it->second;
}

} // namespace openetw::decode
