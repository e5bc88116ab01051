#include "export/nats_connection.hpp"

#include <cstring>
#include <vector>

namespace openetw::exporter {

namespace {

constexpr std::int64_t kConnectTimeoutMs = 5000;
constexpr std::int64_t kReconnectWaitMs = 200;

struct OptionsHolder {
    natsOptions *o = nullptr;
    ~OptionsHolder() { natsOptions_Destroy(o); }
};

} // namespace

std::string nats_reason(natsStatus s)
{
    std::string text = natsStatus_GetText(s);
    natsStatus last = NATS_OK;
    if (const char *detail = nats_GetLastError(&last); detail && *detail && std::strcmp(detail, text.c_str()) != 0)
        text += std::string(": ") + detail;
    return text;
}

NatsConnection::~NatsConnection()
{
    jsCtx_Destroy(js_);
    if (nc_) {
        natsConnection_Close(nc_);
        natsConnection_Destroy(nc_);
    }
}

Status NatsConnection::connect(const ExportUrl &url, const Credentials &c, const std::string &client_name,
                               bool reconnect, bool send_at_once)
{
    url_ = url;
    OptionsHolder opts;
    natsStatus s = natsOptions_Create(&opts.o);
    const std::string server = url.server();
    // natsOptions_SetURL takes one server; a cluster's nodes go as a list,
    // among which the client picks one and moves to another when it fails.
    std::vector<std::string> servers = {"nats://" + url.host + ":" + std::to_string(url.port)};
    for (const std::string &more : url.more_servers)
        servers.push_back("nats://" + more);
    std::vector<const char *> list;
    for (const std::string &one : servers)
        list.push_back(one.c_str());
    if (s == NATS_OK)
        s = natsOptions_SetServers(opts.o, list.data(), int(list.size()));
    if (s == NATS_OK)
        s = natsOptions_SetName(opts.o, client_name.c_str());
    if (s == NATS_OK)
        s = natsOptions_SetTimeout(opts.o, kConnectTimeoutMs);
    if (s == NATS_OK)
        s = natsOptions_SetAllowReconnect(opts.o, reconnect);
    if (s == NATS_OK && reconnect)
        s = natsOptions_SetMaxReconnect(opts.o, -1);
    // The export's spool is its buffer: a publish while the client
    // reconnects fails at once (and is tried again from the spool) rather
    // than wait unacknowledged in the client's own reconnect buffer.
    if (s == NATS_OK && reconnect)
        s = natsOptions_SetReconnectBufSize(opts.o, 1);
    if (s == NATS_OK)
        s = natsOptions_SetReconnectWait(opts.o, kReconnectWaitMs);
    if (s == NATS_OK && send_at_once)
        s = natsOptions_SetSendAsap(opts.o, true);
    if (s == NATS_OK && !c.user.empty())
        s = natsOptions_SetUserInfo(opts.o, c.user.c_str(), c.password.c_str());
    if (s == NATS_OK && !c.token.empty())
        s = natsOptions_SetToken(opts.o, c.token.c_str());
    if (s == NATS_OK && !c.creds.empty())
        s = natsOptions_SetUserCredentialsFromFiles(opts.o, c.creds.c_str(),
                                                    c.nkey_seed.empty() ? nullptr : c.nkey_seed.c_str());
    if (s == NATS_OK && c.tls())
        s = natsOptions_SetSecure(opts.o, true);
    if (s == NATS_OK && !c.tls_ca.empty())
        s = natsOptions_LoadCATrustedCertificates(opts.o, c.tls_ca.c_str());
    if (s == NATS_OK && !c.tls_cert.empty())
        s = natsOptions_LoadCertificatesChain(opts.o, c.tls_cert.c_str(), c.tls_key.c_str());
    if (s != NATS_OK)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "cannot set up the NATS client for " + server + ": " + nats_reason(s));
    s = natsConnection_Connect(&nc_, opts.o);
    if (s != NATS_OK) {
        const std::string why = nats_reason(s);
        const bool refused = s == NATS_CONNECTION_AUTH_FAILED || s == NATS_NOT_PERMITTED ||
                             why.find("uthorization") != std::string::npos ||
                             why.find("uthentication") != std::string::npos;
        nc_ = nullptr;
        return refused
                   ? Fail(ETW_ERROR_ACCESS_DENIED, "the NATS server at " + server + " refused the connection: " + why)
                   : Fail(ETW_ERROR_FILE_NOT_FOUND, "no NATS server answers at " + server + ": " + why);
    }
    s = natsConnection_JetStream(&js_, nc_, nullptr);
    if (s != NATS_OK)
        return Fail(ETW_ERROR_NOT_SUPPORTED, "no JetStream context for " + server + ": " + nats_reason(s));
    return Status::ok();
}

Status NatsConnection::stream_info(const std::string &stream, jsStreamInfo **out)
{
    jsErrCode jerr = jsErrCode(0);
    const natsStatus s = js_GetStreamInfo(out, js_, stream.c_str(), nullptr, &jerr);
    if (s == NATS_OK)
        return Status::ok();
    if (s == NATS_NOT_FOUND)
        return Fail(ETW_ERROR_FILE_NOT_FOUND, "the NATS server at " + url_.server() + " has no stream " + stream);
    if (s == NATS_NO_RESPONDERS || s == NATS_TIMEOUT)
        return Fail(ETW_ERROR_NOT_SUPPORTED,
                    "the NATS server at " + url_.server() +
                        " does not answer JetStream requests (is it started with -js?): " + nats_reason(s));
    return Fail(s == NATS_NOT_PERMITTED ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_NOT_SUPPORTED,
                "the NATS server at " + url_.server() + " cannot describe the stream " + stream + ": " +
                    nats_reason(s));
}

} // namespace openetw::exporter
