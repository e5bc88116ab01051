// `etwctl collect URL --output DIR`: the options and the report. The
// rebuilding is the library's (openetw/collect.h).
#include "commands.hpp"

#include <openetw/collect.h>

#include <memory>
#include <sstream>

namespace etwctl::detail {

namespace {

// The report's '\n'-separated sentences, one by one.
std::vector<std::string> lines(const char *text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

std::string json_list(const std::vector<std::string> &items)
{
    std::string s = "[";
    for (const std::string &i : items)
        s += (s.size() > 1 ? ", " : "") + json_string(i);
    return s + "]";
}

} // namespace

int cmd_collect(Ctx &c, const Args &a)
{
    if (a.positional.size() != 1)
        return c.usage("collect takes one stream URL (nats://HOST:PORT/STREAM)");
    std::string folder, machine, session, credentials;
    uint32_t flags = 0;
    for (const auto &[k, v] : a.options) {
        if (k == "output")
            folder = v;
        else if (k == "machine")
            machine = v;
        else if (k == "session")
            session = v;
        else if (k == "credentials")
            credentials = v;
        else if (k == "force")
            flags |= ETW_COLLECT_OVERWRITE;
        else
            return c.usage("collect: unknown option --" + k);
    }
    if (folder.empty())
        return c.usage("collect needs --output DIR");
    etw_collect_report *raw = nullptr;
    if (etw_collect_report_create(&raw) != ETW_OK) {
        std::fprintf(c.err, "etwctl collect: %s\n", etw_last_error_message());
        return 1;
    }
    const std::unique_ptr<etw_collect_report, void (*)(etw_collect_report *)> report(raw, etw_collect_report_destroy);
    const etw_status st = etw_collect_stream(report.get(), a.positional[0].c_str(), folder.c_str(), machine.c_str(),
                                             session.c_str(), credentials.c_str(), flags);
    const std::string message = st == ETW_OK ? "" : etw_last_error_message();
    uint32_t count = 0;
    uint64_t skipped = 0;
    etw_collect_report_file_count(&count, report.get());
    etw_collect_report_skipped(&skipped, report.get());
    std::string files;
    for (uint32_t i = 0; i < count; ++i) {
        etw_collected_file f{};
        f.struct_size = sizeof f;
        if (etw_collect_report_file(&f, report.get(), i) != ETW_OK)
            continue;
        if (c.json) {
            Fields j;
            j.str("path", f.path);
            j.str("machine", f.machine);
            j.str("session", f.session);
            j.num("start", std::uint64_t(f.start_time));
            j.str("outcome", etw_collect_outcome_name(f.outcome));
            j.num("buffers", f.data_buffers);
            j.boolean("complete", f.complete != 0);
            j.kv.emplace_back("missing", json_list(lines(f.missing)));
            if (*f.error != '\0')
                j.str("error", f.error);
            files += (files.empty() ? "" : ", ") + j.json();
            continue;
        }
        std::fprintf(c.out, "%s: %s, %llu data buffers, %s\n", f.path, etw_collect_outcome_name(f.outcome),
                     static_cast<unsigned long long>(f.data_buffers), f.complete ? "complete" : "INCOMPLETE");
        std::fprintf(c.out, "  machine %s, session %s, start %lld\n", f.machine, f.session,
                     static_cast<long long>(f.start_time));
        for (const std::string &m : lines(f.missing))
            std::fprintf(c.out, "  missing: %s\n", m.c_str());
        if (*f.error != '\0')
            std::fprintf(c.out, "  %s\n", f.error);
    }
    if (c.json) {
        std::fprintf(c.out,
                     "{\"ok\": %s, \"command\": \"collect\", \"status\": %u, \"status_name\": %s, \"message\": %s, "
                     "\"skipped\": %llu, \"files\": [%s]}\n",
                     st == ETW_OK ? "true" : "false", unsigned(st), json_string(etw_status_name(st)).c_str(),
                     json_string(message).c_str(), static_cast<unsigned long long>(skipped), files.c_str());
    } else if (skipped != 0) {
        std::fprintf(c.out, "%llu session(s) of other machines or names left out\n",
                     static_cast<unsigned long long>(skipped));
    }
    if (st != ETW_OK) {
        std::fprintf(c.err, "etwctl collect: %s (%u): %s\n", etw_status_name(st), unsigned(st), message.c_str());
        return 1;
    }
    return 0;
}

} // namespace etwctl::detail
