// etwctl's provider commands: `providers [GUID]` lists the registered
// providers, the processes registering them and the sessions enabling them;
// `capture-state NAME GUID` asks a provider to log its state. See commands.hpp.
#include "commands.hpp"

#include <fstream>
#include <string>
#include <vector>

namespace etwctl::detail {

namespace {

// A process's command name (Linux: /proc/PID/comm), or "?" when gone or unknown.
std::string process_name(std::uint32_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    if (!std::getline(in, name) || name.empty())
        return "?";
    return name;
}

struct Listing {
    etw_guid guid;
    std::vector<etw_provider_process> procs;
    std::vector<etw_provider_session> sessions;
};

// What the library says of one GUID; st is its status (ETW_ERROR_WMI_GUID_NOT_FOUND when it went away).
etw_status query(const etw_guid &g, Listing *out)
{
    out->guid = g;
    std::uint32_t np = 0, ns = 0;
    etw_status st = etw_provider_query(&g, nullptr, 0, &np, nullptr, 0, &ns);
    for (int attempt = 0; attempt < 8 && (st == ETW_OK || st == ETW_ERROR_MORE_DATA); ++attempt) {
        out->procs.resize(np + 4);
        out->sessions.resize(ns + 4);
        st = etw_provider_query(&g, out->procs.data(), std::uint32_t(out->procs.size()), &np, out->sessions.data(),
                                std::uint32_t(out->sessions.size()), &ns);
        if (st == ETW_OK) {
            out->procs.resize(np);
            out->sessions.resize(ns);
            break;
        }
    }
    return st;
}

void print(Ctx &c, const Listing &l, bool first)
{
    if (c.json) {
        std::string procs, sessions;
        for (const etw_provider_process &p : l.procs)
            procs += std::string(procs.empty() ? "" : ", ") + "{\"pid\": " + std::to_string(p.process_id) +
                     ", \"name\": " + json_string(process_name(p.process_id)) +
                     ", \"registrations\": " + std::to_string(p.registrations) + "}";
        for (const etw_provider_session &s : l.sessions)
            sessions += std::string(sessions.empty() ? "" : ", ") + "{\"name\": " + json_string(s.session_name) +
                        ", \"handle\": " + std::to_string(s.session_handle) +
                        ", \"level\": " + std::to_string(s.level) +
                        ", \"match_any_keyword\": " + std::to_string(s.match_any_keyword) +
                        ", \"match_all_keyword\": " + std::to_string(s.match_all_keyword) +
                        ", \"filters\": " + std::to_string(s.filter_count) + "}";
        std::fprintf(c.out, "%s{\"provider\": %s, \"processes\": [%s], \"sessions\": [%s]}", first ? "" : ", ",
                     json_string(guid_text(l.guid)).c_str(), procs.c_str(), sessions.c_str());
        return;
    }
    std::fprintf(c.out, "%s\n", guid_text(l.guid).c_str());
    if (l.procs.empty())
        std::fprintf(c.out, "  registered by no process (enabled ahead of it)\n");
    for (const etw_provider_process &p : l.procs)
        std::fprintf(c.out, "  process %u (%s): %u registration%s\n", p.process_id, process_name(p.process_id).c_str(),
                     p.registrations, p.registrations == 1 ? "" : "s");
    for (const etw_provider_session &s : l.sessions)
        std::fprintf(c.out, "  enabled by %s: level %u, keywords any 0x%llx all 0x%llx, %u filter%s\n", s.session_name,
                     s.level, static_cast<unsigned long long>(s.match_any_keyword),
                     static_cast<unsigned long long>(s.match_all_keyword), s.filter_count,
                     s.filter_count == 1 ? "" : "s");
}

} // namespace

int cmd_providers(Ctx &c, const Args &a)
{
    if (a.positional.size() > 1 || !a.options.empty())
        return c.usage("providers takes at most one provider GUID");
    std::vector<etw_guid> guids;
    if (a.positional.size() == 1) {
        etw_guid g;
        if (!parse_guid(a.positional[0], &g))
            return c.usage("\"" + a.positional[0] + "\" is not a provider GUID");
        guids.push_back(g);
    } else {
        std::uint32_t n = 0;
        etw_status st = etw_provider_list(nullptr, 0, &n);
        for (int attempt = 0; attempt < 8 && st == ETW_ERROR_MORE_DATA; ++attempt) {
            guids.resize(n + 8);
            st = etw_provider_list(guids.data(), std::uint32_t(guids.size()), &n);
        }
        if (st != ETW_OK)
            return c.fail(st);
        guids.resize(n);
    }
    std::vector<Listing> found;
    for (const etw_guid &g : guids) {
        Listing l;
        const etw_status st = query(g, &l);
        if (st == ETW_ERROR_WMI_GUID_NOT_FOUND && a.positional.empty())
            continue; // went away since the list was taken
        if (st != ETW_OK)
            return c.fail(st);
        found.push_back(std::move(l));
    }
    if (c.json)
        std::fprintf(c.out, "{\"ok\": true, \"command\": \"providers\", \"providers\": [");
    else if (found.empty())
        std::fprintf(c.out, "no provider is registered or enabled\n");
    for (std::size_t i = 0; i < found.size(); ++i)
        print(c, found[i], i == 0);
    if (c.json)
        std::fprintf(c.out, "]}\n");
    return 0;
}

int cmd_capture_state(Ctx &c, const Args &a)
{
    if (a.positional.size() != 2)
        return c.usage("capture-state takes a session name and a provider GUID");
    etw_guid g;
    if (!parse_guid(a.positional[1], &g))
        return c.usage("\"" + a.positional[1] + "\" is not a provider GUID");
    LevelKeywords lk;
    for (const auto &[k, v] : a.options) {
        std::string bad;
        if (!lk.take(k, v, &bad))
            return c.usage("capture-state: unknown option --" + k);
        if (!bad.empty())
            return c.usage(bad);
    }
    etw_session *s = nullptr;
    if (etw_status st = etw_session_open(&s, a.positional[0].c_str()); st != ETW_OK)
        return c.fail(st);
    const etw_status st =
        etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_CAPTURE_STATE, std::uint8_t(lk.level), lk.any, lk.all);
    etw_session_close(s);
    if (st != ETW_OK)
        return c.fail(st);
    if (c.json)
        std::fprintf(c.out, "{\"ok\": true, \"command\": \"capture-state\", \"name\": %s, \"provider\": %s}\n",
                     json_string(a.positional[0]).c_str(), json_string(guid_text(g)).c_str());
    else
        std::fprintf(c.out, "asked %s to capture its state for %s\n", guid_text(g).c_str(), a.positional[0].c_str());
    return 0;
}

} // namespace etwctl::detail
