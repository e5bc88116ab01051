// Stopping an orphaned session (its host died, docs/SYSTEM_SESSIONS.md):
// the buffers still in its region are taken out so that the log file gets
// every committed event, whether the host's logger wrote it or not.
#pragma once

#include "base/status.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::host {

struct RegionLeftovers {
    // Whole data buffers (headers finished; SequenceNumber left as found:
    // non-zero when the host's logger had numbered it for its file).
    std::vector<std::vector<std::uint8_t>> buffers;
    std::uint32_t events_lost = 0;     // the session's EventsLost, plus records of dead writers
    std::uint32_t records_skipped = 0; // unfinished records found (included in events_lost)
};

// Maps the region file, closes it to writers (waiting a moment for live
// ones to finish their event), and copies out every buffer holding finished
// records, oldest first. Nothing in the region is trusted.
// ETW_ERROR_FILE_NOT_FOUND when there is no region (an older host, or one
// that died before creating it); ETW_ERROR_ACCESS_DENIED; ETW_ERROR_INVALID_DATA.
Status collect_region(const std::string &region_path, std::uint32_t clock_type, std::uint16_t logger_id,
                      RegionLeftovers *out);

} // namespace openetw::host
