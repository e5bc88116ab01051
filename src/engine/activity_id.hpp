// Activity ids (EventActivityIdControl): each thread's current id, which
// EVENT_HEADER events carry when the writer names none, and new ids unique
// on the machine. The thread's id is a plain thread-local: only its own
// thread reads or writes it.
#pragma once

#include "platform/process.hpp"

#include <openetw/records.h>
#include <openetw/status.h>

#include <cstdint>

namespace openetw::engine {

// The calling thread's activity id (zero until set).
extern thread_local etw_guid t_activity_id OPENETW_FAST_TLS;

// A new id, never zero: a per-process counter, the process id and a random
// per-process value, so that no two processes of one boot share one.
etw_guid new_activity_id() noexcept;

// EventActivityIdControl on the calling thread (ETW_ACTIVITY_CTRL_*):
// ETW_OK, or ETW_ERROR_INVALID_PARAMETER for an unknown code or NULL id.
etw_status activity_id_control(std::uint32_t code, etw_guid *id) noexcept;

} // namespace openetw::engine
