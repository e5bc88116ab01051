#include "export/collect_run.hpp"

namespace openetw::exporter {

Status CollectRun::run(const std::string &url, const CollectOptions &options)
{
    missing_text.clear();
    start_text.clear();
    Status st = collect_stream(url, options, &report);
    missing_text.reserve(report.files.size());
    start_text.reserve(report.files.size());
    for (const CollectedFile &f : report.files) {
        start_text.push_back(start_utc_text(f.trace.tag.start_time));
        std::string text;
        for (const std::string &m : f.trace.missing)
            text += (text.empty() ? "" : "\n") + m;
        missing_text.push_back(std::move(text));
    }
    return st;
}

} // namespace openetw::exporter
