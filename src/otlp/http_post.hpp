// POSTs a body to an http:// or https:// URL with libcurl, keeping the
// connection for the next request. One thread at a time (the exporter's sender).
#pragma once

#include "otlp/headers.hpp"

#include <memory>
#include <string>

namespace openetw::otlp {

struct PostResult {
    long status = 0;   // the HTTP status, 0 when no answer came (refused, timed out...)
    std::string error; // without an answer: why; with one: its first bytes
};

// What the exporter sends through: libcurl in the program, a scripted
// answerer in the tests.
class Transport {
public:
    virtual ~Transport() = default;
    virtual PostResult post(const std::string &body, const char *content_type) = 0;
};

// For https: the CA certificates to check the receiver's certificate with
// (PEM; empty: the system's), and a client certificate and its key (PEM;
// empty: none) for receivers that ask for one. The receiver's certificate
// and name are always checked.
struct TlsFiles {
    std::string ca;
    std::string cert;
    std::string key;
};

// headers: sent on every request (headers.hpp).
std::unique_ptr<Transport> make_http_transport(const std::string &url, const TlsFiles &tls = {},
                                               const Headers &headers = {});

} // namespace openetw::otlp
