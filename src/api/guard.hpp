// The rules every extern "C" shim follows: check arguments, catch every
// exception, and leave the thread's last error (status + message) behind.
#pragma once

#include "base/status.hpp"

#include <exception>
#include <new>
#include <utility>

namespace openetw::api {

// Records the outcome for etw_last_error_status/message and returns the code.
etw_status set_last(etw_status code, const char *message) noexcept;
etw_status set_last(const Status &status) noexcept;

// Runs body (returning Status) and converts any exception into a status, so
// no C++ exception crosses the ABI.
template <class Body>
etw_status guarded(Body &&body) noexcept
{
    try {
        return set_last(std::forward<Body>(body)());
    } catch (const std::bad_alloc &) {
        return set_last(ETW_ERROR_OUTOFMEMORY, "out of memory");
    } catch (const std::exception &e) {
        return set_last(ETW_ERROR_INTERNAL_ERROR, e.what());
    } catch (...) {
        return set_last(ETW_ERROR_INTERNAL_ERROR, "unknown internal error");
    }
}

// For the common argument check: returns the failing status when ptr is NULL.
#define ETW_REQUIRE_ARG(ptr)                                                                                           \
    do {                                                                                                               \
        if ((ptr) == nullptr)                                                                                          \
            return ::openetw::Fail(ETW_ERROR_INVALID_PARAMETER, #ptr " is NULL");                                      \
    } while (0)

} // namespace openetw::api
