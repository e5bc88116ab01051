// NATS credentials, read from a file a user names (etw_properties_set_export,
// etwctl --export-credentials, or OPENETW_NATS_CREDENTIALS), never from a
// command line, so no secret shows in `ps`. The file holds `key = value`
// lines ('#' starts a comment):
//   user, password      user and password
//   token               an authentication token
//   creds               a NATS .creds file (JWT and NKey seed)
//   nkey_seed           an NKey seed file, with creds naming the user JWT
//   tls_ca              CA certificates (PEM) that the server's must chain to
//   tls_cert, tls_key   the client's certificate chain and key (PEM)
// Any tls_* key asks for a TLS connection.
#pragma once

#include "base/status.hpp"

#include <string>
#include <string_view>

namespace openetw::exporter {

struct Credentials {
    std::string user, password, token, creds, nkey_seed, tls_ca, tls_cert, tls_key;
    bool tls() const { return !tls_ca.empty() || !tls_cert.empty() || !tls_key.empty(); }
};

// The environment variable naming a credentials file where no option does.
inline constexpr const char *kCredentialsVariable = "OPENETW_NATS_CREDENTIALS";

// Parses a credentials file's text. ETW_ERROR_INVALID_DATA naming the line
// of an unknown key, a line without '=', a password without a user (or the
// reverse), tls_cert without tls_key (or the reverse).
Status parse_credentials(std::string_view text, const std::string &path, Credentials *out);
// Reads and parses the file (empty path: no credentials).
// ETW_ERROR_FILE_NOT_FOUND, ETW_ERROR_PATH_NOT_FOUND (no such folder) or
// ETW_ERROR_ACCESS_DENIED when it cannot be read, naming the file.
Status read_credentials(const std::string &path, Credentials *out);

} // namespace openetw::exporter
