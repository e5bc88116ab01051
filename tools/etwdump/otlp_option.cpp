#include "otlp_option.hpp"

#if defined(ETWDUMP_OTLP)
#include "otlp/otlp_logs.hpp"
#endif

#include <cstdlib>
#include <fstream>
#include <sstream>

#if !defined(_WIN32)
#include <unistd.h>
#endif

namespace etwdump {

#if defined(ETWDUMP_OTLP)
struct OtlpOption::Export {
    std::unique_ptr<openetw::otlp::OtlpLogs> logs;
};
#else
struct OtlpOption::Export {};
#endif

OtlpOption::OtlpOption() = default;
OtlpOption::~OtlpOption() = default;

namespace {

bool count(const char *text, unsigned long max, unsigned long &out)
{
    char *end = nullptr;
    const unsigned long n = std::strtoul(text, &end, 10);
    if (*text == '\0' || *end != '\0' || n == 0 || n > max)
        return false;
    out = n;
    return true;
}

} // namespace

bool OtlpOption::parse(int argc, char **argv, int &i, std::string &error)
{
    const std::string arg = argv[i];
    const bool takes_value = arg == "--otlp" || arg == "--otlp-service" || arg == "--otlp-host" ||
                             arg == "--otlp-batch" || arg == "--otlp-queue" || arg == "--otlp-attempts" ||
                             arg == "--otlp-ca" || arg == "--otlp-cert" || arg == "--otlp-key" ||
                             arg == "--otlp-headers-file";
    if (arg == "--otlp-json") {
        json_ = true;
        return true;
    }
    if (!takes_value)
        return false;
    if (i + 1 >= argc) {
        error = arg + " needs a value";
        return true;
    }
    const char *v = argv[++i];
    if (arg == "--otlp")
        url_ = v;
    else if (arg == "--otlp-service")
        service_ = v;
    else if (arg == "--otlp-host")
        host_ = v;
    else if (arg == "--otlp-ca")
        ca_ = v;
    else if (arg == "--otlp-cert")
        cert_ = v;
    else if (arg == "--otlp-key")
        key_ = v;
    else if (arg == "--otlp-headers-file")
        headers_file_ = v;
    else if (arg == "--otlp-batch" && !count(v, 1000000, batch_))
        error = std::string("--otlp-batch takes a count from 1 to 1000000, not '") + v + "'";
    else if (arg == "--otlp-queue" && !count(v, 100000000, queue_))
        error = std::string("--otlp-queue takes a count from 1 to 100000000, not '") + v + "'";
    else if (arg == "--otlp-attempts" && !count(v, 100, attempts_))
        error = std::string("--otlp-attempts takes a count from 1 to 100, not '") + v + "'";
    return true;
}

#if defined(ETWDUMP_OTLP)
bool OtlpOption::open(bool live, std::string &error)
{
    // The TLS files: for https only, each readable, the key with its certificate.
    const bool https = url_.rfind("https://", 0) == 0;
    for (const auto &[option, path] : {std::pair<const char *, const std::string &>{"--otlp-ca", ca_},
                                       {"--otlp-cert", cert_},
                                       {"--otlp-key", key_}}) {
        if (path.empty())
            continue;
        if (!https) {
            error = std::string(option) + " applies to an https:// receiver, not '" + url_ + "'";
            return false;
        }
        if (std::FILE *f = std::fopen(path.c_str(), "rb"))
            std::fclose(f);
        else {
            error = std::string(option) + ": cannot read '" + path + "'";
            return false;
        }
    }
    if (!key_.empty() && cert_.empty()) {
        error = "--otlp-key needs --otlp-cert (the certificate it is the key of)";
        return false;
    }
    openetw::otlp::OtlpConfig config;
    std::string file_text;
    if (!headers_file_.empty()) {
        std::ifstream f(headers_file_, std::ios::binary);
        std::stringstream text;
        text << f.rdbuf();
        if (!f) {
            error = "--otlp-headers-file: cannot read '" + headers_file_ + "'";
            return false;
        }
        file_text = text.str();
    }
    if (!openetw::otlp::resolve_headers([](const char *name) { return static_cast<const char *>(std::getenv(name)); },
                                        headers_file_, file_text, &config.headers, error))
        return false;
    config.url = url_;
    config.tls = {ca_, cert_, key_};
    config.encoding = json_ ? openetw::otlp::Encoding::Json : openetw::otlp::Encoding::Protobuf;
    std::string host = host_;
    if (host.empty()) {
        char name[256] = {};
        if (gethostname(name, sizeof name - 1) == 0)
            host = name;
    }
    config.resource = {host, service_};
    config.options.batch_records = batch_;
    config.options.queue_records = queue_;
    config.options.max_attempts = int(attempts_);
    // A live consumer that waits holds the session's buffers: its writers
    // would lose events uncounted here. Files and streams can wait.
    config.options.block_when_full = !live;
    export_ = std::make_unique<Export>();
    export_->logs = openetw::otlp::OtlpLogs::open(config, error);
    return export_->logs != nullptr;
}

bool OtlpOption::add(const etw_record &record, const etw_decoded_event *event)
{
    return export_->logs->add(record, event);
}

bool OtlpOption::finish(std::FILE *report) { return !openetw::otlp::OtlpLogs::report(report, export_->logs->finish()); }
#else
bool OtlpOption::open(bool, std::string &error)
{
    error = "--otlp: this build has no OTLP export (" ETWDUMP_OTLP_ABSENT ")";
    return false;
}

bool OtlpOption::add(const etw_record &, const etw_decoded_event *) { return true; }

bool OtlpOption::finish(std::FILE *) { return true; }
#endif

} // namespace etwdump
