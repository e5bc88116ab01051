// The names of kernel events whose stacks may be asked for, as xperf's
// -stackwalk takes them ("Profile+CSwitch+ReadyThread", or 0xmmnn: group mm,
// event type nn), parsed into CLASSIC_EVENT_IDs (class GUID and type) for
// etw_session_set_stack_tracing. Names only: which of them this system can
// serve is stack_events.hpp's to say. Constant data, no state.
#pragma once

#include "base/status.hpp"

#include <openetw/session.h>

#include <string_view>
#include <vector>

namespace openetw::kernel {

// Parses a list of names separated by ',' '+' '|' or spaces, any case, each
// an xperf stackwalk flag or 0xmmnn; appends each event to *out. "none"
// alone is the empty list (stacks off). An empty list, an unknown name or a
// group with no kernel class fails with ETW_ERROR_INVALID_PARAMETER naming it
// (*out then unchanged).
Status parse_stack_events(std::string_view text, std::vector<etw_classic_event_id> *out);

} // namespace openetw::kernel
