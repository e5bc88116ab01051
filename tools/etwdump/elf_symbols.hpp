// The function symbols of an ELF file (32- or 64-bit, little-endian), to
// name the code addresses of a profile or a stack: .symtab, else .dynsym,
// found by file offset (what an address minus its image's base is, the
// base being where offset 0 is mapped, as the system logger writes it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace etwdump {

class ElfSymbols {
public:
    // Parses the file's bytes; false (with why) when it is not an ELF file
    // this reads or has no function symbols.
    bool parse(const std::vector<std::uint8_t> &file, std::string &why);
    // Reads and parses the file at path.
    bool load(const std::string &path, std::string &why);
    // The function holding the code at file offset off ("" when none),
    // demangled, and how far into it the offset is.
    std::string function_at(std::uint64_t off, std::uint64_t *displacement = nullptr) const;
    // The file's GNU build id (empty when it has none).
    const std::vector<std::uint8_t> &build_id() const { return build_id_; }

private:
    struct Segment {
        std::uint64_t offset, vaddr, size;
    };
    struct Symbol {
        std::uint64_t start, size;
        std::string name;
    };
    std::vector<Segment> segments_; // PT_LOAD: file offsets to addresses
    std::vector<Symbol> symbols_;   // by start
    std::vector<std::uint8_t> build_id_;
};

} // namespace etwdump
