// Reading byte ranges of an input: the consumer's and the decoder's only I/O. A file on disk
// in production; memory in tests and the fuzz driver.
#pragma once

#include "base/status.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openetw::platform {

class RandomAccessInput {
public:
    virtual ~RandomAccessInput() = default;
    virtual std::uint64_t size() const = 0;
    // Reads up to n bytes at offset into dst; got < n only at the end of the
    // input. A failing Status is an I/O error (ETW_ERROR_READ_FAULT).
    virtual Status read_at(std::uint64_t offset, std::uint8_t *dst, std::size_t n, std::size_t &got) = 0;
};

// Opens a regular file by UTF-8 path. Statuses: ETW_ERROR_FILE_NOT_FOUND,
// ETW_ERROR_ACCESS_DENIED (also for directories), ETW_ERROR_READ_FAULT.
Status open_file_input(const std::string &path, std::unique_ptr<RandomAccessInput> &out);

// Reads a whole regular file of at most limit bytes (what names it in the
// message of a larger one: ETW_ERROR_INVALID_DATA); open_file_input's
// statuses, and ETW_ERROR_READ_FAULT for a file that shrank meanwhile.
Status read_whole(const std::string &path, std::uint64_t limit, const char *what, std::vector<std::uint8_t> &bytes);

std::unique_ptr<RandomAccessInput> memory_input(std::vector<std::uint8_t> bytes);

} // namespace openetw::platform
