// The GNU build id of an ELF file (the NT_GNU_BUILD_ID note the linker
// writes with --build-id, `readelf -n` shows it): pure parsing, the bytes
// coming from a reader the caller gives (a file, memory), so that only the
// parts needed are read (the headers and the note areas) and never past the
// file's end. The PT_NOTE segments are searched first, then the SHT_NOTE
// sections (what a separate .debug file may keep). 32- and 64-bit, either
// byte order. Every malformed input is a refusal saying what is wrong;
// none is read past the size given.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace openetw::format {

// Fills out with the bytes at offset; false when they cannot be read.
using ElfReadAt = std::function<bool(std::uint64_t offset, std::span<std::uint8_t> out)>;

struct ElfBuildId {
    enum class Result : std::uint8_t {
        Found,     // id holds the note's bytes
        None,      // a well-formed ELF file without a build id note
        Malformed, // why says what is wrong
    };
    Result result = Result::None;
    std::vector<std::uint8_t> id;
    std::string why;
};

// The longest note area read (a build id note sits in a few dozen bytes).
inline constexpr std::uint64_t kMaxElfNoteArea = 1u << 20;

// The build id of the file of `size` bytes that read gives.
ElfBuildId elf_build_id(std::uint64_t size, const ElfReadAt &read);
// The same over bytes in memory.
ElfBuildId elf_build_id(std::span<const std::uint8_t> file);

// The build id in a note area (namesz, descsz, type, name, desc; name and
// desc padded to align, 4 or 8); big_endian as the file's.
ElfBuildId elf_note_build_id(std::span<const std::uint8_t> notes, std::uint64_t align, bool big_endian);

// Lower-case hex, as readelf and the .build-id directories write it.
std::string build_id_hex(std::span<const std::uint8_t> id);

} // namespace openetw::format
