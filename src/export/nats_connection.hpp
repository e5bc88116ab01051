// A NATS connection and its JetStream context, made from a URL and a
// credentials file, with the server's reasons turned into statuses. Used by
// the export (nats_export.cpp) and the reader (nats_reader.cpp); built only
// with libnats.
#pragma once

#include "base/status.hpp"
#include "export/credentials.hpp"
#include "export/export_url.hpp"

#include <nats/nats.h>

#include <string>

namespace openetw::exporter {

class NatsConnection {
public:
    NatsConnection() = default;
    ~NatsConnection();
    NatsConnection(const NatsConnection &) = delete;
    NatsConnection &operator=(const NatsConnection &) = delete;

    // reconnect: keep reconnecting forever (the export); otherwise a lost
    // connection fails what is under way (a reader). send_at_once: each
    // publish is written to the socket by the publishing thread (the
    // export's sender, one 64 KiB message at a time) rather than handed to
    // the client's flusher thread, a wake-up and a lock per message.
    // ETW_ERROR_ACCESS_DENIED (credentials refused), ETW_ERROR_FILE_NOT_FOUND
    // (no server answers), with the server's reason.
    Status connect(const ExportUrl &url, const Credentials &creds, const std::string &client_name, bool reconnect,
                   bool send_at_once = false);
    // The stream's info, or ETW_ERROR_FILE_NOT_FOUND when it does not exist
    // and ETW_ERROR_NOT_SUPPORTED when the server has no JetStream.
    Status stream_info(const std::string &stream, jsStreamInfo **out);

    natsConnection *connection() const { return nc_; }
    jsCtx *jetstream() const { return js_; }
    const ExportUrl &url() const { return url_; }

private:
    ExportUrl url_;
    natsConnection *nc_ = nullptr;
    jsCtx *js_ = nullptr;
};

// "STATUS_TEXT: the client's last error" for a failed call.
std::string nats_reason(natsStatus s);

} // namespace openetw::exporter
