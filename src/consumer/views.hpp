// The public view structs handed to callbacks, filled from decoded records
// and buffers. They point into the stream's buffer: borrowed for the call.
#pragma once

#include "consumer/stream.hpp"

#include <openetw/consumer.h>

#include <vector>

namespace openetw::consumer {

struct ViewContext {
    std::uint32_t file_index = 0;
    bool raw_timestamps = false;
    const format::TimeBase *time = nullptr;
};

void fill_record(etw_record &out, std::vector<etw_extended_item> &extended, const Stream &stream,
                 const ViewContext &context);

void fill_classic_event(etw_classic_event &out, const etw_record &record);
// The EVENT_RECORD view of an EVENT_HEADER record.
void fill_event_record(etw_event_record &out, const etw_record &record);

void fill_buffer_info(etw_buffer_info &out, const BufferState &buffer, const ViewContext &context);

} // namespace openetw::consumer
