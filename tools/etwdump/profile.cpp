#include "profile.hpp"

#include "fields.hpp"

#include <algorithm>
#include <cstring>
#include <set>

namespace etwdump {

namespace {

// StackWalk's frames: the elements of its Stacks array.
std::vector<std::uint64_t> frames(const etw_decoded_event &e)
{
    std::vector<std::uint64_t> out;
    for (uint32_t i = 0; i < e.property_count; ++i) {
        const etw_event_property &p = e.properties[i];
        if (p.parent == ETW_PROPERTY_NO_PARENT || std::strcmp(e.properties[p.parent].name, "Stacks") != 0 ||
            p.data_size == 0 || p.data_size > 8)
            continue;
        std::uint64_t v = 0;
        for (uint32_t k = 0; k < p.data_size; ++k)
            v |= std::uint64_t(p.data[k]) << (8 * k);
        out.push_back(v);
    }
    return out;
}

bool starts(const char *s, const char *prefix) { return s && std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

} // namespace

void Profile::add(const etw_record &r, const etw_decoded_event *e)
{
    modules_.add(r, e);
    if (!e || !e->event_name)
        return;
    const char *name = e->event_name;
    std::uint64_t pid = 0, tid = 0, ip = 0;
    if (std::strcmp(name, "PerfInfo/SampleProfile") == 0) {
        if (top_number(*e, "InstructionPointer", &ip) && top_number(*e, "ThreadId", &tid)) {
            pending_.push_back({std::uint32_t(tid), ip, {}});
            ++samples_;
        }
        return;
    }
    if (std::strcmp(name, "StackWalk/Stack") == 0) {
        if (top_number(*e, "StackProcess", &pid) && top_number(*e, "StackThread", &tid)) {
            thread_process_[std::uint32_t(tid)] = std::uint32_t(pid);
            // Written right after its sample: the thread's latest one waiting.
            for (auto s = pending_.rbegin(); s != pending_.rend(); ++s)
                if (s->thread == tid) {
                    s->frames = frames(*e);
                    break;
                }
        }
    } else if (starts(name, "Thread/Start") || starts(name, "Thread/DCStart")) {
        if (top_number(*e, "ProcessId", &pid) && top_number(*e, "TThreadId", &tid))
            thread_process_[std::uint32_t(tid)] = std::uint32_t(pid);
    } else if (starts(name, "Process/Start") || starts(name, "Process/DCStart")) {
        if (top_number(*e, "ProcessId", &pid))
            thread_process_[std::uint32_t(pid)] = std::uint32_t(pid);
    }
    attribute();
}

// Samples wait for the next record that is not one (an image loaded in the
// same instant comes first), then are filed under their thread's process
// against the images it has then: a pid's images change with its execs.
void Profile::attribute()
{
    for (const Sample &s : pending_) {
        const auto t = thread_process_.find(s.thread);
        const std::uint32_t owner = s.thread == 0 ? 0 : t != thread_process_.end() ? t->second : UINT32_MAX;
        Process &p = processes_[owner];
        ++p.samples;
        ++p.functions[place(owner, s.ip)];
        if (s.frames.empty())
            continue;
        ++p.stacked;
        std::set<std::string> seen; // a recursive function counts once per sample
        for (std::uint64_t frame : s.frames)
            if (auto [where, fresh] = seen.insert(place(owner, frame)); fresh)
                ++p.inclusive[*where];
    }
    pending_.clear();
}

// "function\tmodule" of an address in a process (module_map.hpp).
std::string Profile::place(std::uint32_t pid, std::uint64_t ip)
{
    const ModuleMap::Place p = modules_.place(pid, ip);
    if (p.module.empty())
        return p.kernel ? "[kernel]\t" : "?\t";
    return (p.function.empty() ? "?" : p.function) + "\t" + p.module;
}

void Profile::print(std::FILE *out)
{
    attribute(); // the last samples: no record followed them
    std::fprintf(out, "sampled profile: %llu samples\n", (unsigned long long)samples_);
    for (const std::string &line : modules_.changed())
        std::fprintf(out, "%s\n", line.c_str());
    std::vector<std::pair<std::uint32_t, const Process *>> order;
    for (const auto &[pid, p] : processes_)
        if (p.samples)
            order.emplace_back(pid, &p);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &a, const auto &b) { return a.second->samples > b.second->samples; });
    for (const auto &[pid, p] : order) {
        const std::string who = pid == 0            ? "Idle"
                                : pid == UINT32_MAX ? "(thread of no known process)"
                                                    : modules_.process_name(pid);
        const std::string shown = who.empty() ? "?" : who;
        std::fprintf(out, "process %s %s: %llu samples\n", pid == UINT32_MAX ? "-" : std::to_string(pid).c_str(),
                     shown.c_str(), (unsigned long long)p->samples);
        auto rows = [&](std::map<std::string, std::uint64_t> counts, std::uint64_t of) {
            std::vector<std::pair<std::string, std::uint64_t>> fns(counts.begin(), counts.end());
            std::stable_sort(fns.begin(), fns.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
            if (fns.size() > top_)
                fns.resize(top_);
            for (const auto &[where, n] : fns) {
                const std::size_t tab = where.find('\t');
                std::fprintf(out, "  %8llu %5.1f%%  %s  %s\n", (unsigned long long)n, 100.0 * double(n) / double(of),
                             where.substr(0, tab).c_str(), where.substr(tab + 1).c_str());
            }
        };
        rows(p->functions, p->samples);
        if (p->stacked) {
            std::fprintf(out, "  inclusive, of %llu samples with stacks:\n", (unsigned long long)p->stacked);
            rows(p->inclusive, p->stacked);
        }
    }
}

} // namespace etwdump
