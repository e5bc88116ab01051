// The GNU build id of an image file, read from the file itself
// (format/elf_build_id.hpp over platform/file_input.hpp): the rundown's
// source, and the live source's where the kernel gave none.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace openetw::kernel {

// Reads the build id of the file at path: empty when the file cannot be
// read, is no ELF file, is malformed or has no build id note.
using BuildIdReader = std::function<std::vector<std::uint8_t>(const std::string &path)>;
std::vector<std::uint8_t> read_file_build_id(const std::string &path);

// Each file read once: a library mapped by a hundred processes is one read.
// Keyed by what names the file's version (the path, with its device and
// inode where known); grows with the distinct files seen.
class BuildIdCache {
public:
    explicit BuildIdCache(BuildIdReader reader = {});
    const std::vector<std::uint8_t> &get(const std::string &key, const std::string &path);

private:
    BuildIdReader reader_;
    std::unordered_map<std::string, std::vector<std::uint8_t>> ids_;
};

} // namespace openetw::kernel
