// The HTTP headers an OTLP receiver asks for (API keys, tenants), sent on
// every request (docs/FLEET.md, "Headers: API keys"): from the environment variables
// the OpenTelemetry specification names, OTEL_EXPORTER_OTLP_LOGS_HEADERS
// (taken instead of the next when set) and OTEL_EXPORTER_OTLP_HEADERS, each
// a W3C-baggage-like list "key=value,key2=value2" (white space around items
// ignored, keys and values percent-decoded), and from a file of
// "Name: value" lines, whose headers replace those of the same name. Never
// from a command line: they are secrets. Errors name the source and the
// entry (its position and name), never a value. Pure.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openetw::otlp {

using Headers = std::vector<std::pair<std::string, std::string>>;

inline constexpr const char *kHeadersVariable = "OTEL_EXPORTER_OTLP_HEADERS";
inline constexpr const char *kLogsHeadersVariable = "OTEL_EXPORTER_OTLP_LOGS_HEADERS";

// Appends the list's headers to *out; false with error when an entry has no
// '=', an empty or non-token name, a bad %XX escape, or a value that holds
// a control character (CR and LF would split the request).
bool parse_header_list(std::string_view text, const std::string &source, Headers *out, std::string &error);

// The same for the lines of a headers file (blank lines and lines starting
// with '#' skipped; "Name: value", white space around both trimmed; no
// escapes: the value is the line's).
bool parse_header_file(std::string_view text, const std::string &source, Headers *out, std::string &error);

// The headers to send: the environment's (get_env returns NULL for a
// variable that is not set), then file_text's (when file_name is not
// empty) replacing those of the same name, compared case-insensitively.
bool resolve_headers(const std::function<const char *(const char *)> &get_env, const std::string &file_name,
                     std::string_view file_text, Headers *out, std::string &error);

} // namespace openetw::otlp
