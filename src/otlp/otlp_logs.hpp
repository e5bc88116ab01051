// What a tool asks of the OTLP export: open it on a URL, hand it every
// record (decoded or not) on the consumer's thread, finish and report.
// One producer thread; the sending happens on the exporter's own.
#pragma once

#include "otlp/log_exporter.hpp"

#include <openetw/consumer.h>
#include <openetw/decode.h>

#include <cstdio>
#include <memory>
#include <string>

namespace openetw::otlp {

struct OtlpConfig {
    std::string url; // http[s]://HOST[:PORT][/PATH]
    TlsFiles tls;    // for https
    Headers headers; // on every request (headers.hpp)
    Encoding encoding = Encoding::Protobuf;
    Resource resource; // host.name, service.name
    ExporterOptions options;
};

class OtlpLogs {
public:
    // Checks the URL and starts the sender; NULL with error set when the URL is wrong.
    static std::unique_ptr<OtlpLogs> open(const OtlpConfig &config, std::string &error);
    // The same over another transport (the tests' scripted answerer).
    OtlpLogs(std::unique_ptr<Transport> transport, const OtlpConfig &config, LogExporter::Sleep sleep = {});

    // false once the receiver refused the credentials (401, 403): nothing
    // more will be sent, and reading on is pointless.
    bool add(const etw_record &record, const etw_decoded_event *event);
    // Sends what is queued and returns the counts.
    ExporterCounts finish() { return exporter_.finish(); }

    // "otlp: N records sent in B batches, F failed, D dropped (last error: ...)";
    // returns whether any record was not sent.
    static bool report(std::FILE *to, const ExporterCounts &counts);

private:
    LogExporter exporter_;
};

} // namespace openetw::otlp
