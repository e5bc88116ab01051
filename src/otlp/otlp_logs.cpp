#include "otlp/otlp_logs.hpp"

#include "otlp/endpoint.hpp"
#include "otlp/log_record.hpp"

#include <chrono>

namespace openetw::otlp {

std::unique_ptr<OtlpLogs> OtlpLogs::open(const OtlpConfig &config, std::string &error)
{
    const std::string endpoint = logs_endpoint(config.url, error);
    if (endpoint.empty())
        return nullptr;
    return std::make_unique<OtlpLogs>(make_http_transport(endpoint, config.tls, config.headers), config);
}

OtlpLogs::OtlpLogs(std::unique_ptr<Transport> transport, const OtlpConfig &config, LogExporter::Sleep sleep)
    : exporter_(std::move(transport), config.resource, config.encoding, config.options, std::move(sleep))
{}

bool OtlpLogs::add(const etw_record &record, const etw_decoded_event *event)
{
    const auto observed =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch());
    opentelemetry::proto::logs::v1::LogRecord out;
    to_log_record(record, event, std::uint64_t(observed.count()), out);
    exporter_.add(std::move(out));
    return !exporter_.refused_for_good();
}

bool OtlpLogs::report(std::FILE *to, const ExporterCounts &c)
{
    const bool lost = c.failed != 0 || c.dropped != 0;
    std::fprintf(to, "otlp: %llu records sent in %llu batches (%llu retries), %llu failed, %llu dropped%s%s%s\n",
                 (unsigned long long)c.sent, (unsigned long long)c.batches, (unsigned long long)c.retries,
                 (unsigned long long)c.failed, (unsigned long long)c.dropped,
                 c.last_error.empty() ? "" : " (last error: ", c.last_error.c_str(), c.last_error.empty() ? "" : ")");
    if (c.refused_for_good != 0)
        std::fprintf(to,
                     "otlp: the receiver refused the credentials (HTTP %ld): nothing was sent after it; check the "
                     "headers (OTEL_EXPORTER_OTLP_HEADERS, --otlp-headers-file)\n",
                     c.refused_for_good);
    return lost;
}

} // namespace openetw::otlp
