#include "otlp/endpoint.hpp"

namespace openetw::otlp {

std::string logs_endpoint(const std::string &url, std::string &error)
{
    const std::string scheme = url.rfind("https://", 0) == 0 ? "https://" : "http://";
    if (url.rfind(scheme, 0) != 0) {
        error = "the OTLP endpoint '" + url + "' is not an http[s]://HOST[:PORT][/PATH] URL";
        return {};
    }
    const std::string rest = url.substr(scheme.size());
    const std::size_t slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? std::string() : rest.substr(slash);
    if (authority.empty() || authority.find('@') != std::string::npos || authority.find('?') != std::string::npos) {
        error = "the OTLP endpoint '" + url + "' needs a host (and no user or query): http[s]://HOST[:PORT][/PATH]";
        return {};
    }
    const std::size_t colon = authority.rfind(':');
    const bool bracketed = authority.back() == ']'; // [::1] without a port
    if (colon == std::string::npos || bracketed) {
        authority += ":4318";
    } else {
        const std::string port = authority.substr(colon + 1);
        bool digits = !port.empty() && port.size() <= 5;
        for (char c : port)
            digits = digits && c >= '0' && c <= '9';
        if (!digits || std::stoul(port) == 0 || std::stoul(port) > 65535) {
            error = "the OTLP endpoint '" + url + "' has a bad port '" + port + "'";
            return {};
        }
    }
    if (path.empty() || path == "/")
        path = "/v1/logs";
    return scheme + authority + path;
}

} // namespace openetw::otlp
