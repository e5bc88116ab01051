// etwdump --format profile: a sampled-profile summary, the hottest
// functions of each process. Learns from the trace itself which thread
// belongs to which process (Thread and StackWalk records), what each
// process is and where its images are (module_map.hpp, which names the
// functions of ELF images; docs/KERNEL_LOGGER.md, "Profiles").
// Samples followed by their StackWalk record also count, per function,
// the samples whose stack holds it (inclusive).
#pragma once

#include <openetw/openetw.h>

#include "module_map.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace etwdump {

class Profile {
public:
    // debug_dir: where .build-id/ debug files are (GDB's layout; /usr/lib/debug).
    Profile(unsigned top, std::string debug_dir) : top_(top), modules_(std::move(debug_dir)) {}
    // Each record in time order, with its decoded form (NULL when none).
    void add(const etw_record &r, const etw_decoded_event *e);
    void print(std::FILE *out);
    // The images whose file changed since the trace, one sentence each.
    const std::vector<std::string> &changed() const { return modules_.changed(); }

private:
    struct Process {
        std::uint64_t samples = 0;
        std::map<std::string, std::uint64_t> functions; // "function\tmodule" -> samples
        std::map<std::string, std::uint64_t> inclusive; // -> samples whose stack holds it
        std::uint64_t stacked = 0;                      // samples with a stack
    };
    void attribute();
    std::string place(std::uint32_t pid, std::uint64_t ip);

    unsigned top_;
    ModuleMap modules_;
    std::map<std::uint32_t, Process> processes_;
    std::map<std::uint32_t, std::uint32_t> thread_process_;
    struct Sample {
        std::uint32_t thread;
        std::uint64_t ip;
        std::vector<std::uint64_t> frames; // its StackWalk's, innermost first
    };
    std::vector<Sample> pending_; // samples not yet attributed
    std::uint64_t samples_ = 0;
};

} // namespace etwdump
