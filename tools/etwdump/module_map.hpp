// Where the code addresses of a trace's processes are: each process's
// images as the trace's Process, Image (Load/DCStart) and ImageID/DbgID_RSDS
// records say, in time order, and the ELF function at an address
// (decode/elf_symbols.hpp; docs/KERNEL_LOGGER.md, "Profiles"). The system
// logger writes these records for every process; a session whose events
// carry user stacks gets the writing process's (EVENT_ENABLE_PROPERTY_STACK_TRACE).
// Where the trace recorded an image's build id, the symbols come from the
// file of that id: the debug file <debug dir>/.build-id/xx/yyyy.debug
// first, then the image's path, whose symbols are not used when its build
// id differs (the file changed since the trace; reported, never resolved
// to wrong functions).
#pragma once

#include <openetw/openetw.h>

#include "decode/elf_symbols.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace etwdump {

class ModuleMap {
public:
    // debug_dir: where .build-id/ debug files are (GDB's layout; /usr/lib/debug).
    explicit ModuleMap(std::string debug_dir) : debug_dir_(std::move(debug_dir)) {}
    // Each record in time order, with its decoded form (NULL when none);
    // true when it was a Process, Image or ImageID record.
    bool add(const etw_record &r, const etw_decoded_event *e);

    struct Place {
        std::string module;   // the image's file name ("" when in none)
        std::string function; // "" when not named
        std::uint64_t displacement = 0;
        bool kernel = false; // in no image of the process, in kernel space
    };
    // The image of an address in process pid (its own, else the kernel's,
    // pid 0) and the function there. return_address: the address follows a
    // call (a stack frame's), so the call's own byte is looked up.
    Place place(std::uint32_t pid, std::uint64_t ip, bool return_address = false);
    // "module!function+0xoff", "module+0xoff" when the function is not
    // known, "[kernel]" or "?" outside every image.
    std::string frame_text(std::uint32_t pid, std::uint64_t ip, bool return_address = true);
    // A process's image name as its Process record gave it ("" if none).
    std::string process_name(std::uint32_t pid) const;
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
    };
    const openetw::decode::ElfSymbols *symbols(const Image &image);
    const openetw::decode::ElfSymbols *load(const std::string &path);

    std::string debug_dir_;
    std::vector<std::string> changed_;
    std::map<std::uint32_t, Process> processes_;
    std::uint32_t pointer_size_ = 8;
    std::map<std::string, const openetw::decode::ElfSymbols *> by_identity_; // path + build id -> the symbols used
    std::vector<std::unique_ptr<openetw::decode::ElfSymbols>> placed_; // debug files' symbols by their image's segments
    std::map<std::string, std::unique_ptr<openetw::decode::ElfSymbols>> elf_; // null: not readable
};

} // namespace etwdump
