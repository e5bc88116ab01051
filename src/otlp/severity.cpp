#include "otlp/severity.hpp"

namespace openetw::otlp {

Severity severity_of_level(std::uint8_t level)
{
    switch (level) {
    case 0:
        // LogAlways: the event is written whatever level a session asks for,
        // which says nothing of its severity; the schema forbids UNSPECIFIED,
        // so it is an ordinary record. The raw level stays in etw.event.level.
        return {9, "INFO"};
    case 1:
        return {21, "FATAL"}; // Critical
    case 2:
        return {17, "ERROR"};
    case 3:
        return {13, "WARN"};
    case 4:
        return {9, "INFO"}; // Informational
    case 5:
        return {5, "DEBUG"}; // Verbose
    default:
        // 6-255: providers' own levels, each more detailed than Verbose.
        return {1, "TRACE"};
    }
}

} // namespace openetw::otlp
