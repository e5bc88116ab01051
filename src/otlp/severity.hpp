// The OpenTelemetry severity of an ETW level (docs/OTLP.md, "Severity").
// Pure; any thread.
#pragma once

#include <cstdint>

namespace openetw::otlp {

struct Severity {
    int number;       // opentelemetry.proto.logs.v1.SeverityNumber
    const char *text; // its short name, as OpenTelemetry's SDKs write it
};

Severity severity_of_level(std::uint8_t level);

} // namespace openetw::otlp
