// The --otlp URL: http://HOST[:PORT][/PATH] or https://... (TLS: the
// transport's TlsFiles). The path defaults to /v1/logs, OTLP/HTTP's path for
// logs, and the port to 4318, OTLP/HTTP's (docs/OTLP.md). Pure.
#pragma once

#include <string>

namespace openetw::otlp {

// The URL to POST to, or "" with error set.
std::string logs_endpoint(const std::string &url, std::string &error);

} // namespace openetw::otlp
