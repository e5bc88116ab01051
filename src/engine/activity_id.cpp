#include "engine/activity_id.hpp"

#include "platform/clock.hpp"

#include <openetw/provider.h>

#include <atomic>
#include <cstring>
#include <random>

namespace openetw::engine {

thread_local etw_guid t_activity_id OPENETW_FAST_TLS = {};

namespace {

// Drawn once per process (a fork child draws its own: the pid differs, and
// its counter continues from the parent's, which alone keeps it apart).
std::uint32_t process_salt() noexcept
{
    static const std::uint32_t salt = [] {
        try {
            std::random_device rd;
            return std::uint32_t(rd());
        } catch (...) {
            return std::uint32_t(platform::qpc_now());
        }
    }();
    return salt;
}

std::atomic<std::uint64_t> g_next{1};

} // namespace

etw_guid new_activity_id() noexcept
{
    const std::uint64_t n = g_next.fetch_add(1, std::memory_order_relaxed);
    const std::uint32_t pid = platform::process_id();
    const std::uint32_t salt = process_salt();
    etw_guid g;
    std::memcpy(&g, &n, 8); // non-zero: the counter starts at 1
    std::memcpy(reinterpret_cast<std::uint8_t *>(&g) + 8, &pid, 4);
    std::memcpy(reinterpret_cast<std::uint8_t *>(&g) + 12, &salt, 4);
    return g;
}

etw_status activity_id_control(std::uint32_t code, etw_guid *id) noexcept
{
    if (id == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    etw_guid &mine = t_activity_id;
    switch (code) {
    case ETW_ACTIVITY_CTRL_GET_ID:
        *id = mine;
        return ETW_OK;
    case ETW_ACTIVITY_CTRL_SET_ID:
        mine = *id;
        return ETW_OK;
    case ETW_ACTIVITY_CTRL_CREATE_ID:
        *id = new_activity_id();
        return ETW_OK;
    case ETW_ACTIVITY_CTRL_GET_SET_ID: {
        const etw_guid old = mine;
        mine = *id;
        *id = old;
        return ETW_OK;
    }
    case ETW_ACTIVITY_CTRL_CREATE_SET_ID:
        *id = mine;
        mine = new_activity_id();
        return ETW_OK;
    default:
        return ETW_ERROR_INVALID_PARAMETER;
    }
}

} // namespace openetw::engine
