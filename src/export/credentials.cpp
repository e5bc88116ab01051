#include "export/credentials.hpp"

#include "platform/files.hpp"

#include <vector>

namespace openetw::exporter {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

} // namespace

Status parse_credentials(std::string_view text, const std::string &path, Credentials *out)
{
    Credentials c;
    std::size_t line_no = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = trim(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++line_no;
        if (line.empty() || line.front() == '#')
            continue;
        const std::string where = path + ":" + std::to_string(line_no);
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return Fail(ETW_ERROR_INVALID_DATA, where + ": a line must be `key = value`");
        const std::string key(trim(line.substr(0, eq)));
        const std::string value(trim(line.substr(eq + 1)));
        std::string *dest = key == "user"        ? &c.user
                            : key == "password"  ? &c.password
                            : key == "token"     ? &c.token
                            : key == "creds"     ? &c.creds
                            : key == "nkey_seed" ? &c.nkey_seed
                            : key == "tls_ca"    ? &c.tls_ca
                            : key == "tls_cert"  ? &c.tls_cert
                            : key == "tls_key"   ? &c.tls_key
                                                 : nullptr;
        if (dest == nullptr)
            return Fail(ETW_ERROR_INVALID_DATA,
                        where + ": unknown key \"" + key +
                            "\" (user, password, token, creds, nkey_seed, tls_ca, tls_cert, tls_key)");
        *dest = value;
    }
    if (c.user.empty() != c.password.empty())
        return Fail(ETW_ERROR_INVALID_DATA, path + ": user and password go together");
    if (c.tls_cert.empty() != c.tls_key.empty())
        return Fail(ETW_ERROR_INVALID_DATA, path + ": tls_cert and tls_key go together");
    if (!c.nkey_seed.empty() && c.creds.empty())
        return Fail(ETW_ERROR_INVALID_DATA, path + ": nkey_seed needs creds (the user JWT file)");
    *out = std::move(c);
    return Status::ok();
}

Status read_credentials(const std::string &path, Credentials *out)
{
    *out = Credentials{};
    if (path.empty())
        return Status::ok();
    platform::File f;
    if (etw_status e = f.open(path, platform::OpenMode::ReadExisting); e != ETW_OK)
        return Fail(e, "cannot read the NATS credentials file \"" + path + "\"");
    std::uint64_t size = 0;
    f.size(&size);
    if (size > (1u << 20))
        return Fail(ETW_ERROR_INVALID_DATA, "the NATS credentials file \"" + path + "\" is over 1 MiB");
    std::string text(std::size_t(size), '\0');
    if (size != 0 && f.read_at(0, text.data(), text.size()) != ETW_OK)
        return Fail(ETW_ERROR_READ_FAULT, "cannot read the NATS credentials file \"" + path + "\"");
    return parse_credentials(text, path, out);
}

} // namespace openetw::exporter
