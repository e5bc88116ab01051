// One collect as the C ABI hands it out (include/openetw/collect.h): the
// report of collect_stream and, per file, the missing sentences joined into
// the one string etw_collected_file points to. Not synchronized: one thread
// at a time, as the header says.
#pragma once

#include "export/stream_collect.hpp"

#include <string>
#include <vector>

namespace openetw::exporter {

struct CollectRun {
    CollectReport report;
    std::vector<std::string> missing_text; // per file of report, sentences separated by '\n'
    std::vector<std::string> start_text;   // per file of report, its start as UTC text (start_utc_text)

    // Replaces what the run held with a collect of url (collect_stream's
    // statuses); the report is kept as far as the collect went.
    Status run(const std::string &url, const CollectOptions &options);
};

} // namespace openetw::exporter
