// What the parts of the Engine (engine.cpp, engine_hosting.cpp,
// engine_remote.cpp) share and nobody else needs.
#pragma once

#include <openetw/records.h>

#include <atomic>
#include <string>

namespace openetw::core::detail {

// A GUID's 16 raw bytes, the key of the engine's GUID table.
inline std::string key_of(const etw_guid &g) { return std::string(reinterpret_cast<const char *>(&g), sizeof g); }

// Requests a servant is answering: a host that exits right after another
// process stopped its session must still answer (exit waits for them).
extern std::atomic<int> g_serving;
// Registered with atexit by the first hosted session.
void finish_answers();

} // namespace openetw::core::detail
