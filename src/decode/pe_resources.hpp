// The resources of a Windows PE image (DLL, EXE, SYS; PE32 and PE32+) read
// from the file's bytes: the DOS and PE headers, the section table and the
// resource directory (IMAGE_DIRECTORY_ENTRY_RESOURCE) with its three levels
// type / name / language. Every offset and size is checked against the file;
// a directory seen twice (a loop) or a tree deeper than three levels is an
// error, not a hang.
#pragma once

#include "format/problem.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace openetw::decode {

using format::Problem;
using format::text_printf;

// Standard resource types (winuser.h RT_*).
inline constexpr std::uint32_t kResourceMessageTable = 11;

struct PeResource {
    std::uint32_t id = 0;               // the name level's id (0 when named)
    std::string name;                   // the name level's name (UTF-8), when named
    std::uint32_t language = 0;         // the language level's id
    std::span<const std::uint8_t> data; // inside the file's bytes
};

// A resource type: a number (RT_*) or a name such as "WEVT_TEMPLATE".
struct ResourceType {
    std::uint32_t id = 0;
    std::string name; // used when not empty (compared exactly, ASCII)
};

// Appends to out every resource of `type` in the image `file`, in directory
// order. Returns true (out may stay empty: the image has no such resource);
// false with problem set (ETW_ERROR_INVALID_DATA, "PE: ...") when the file
// is not a PE image or its headers, sections or resource directory are
// damaged. problem.at is the file offset where the damage was found.
bool pe_resources(std::span<const std::uint8_t> file, const ResourceType &type, std::vector<PeResource> &out,
                  Problem &problem);

} // namespace openetw::decode
