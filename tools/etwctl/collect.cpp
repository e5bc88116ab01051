// `etwctl collect URL --output DIR`: the options and the report. The
// rebuilding is src/export's (stream_collect.hpp); this file links the
// library's internal part for it, as openetw-hostd does.
#include "commands.hpp"

#include "export/stream_collect.hpp"

namespace etwctl::detail {

namespace {

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
    using namespace openetw::exporter;
    if (a.positional.size() != 1)
        return c.usage("collect takes one stream URL (nats://HOST:PORT/STREAM)");
    CollectOptions o;
    for (const auto &[k, v] : a.options) {
        if (k == "output")
            o.folder = v;
        else if (k == "machine")
            o.filter.machine = v;
        else if (k == "session")
            o.filter.session = v;
        else if (k == "credentials")
            o.credentials_file = v;
        else if (k == "force")
            o.overwrite = true;
        else
            return c.usage("collect: unknown option --" + k);
    }
    if (o.folder.empty())
        return c.usage("collect needs --output DIR");
    CollectReport report;
    const openetw::Status st = collect_stream(a.positional[0], o, &report);
    std::string files;
    for (const CollectedFile &f : report.files) {
        const CollectedTrace &t = f.trace;
        if (c.json) {
            Fields j;
            j.str("path", f.path);
            j.str("machine", t.tag.machine);
            j.str("session", t.tag.session);
            j.num("start", std::uint64_t(t.tag.start_time));
            j.str("outcome", outcome_name(f.outcome));
            j.num("buffers", t.buffers);
            j.boolean("complete", t.complete());
            j.kv.emplace_back("missing", json_list(t.missing));
            if (!f.error.empty())
                j.str("error", f.error);
            files += (files.empty() ? "" : ", ") + j.json();
            continue;
        }
        std::fprintf(c.out, "%s: %s, %llu data buffers, %s\n", f.path.c_str(), outcome_name(f.outcome),
                     static_cast<unsigned long long>(t.buffers), t.complete() ? "complete" : "INCOMPLETE");
        std::fprintf(c.out, "  machine %s, session %s, start %lld\n", t.tag.machine.c_str(), t.tag.session.c_str(),
                     static_cast<long long>(t.tag.start_time));
        for (const std::string &m : t.missing)
            std::fprintf(c.out, "  missing: %s\n", m.c_str());
        if (!f.error.empty())
            std::fprintf(c.out, "  %s\n", f.error.c_str());
    }
    if (c.json) {
        std::fprintf(c.out,
                     "{\"ok\": %s, \"command\": \"collect\", \"status\": %u, \"status_name\": %s, \"message\": %s, "
                     "\"skipped\": %llu, \"files\": [%s]}\n",
                     st ? "true" : "false", unsigned(st.code), json_string(etw_status_name(st.code)).c_str(),
                     json_string(st.message).c_str(), static_cast<unsigned long long>(report.skipped), files.c_str());
    } else if (report.skipped != 0) {
        std::fprintf(c.out, "%llu session(s) of other machines or names left out\n",
                     static_cast<unsigned long long>(report.skipped));
    }
    if (!st) {
        std::fprintf(c.err, "etwctl collect: %s (%u): %s\n", etw_status_name(st.code), unsigned(st.code),
                     st.message.c_str());
        return 1;
    }
    return 0;
}

} // namespace etwctl::detail
