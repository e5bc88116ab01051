// A .etl file as a BufferSource: opening checks buffer 0 and the logfile
// header; buffers are then located one by one up to the end of the file,
// stepping by each buffer's own BufferSize. The file is read by its buffers:
// past the header's BuffersWritten (a header never rewritten, as when the
// writer was killed) while what follows looks like buffers of the file, with
// the disagreement reported as end_problem. A buffer that repeats an earlier
// one byte for byte (same processor and SequenceNumber) is reported and its
// records are not delivered again.
#pragma once

#include "consumer/buffer_source.hpp"
#include "platform/file_input.hpp"

#include <map>
#include <memory>

namespace openetw::consumer {

class FileSource final : public BufferSource {
public:
    // Reads buffer 0 and the logfile header. Failures name the path and offset.
    static Status open(std::unique_ptr<platform::RandomAccessInput> input, const std::string &path, std::uint32_t index,
                       std::unique_ptr<FileSource> &out);

    const SourceInfo &info() const override { return info_; }
    Status rewind() override;
    Status next(StoredBuffer &out, bool &have) override;
    const format::Problem &end_problem() const override { return end_problem_; }
    bool indexed() const override { return true; }
    Status directory(std::vector<BufferLocation> &out) override;
    Status read(const BufferLocation &loc, StoredBuffer &out) override;

private:
    explicit FileSource(std::unique_ptr<platform::RandomAccessInput> input) : input_(std::move(input)) {}

    // Locates the buffer at next_offset_ and advances past it.
    Status locate(BufferLocation &loc, format::Problem &problem, bool &have);
    // Whether a buffer of this file starts at offset (past BuffersWritten).
    Status looks_like_buffer(std::uint64_t offset, bool &yes);
    // Whether loc repeats an earlier buffer of the file; sets problem if so.
    Status check_repeat(const BufferLocation &loc, format::Problem &problem);
    Status same_bytes(const BufferLocation &a, const BufferLocation &b, bool &same);
    void note_extra_buffers();

    std::unique_ptr<platform::RandomAccessInput> input_;
    SourceInfo info_;
    std::uint64_t next_offset_ = 0;
    std::uint32_t next_index_ = 0;
    bool at_end_ = false;
    format::Problem end_problem_;
    std::map<std::uint32_t, format::Problem> located_problems_; // by buffer index, for read()
    std::uint32_t beyond_promised_ = 0;                         // buffers read past BuffersWritten
    // The first buffer seen with each (processor, SequenceNumber).
    std::map<std::pair<std::uint32_t, std::uint64_t>, BufferLocation> first_seen_;
};

} // namespace openetw::consumer
