// One ETW record as an OpenTelemetry LogRecord (docs/OTLP.md, "A record"):
// time, severity, body and attributes, the decoded fields typed. Pure; any
// thread. Uses only the public record and decoded-event types.
#pragma once

#include "opentelemetry/proto/logs/v1/logs.pb.h"

#include <openetw/consumer.h>
#include <openetw/decode.h>

#include <cstdint>

namespace openetw::otlp {

// A FILETIME (100 ns since 1601) as nanoseconds since 1970; 0 before 1970.
std::uint64_t unix_nanos_of_filetime(std::int64_t filetime);

// Fills out from record and, when the event decoded, event (else NULL: the
// record still goes, with its identity and no fields). observed_unix_nanos
// is when the exporter saw it.
void to_log_record(const etw_record &record, const etw_decoded_event *event, std::uint64_t observed_unix_nanos,
                   opentelemetry::proto::logs::v1::LogRecord &out);

} // namespace openetw::otlp
