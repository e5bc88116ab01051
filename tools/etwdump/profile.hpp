// etwdump --format profile: a sampled-profile summary, the hottest
// functions of each process. Learns from the trace itself which thread
// belongs to which process (Thread and StackWalk records), what each
// process is (Process records) and where its images are (Image records);
// names the functions of ELF images from their symbol tables, read from
// the image's path when the dump runs (docs/KERNEL_LOGGER.md, "Profiles").
// Where the trace recorded an image's build id (ImageID/DbgID_RSDS), the
// symbols come from the file of that id: the debug file
// <debug dir>/.build-id/xx/yyyy.debug first, then the image's path, whose
// symbols are not used when its build id differs (the file changed since
// the trace; reported, never resolved to wrong functions).
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
    // debug_dir: where .build-id/ debug files are (GDB's layout; /usr/lib/debug).
    Profile(unsigned top, std::string debug_dir) : top_(top), debug_dir_(std::move(debug_dir)) {}
    // Each record in time order, with its decoded form (NULL when none).
    void add(const etw_record &r, const etw_decoded_event *e);
    void print(std::FILE *out);
    // The images whose file changed since the trace, one sentence each.
    const std::vector<std::string> &changed() const { return changed_; }

private:
    struct Image {
        std::uint64_t base, size;
        std::string path;
        std::vector<std::uint8_t> build_id; // as DbgID_RSDS holds it (20 bytes), or empty
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
    const ElfSymbols *symbols(const Image &image);
    const ElfSymbols *load(const std::string &path);
    std::string place(std::uint32_t pid, std::uint64_t ip);

    unsigned top_;
    std::string debug_dir_;
    std::vector<std::string> changed_;
    std::map<std::string, const ElfSymbols *> by_identity_; // path + build id -> the symbols used
    std::vector<std::unique_ptr<ElfSymbols>> placed_;       // debug files' symbols by their image's segments
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
