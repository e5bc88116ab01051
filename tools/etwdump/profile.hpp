// etwdump --format profile: a sampled-profile summary, the hottest
// functions of each process. Learns from the trace itself which thread
// belongs to which process (Thread and StackWalk records), what each
// process is (Process records) and where its images are (Image records);
// names the functions of ELF images from their symbol tables, read from
// the image's path when the dump runs (docs/KERNEL_LOGGER.md, "Profiles").
// Samples followed by their StackWalk record also count, per function,
// the samples whose stack holds it (inclusive).
#pragma once

#include <openetw/openetw.h>

#include "elf_symbols.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace etwdump {

class Profile {
public:
    explicit Profile(unsigned top) : top_(top) {}
    // Each record in time order, with its decoded form (NULL when none).
    void add(const etw_record &r, const etw_decoded_event *e);
    void print(std::FILE *out);

private:
    struct Image {
        std::uint64_t base, size;
        std::string path;
    };
    struct Process {
        std::string name;
        std::vector<Image> images; // newest last
        std::uint64_t samples = 0;
        std::map<std::string, std::uint64_t> functions; // "function\tmodule" -> samples
        std::map<std::string, std::uint64_t> inclusive; // -> samples whose stack holds it
        std::uint64_t stacked = 0;                      // samples with a stack
    };
    void attribute();
    const ElfSymbols *symbols(const std::string &path);
    std::string place(std::uint32_t pid, std::uint64_t ip);

    unsigned top_;
    std::map<std::uint32_t, Process> processes_;
    std::map<std::uint32_t, std::uint32_t> thread_process_;
    std::map<std::string, std::unique_ptr<ElfSymbols>> elf_; // null: not readable
    struct Sample {
        std::uint32_t thread;
        std::uint64_t ip;
        std::vector<std::uint64_t> frames; // its StackWalk's, innermost first
    };
    std::vector<Sample> pending_; // samples not yet attributed
    std::uint64_t samples_ = 0;
    std::uint32_t pointer_size_ = 8;
};

} // namespace etwdump
