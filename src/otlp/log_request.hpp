// A batch of LogRecords as the body of one POST to /v1/logs: an
// ExportLogsServiceRequest with the resource (host.name, service.name) and
// one scope, in protobuf or OTLP/JSON (docs/OTLP.md, "Encoding"). Pure.
#pragma once

#include "opentelemetry/proto/logs/v1/logs.pb.h"

#include <string>
#include <vector>

namespace openetw::otlp {

enum class Encoding { Protobuf, Json };

struct Resource {
    std::string host_name;
    std::string service_name;
};

// The Content-Type of a body.
const char *content_type(Encoding encoding);

// Moves records into the request and returns its bytes.
std::string encode_request(const Resource &resource, std::vector<opentelemetry::proto::logs::v1::LogRecord> &records,
                           Encoding encoding);

} // namespace openetw::otlp
