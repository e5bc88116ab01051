// Where buffers come from: a file (file_source.hpp) or a live real-time
// session (live_source.hpp; sequential only: it is delivered in arrival
// order, since buffers that have not arrived cannot be merged).
#pragma once

#include "base/status.hpp"
#include "format/buffer_header.hpp"
#include "format/logfile_header.hpp"
#include "format/problem.hpp"
#include "format/timestamps.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::consumer {

// The facts of one source, from its logfile header.
struct SourceInfo {
    std::string path;
    std::uint32_t index = 0; // file index in the consumer
    std::uint64_t size = 0;  // bytes in the file
    format::LogfileHeader header;
    format::TimeBase time;
    format::ImageContext image_context;
};

// What a buffer's header says about it, enough to order buffers without
// reading them whole.
struct BufferLocation {
    std::uint64_t file_offset = 0;
    std::uint64_t sequence = 0;
    std::uint32_t index = 0;  // position in the file
    std::uint32_t length = 0; // bytes stored for it (cut short at the end of the file)
    std::uint32_t processor = 0;
    etw_status problem = ETW_OK; // found while locating; the detail is in StoredBuffer::problem
};

struct StoredBuffer {
    BufferLocation location;
    std::vector<std::uint8_t> bytes; // as stored; capacity is reused
    format::Problem problem;         // from locating (bad BufferSize, end of file)
};

class BufferSource {
public:
    virtual ~BufferSource() = default;
    virtual const SourceInfo &info() const = 0;

    // Starts again from the first buffer.
    virtual Status rewind() = 0;
    // The next buffer in stored (or arrival) order; have = false at the end.
    // A failing Status is an I/O error.
    virtual Status next(StoredBuffer &out, bool &have) = 0;
    // Set when the source ended before the buffers its header promises.
    virtual const format::Problem &end_problem() const = 0;
    // Wakes a next() blocked waiting for data (any thread); later calls of
    // next() fail with ETW_ERROR_CANCELLED. Files never block.
    virtual void interrupt() {}

    // Random access, for time order. A file lists every buffer's location
    // (reading each header once) and reads any of them.
    virtual bool indexed() const { return false; }
    virtual Status directory(std::vector<BufferLocation> &) { return Fail(ETW_ERROR_NOT_SUPPORTED, "not indexed"); }
    virtual Status read(const BufferLocation &, StoredBuffer &) { return Fail(ETW_ERROR_NOT_SUPPORTED, "not indexed"); }
};

} // namespace openetw::consumer
