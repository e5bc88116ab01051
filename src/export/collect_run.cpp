#include "export/collect_run.hpp"

namespace openetw::exporter {

Status CollectRun::run(const std::string &url, const CollectOptions &options)
{
    missing_text.clear();
    Status st = collect_stream(url, options, &report);
    missing_text.reserve(report.files.size());
    for (const CollectedFile &f : report.files) {
        std::string text;
        for (const std::string &m : f.trace.missing)
            text += (text.empty() ? "" : "\n") + m;
        missing_text.push_back(std::move(text));
    }
    return st;
}

} // namespace openetw::exporter
