// A status code plus the sentence that explains it: what every internal
// operation returns, and what src/api turns into the thread's last error.
#pragma once

#include <openetw/status.h>

#include <string>
#include <utility>

namespace openetw {

struct Status {
    etw_status code = ETW_OK;
    std::string message;

    Status() = default;
    Status(etw_status c, std::string m) : code(c), message(std::move(m)) {}

    static Status ok() { return {}; }
    bool is_ok() const { return code == ETW_OK; }
    explicit operator bool() const { return code == ETW_OK; }
};

// Shorthand for the many validation failures: Fail(ETW_ERROR_..., "text").
inline Status Fail(etw_status code, std::string message) { return Status(code, std::move(message)); }

} // namespace openetw
