#include "otlp/log_request.hpp"

#include "opentelemetry/proto/collector/logs/v1/logs_service.pb.h"

#include <google/protobuf/util/json_util.h>

namespace openetw::otlp {

namespace {

void put(opentelemetry::proto::resource::v1::Resource &resource, const char *key, const std::string &value)
{
    auto *kv = resource.add_attributes();
    kv->set_key(key);
    kv->mutable_value()->set_string_value(value);
}

} // namespace

const char *content_type(Encoding encoding)
{
    return encoding == Encoding::Json ? "application/json" : "application/x-protobuf";
}

std::string encode_request(const Resource &resource, std::vector<opentelemetry::proto::logs::v1::LogRecord> &records,
                           Encoding encoding)
{
    opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest request;
    auto *resource_logs = request.add_resource_logs();
    put(*resource_logs->mutable_resource(), "host.name", resource.host_name);
    put(*resource_logs->mutable_resource(), "service.name", resource.service_name);
    auto *scope_logs = resource_logs->add_scope_logs();
    scope_logs->mutable_scope()->set_name("openetw");
    auto *out = scope_logs->mutable_log_records();
    out->Reserve(int(records.size()));
    for (auto &record : records)
        *out->Add() = std::move(record);
    records.clear();

    std::string body;
    if (encoding == Encoding::Protobuf) {
        request.SerializeToString(&body);
        return body;
    }
    // OTLP/JSON is protobuf's JSON mapping with lowerCamelCase names and
    // enums as their numbers (trace and span ids, hex there, are not sent).
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_enums_as_ints = true;
    (void)google::protobuf::util::MessageToJsonString(request, &body, options);
    return body;
}

} // namespace openetw::otlp
