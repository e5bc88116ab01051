// KernelTraceControl's ImageID class (b3e675d7-2554-4f18-830b-2762732560de):
// the image identities Windows' merged kernel traces carry and OpenETW's
// system logger writes for ELF build ids (kernel/image_id_records.hpp).
// EVENT_TRACE_HEADER records found by class GUID and Class.Type, named as
// TraceEvent's SymbolTraceEventParser names them: task "ImageID", opcodes
// "Info" (0) and "DbgID_RSDS" (36). Any version reads with these layouts.
#pragma once

#include "decode/event_decoder.hpp"

#include <map>

namespace openetw::decode {

class ImageIdClasses : public SchemaSource {
public:
    ImageIdClasses();
    const EventSchema *find(const etw_record &record) const override;
    Source kind() const override { return Source::Kernel; }

private:
    std::map<std::uint8_t, EventSchema> schemas_; // by Class.Type
};

} // namespace openetw::decode
