#include "otlp/http_post.hpp"

#include <curl/curl.h>

#include <mutex>
#include <vector>

namespace openetw::otlp {

namespace {

size_t keep_some(char *data, size_t size, size_t count, void *user)
{
    auto *out = static_cast<std::string *>(user);
    const size_t n = size * count;
    if (out->size() < 512)
        out->append(data, std::min(n, 512 - out->size()));
    return n;
}

class CurlTransport final : public Transport {
public:
    CurlTransport(std::string url, TlsFiles tls, const Headers &headers) : url_(std::move(url)), tls_(std::move(tls))
    {
        // "Name: value"; libcurl sends an empty value only when written "Name;".
        for (const auto &[name, value] : headers)
            lines_.push_back(value.empty() ? name + ";" : name + ": " + value);
        static std::once_flag once;
        std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
        curl_ = curl_easy_init();
    }
    ~CurlTransport() override { curl_easy_cleanup(curl_); }

    PostResult post(const std::string &body, const char *content_type) override
    {
        PostResult result;
        if (curl_ == nullptr) {
            result.error = "libcurl could not make a handle";
            return result;
        }
        std::string answer;
        curl_slist *headers = curl_slist_append(nullptr, (std::string("Content-Type: ") + content_type).c_str());
        for (const std::string &line : lines_)
            headers = curl_slist_append(headers, line.c_str());
        curl_easy_setopt(curl_, CURLOPT_URL, url_.c_str());
        curl_easy_setopt(curl_, CURLOPT_PROTOCOLS_STR, "http,https");
        if (!tls_.ca.empty())
            curl_easy_setopt(curl_, CURLOPT_CAINFO, tls_.ca.c_str());
        if (!tls_.cert.empty())
            curl_easy_setopt(curl_, CURLOPT_SSLCERT, tls_.cert.c_str());
        if (!tls_.key.empty())
            curl_easy_setopt(curl_, CURLOPT_SSLKEY, tls_.key.c_str());
        // The sentence libcurl gives a failure (a certificate's, say), not only its code's name.
        char reason[CURL_ERROR_SIZE] = {};
        curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, reason);
        curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.data());
        curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
        curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, keep_some);
        curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &answer);
        curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
        // A receiver that never answers is a failed attempt, not a hang.
        curl_easy_setopt(curl_, CURLOPT_CONNECTTIMEOUT, 10L);
        curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 30L);
        const CURLcode code = curl_easy_perform(curl_);
        curl_slist_free_all(headers);
        curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, nullptr); // the buffer goes out of scope
        if (code != CURLE_OK) {
            result.error = curl_easy_strerror(code);
            if (reason[0] != '\0')
                result.error += std::string(": ") + reason;
            return result;
        }
        curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &result.status);
        result.error = answer;
        return result;
    }

private:
    std::string url_;
    TlsFiles tls_;
    std::vector<std::string> lines_; // the configured headers
    CURL *curl_ = nullptr;
};

} // namespace

std::unique_ptr<Transport> make_http_transport(const std::string &url, const TlsFiles &tls, const Headers &headers)
{
    return std::make_unique<CurlTransport>(url, tls, headers);
}

} // namespace openetw::otlp
