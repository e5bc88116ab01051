// The function symbols of an ELF file (32- or 64-bit, little-endian), to
// name the code addresses of a profile or a stack: .symtab, else .dynsym,
// found by file offset (what an address minus its image's base is, the
// base being where offset 0 is mapped, as the system logger and the
// module maps of user stacks write it). parse() is pure over bytes; load()
// reads the file through platform/file_input.hpp. etwdump compiles these
// sources too (elf_symbols_sources): it links only the public library.
// An object is not changed after parse/load: any thread may read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::decode {

class ElfSymbols {
public:
    // Parses the file's bytes; false (with why) when it is not an ELF file
    // this reads. A stripped file parses with no symbols (its segments and
    // build id still serve a separate debug file).
    bool parse(const std::vector<std::uint8_t> &file, std::string &why);
    // Reads and parses the file at path (at most kMaxFileBytes).
    bool load(const std::string &path, std::string &why);
    static constexpr std::uint64_t kMaxFileBytes = std::uint64_t(4) << 30;
    // The function holding the code at file offset off ("" when none),
    // demangled, and how far into it the offset is.
    std::string function_at(std::uint64_t off, std::uint64_t *displacement = nullptr) const;
    // The file's GNU build id (empty when it has none).
    const std::vector<std::uint8_t> &build_id() const { return build_id_; }
    bool has_symbols() const { return !symbols_.empty(); }
    // These symbols placed by another file's segments: a separate debug
    // file's symbols by its image's program headers (objcopy
    // --only-keep-debug empties the segments' file contents and offsets;
    // alone, a debug file's offsets are where a linker would put them).
    ElfSymbols with_segments_of(const ElfSymbols &image) const;

private:
    struct Segment {
        std::uint64_t offset, vaddr, size;
    };
    struct Symbol {
        std::uint64_t start, size;
        std::string name;
    };
    std::vector<Segment> segments_; // PT_LOAD with file contents: file offsets to addresses
    // Offsets in no segment: address = offset + bias, the first PT_LOAD's
    // vaddr - offset (the usual layouts keep code at the same distance).
    std::uint64_t bias_ = 0;
    std::vector<Symbol> symbols_; // by start
    std::vector<std::uint8_t> build_id_;
};

} // namespace openetw::decode
