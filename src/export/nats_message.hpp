// A JetStream message's buffer tag, from its headers (buffer_message.hpp);
// shared by the reader and the follower. Built only with libnats.
#pragma once

#include "export/buffer_message.hpp"

#include <nats/nats.h>

namespace openetw::exporter {

// ETW_ERROR_INVALID_DATA naming the message's subject and the header at fault.
Status message_tag(natsMsg *message, BufferTag *out);

} // namespace openetw::exporter
