// Small text helpers of etwdump: GUIDs, FILETIMEs, log-file modes, clocks.
#pragma once

#include <openetw/openetw.h>

#include <cstdint>
#include <string>

namespace etwdump {

std::string guid_text(const etw_guid &g);      // canonical lower case
std::string filetime_text(int64_t filetime);   // "2019-02-18 12:41:50.4203138 UTC"
std::string mode_text(uint32_t log_file_mode); // "0x08000001 (sequential|independent-session)"
const char *clock_text(uint32_t clock_type);

} // namespace etwdump
