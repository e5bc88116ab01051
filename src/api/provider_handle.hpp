// The etw_provider handle: the engine's registration and the enable
// callback the C caller gave (provider_api.cpp, tracelogging_api.cpp).
#pragma once

#include <openetw/provider.h>

#include "engine/engine.hpp"

struct etw_provider {
    openetw::engine::Provider *impl = nullptr;
    etw_provider_enable_callback callback = nullptr;
    void *user_data = nullptr;
    etw_user_data_free user_data_free = nullptr;
};
