// etwdump's --otlp options and the export they configure: every record,
// decoded where it can be, sent as an OpenTelemetry log (docs/OTLP.md). In a
// build without the export (Windows, or no protobuf/libcurl) --otlp fails
// saying why.
#pragma once

#include <openetw/openetw.h>

#include <cstdio>
#include <memory>
#include <string>

namespace etwdump {

#define ETWDUMP_OTLP_USAGE                                                                                             \
    "  --otlp URL                   send every record as an OpenTelemetry log to an OTLP/HTTP\n"                       \
    "                               receiver: http[s]://HOST[:PORT][/PATH] (port 4318, path\n"                         \
    "                               /v1/logs by default) instead of printing\n"                                        \
    "  --otlp-ca FILE               https: the CA certificates (PEM) to check the receiver's\n"                        \
    "                               certificate with (default: the system's)\n"                                        \
    "  --otlp-cert FILE             https: a client certificate (PEM) for receivers that ask\n"                        \
    "  --otlp-key FILE              https: the client certificate's private key (PEM)\n"                               \
    "  --otlp-headers-file FILE     HTTP headers for every request (API keys): \"Name: value\"\n"                      \
    "                               lines; they replace those of OTEL_EXPORTER_OTLP_LOGS_HEADERS\n"                    \
    "                               or else OTEL_EXPORTER_OTLP_HEADERS (k=v,k2=v2, %XX-escaped);\n"                    \
    "                               never on the command line: they are secrets\n"                                     \
    "  --otlp-json                  OTLP/JSON bodies instead of protobuf\n"                                            \
    "  --otlp-service NAME          resource service.name (default unknown_service:etwdump)\n"                         \
    "  --otlp-host NAME             resource host.name (default this machine's name)\n"                                \
    "  --otlp-batch N               records per request (default 512)\n"                                               \
    "  --otlp-queue N               records waiting at most (default 16384): reading files\n"                          \
    "                               waits for room, a live session drops and counts\n"                                 \
    "  --otlp-attempts N            tries of a request the receiver cannot take (default 5)\n"

class OtlpOption {
public:
    OtlpOption();
    ~OtlpOption();
    // Takes argv[i] when it is an --otlp option (and its value: i moves on).
    // Returns false when it is not one; sets error when its value is wrong.
    bool parse(int argc, char **argv, int &i, std::string &error);
    bool wanted() const { return !url_.empty(); }
    // Starts the export (live: a full queue drops instead of waiting); false
    // with error when this build has none or the URL is wrong.
    bool open(bool live, std::string &error);
    // false once the receiver refused the credentials (HTTP 401, 403):
    // nothing more is sent, so reading should stop.
    bool add(const etw_record &record, const etw_decoded_event *event);
    // Sends what is queued, prints the counts; false when records were lost.
    bool finish(std::FILE *report);

private:
    std::string url_;
    std::string ca_, cert_, key_; // https
    std::string headers_file_;
    bool json_ = false;
    std::string service_ = "unknown_service:etwdump";
    std::string host_;
    unsigned long batch_ = 512, queue_ = 16384, attempts_ = 5;
    struct Export;
    std::unique_ptr<Export> export_;
};

} // namespace etwdump
