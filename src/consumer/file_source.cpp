#include "consumer/file_source.hpp"

#include "consumer/messages.hpp"
#include "format/etl_layout.hpp"
#include "format/record_reader.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace openetw::consumer {

using format::Problem;
using format::text_printf;
namespace etl = openetw::etl;

Status FileSource::open(std::unique_ptr<platform::RandomAccessInput> input, const std::string &path,
                        std::uint32_t index, std::unique_ptr<FileSource> &out)
{
    std::unique_ptr<FileSource> src(new FileSource(std::move(input)));
    SourceInfo &info = src->info_;
    info.path = path;
    info.index = index;
    info.size = src->input_->size();
    auto fail = [&](const Problem &p, bool decompressed) {
        return Fail(p.code, problem_message(path, 0, 0, decompressed, p));
    };

    if (info.size < etl::kBufferHeaderSize)
        return Fail(ETW_ERROR_HANDLE_EOF,
                    path + text_printf(": the file has %llu bytes, fewer than one 0x48-byte buffer header",
                                       static_cast<unsigned long long>(info.size)));
    std::uint8_t head[etl::kBufferHeaderSize];
    std::size_t got = 0;
    if (Status st = src->input_->read_at(0, head, sizeof head, got); !st)
        return st;
    if (got < sizeof head)
        return Fail(ETW_ERROR_HANDLE_EOF, path + ": the file ended while reading the first buffer header");
    const format::BufferHeader h = format::parse_buffer_header(head);
    if (h.buffer_size < etl::kBufferHeaderSize || h.buffer_size > etl::kMaxBufferBytes) {
        Problem p;
        p.set(ETW_ERROR_BAD_LENGTH, 0,
              text_printf("BufferSize 0x%X of the header buffer is outside 0x48..0x%X", h.buffer_size,
                          etl::kMaxBufferBytes));
        return fail(p, false);
    }
    std::vector<std::uint8_t> stored(std::min<std::uint64_t>(h.buffer_size, info.size));
    if (Status st = src->input_->read_at(0, stored.data(), stored.size(), got); !st)
        return st;
    stored.resize(got);

    // The compression format of compressed files is kept in buffer 0's State (section 2.5).
    std::uint16_t format_id = static_cast<std::uint16_t>(h.state & 0xFFFFu);
    if (format_id == 0)
        format_id = etl::kCompressionFormatXpress;
    format::ImageContext first_context{0, format_id};
    std::vector<std::uint8_t> scratch;
    format::BufferImage image;
    Problem p;
    if (!format::make_buffer_image(stored, h, first_context, scratch, image, p))
        return fail(p, h.compressed());
    p.clear();
    format::RecordReader reader(image.bytes, image.filled);
    format::Record rec;
    std::vector<format::ExtendedItem> items;
    const auto step = reader.next(rec, items, p);
    if (step == format::RecordReader::Step::SkipCorrupt || step == format::RecordReader::Step::StopCorrupt)
        return fail(p, image.decompressed);
    if (step != format::RecordReader::Step::Record || !format::is_logfile_header_record(rec)) {
        p.set(ETW_ERROR_INVALID_DATA, static_cast<std::uint32_t>(etl::kBufferHeaderSize),
              "the first record is not the logfile header (a SYSTEM record with HookId 0)");
        return fail(p, image.decompressed);
    }
    if (!format::parse_logfile_header(image.bytes.subspan(rec.offset, rec.size), rec, info.header, p)) {
        p.at += rec.offset;
        return fail(p, image.decompressed);
    }
    const etw_trace_logfile_header64 &f = info.header.fields;
    info.time.clock_type = f.ReservedFlags;
    info.time.reference_raw = info.header.reference_timestamp;
    info.time.reference_filetime = f.StartTime;
    info.time.perf_freq = static_cast<std::uint64_t>(f.PerfFreq);
    info.time.cpu_mhz = f.CpuSpeedInMHz;
    info.image_context.session_buffer_size = f.BufferSize;
    info.image_context.compression_format =
        (f.LogFileMode & etl::kCompressedMode) ? format_id : etl::kCompressionFormatXpress;
    out = std::move(src);
    return Status::ok();
}

Status FileSource::rewind()
{
    next_offset_ = 0;
    next_index_ = 0;
    at_end_ = false;
    end_problem_.clear();
    beyond_promised_ = 0;
    first_seen_.clear();
    return Status::ok();
}

Status FileSource::looks_like_buffer(std::uint64_t offset, bool &yes)
{
    yes = false;
    const std::uint64_t remaining = info_.size - offset;
    if (remaining < etl::kBufferHeaderSize)
        return Status::ok();
    std::uint8_t head[etl::kBufferHeaderSize];
    std::size_t got = 0;
    if (Status st = input_->read_at(offset, head, sizeof head, got); !st)
        return st;
    if (got < sizeof head)
        return Status::ok();
    const format::BufferHeader h = format::parse_buffer_header(head);
    const bool compressed_file = (info_.header.fields.LogFileMode & etl::kCompressedMode) != 0;
    const std::uint32_t session = info_.image_context.session_buffer_size;
    if (h.buffer_size < etl::kBufferHeaderSize || h.buffer_size > etl::kMaxBufferBytes || h.buffer_size > remaining)
        return Status::ok();
    // Uncompressed buffers all have the session's size and are filled within it.
    if (!compressed_file && (h.buffer_size != session || h.offset < etl::kBufferHeaderSize || h.offset > h.buffer_size))
        return Status::ok();
    yes = true;
    return Status::ok();
}

void FileSource::note_extra_buffers()
{
    if (beyond_promised_ == 0 || end_problem_)
        return;
    const std::uint32_t promised = info_.header.fields.BuffersWritten;
    end_problem_.set(ETW_ERROR_INVALID_DATA, 0,
                     text_printf("the header says BuffersWritten %u, but the file holds %u buffers, all read (a "
                                 "header not rewritten at stop: was the writer killed?)",
                                 promised, promised + beyond_promised_));
}

Status FileSource::same_bytes(const BufferLocation &a, const BufferLocation &b, bool &same)
{
    same = false;
    if (a.length != b.length)
        return Status::ok();
    std::uint8_t x[4096], y[4096];
    for (std::uint32_t at = 0; at < a.length;) {
        const std::size_t n = std::min<std::size_t>(sizeof x, a.length - at);
        std::size_t gx = 0, gy = 0;
        if (Status st = input_->read_at(a.file_offset + at, x, n, gx); !st)
            return st;
        if (Status st = input_->read_at(b.file_offset + at, y, n, gy); !st)
            return st;
        if (gx != n || gy != n || std::memcmp(x, y, n) != 0)
            return Status::ok();
        at += static_cast<std::uint32_t>(n);
    }
    same = true;
    return Status::ok();
}

Status FileSource::check_repeat(const BufferLocation &loc, Problem &problem)
{
    const auto key = std::make_pair(loc.processor, loc.sequence);
    auto [it, inserted] = first_seen_.emplace(key, loc);
    if (inserted)
        return Status::ok();
    bool same = false;
    if (Status st = same_bytes(it->second, loc, same); !st)
        return st;
    if (same)
        problem.set(ETW_ERROR_INVALID_DATA, 0,
                    text_printf("the buffer repeats buffer %u (at offset 0x%llX) byte for byte: its records are "
                                "not delivered twice",
                                it->second.index, static_cast<unsigned long long>(it->second.file_offset)));
    return Status::ok();
}

Status FileSource::locate(BufferLocation &loc, Problem &problem, bool &have)
{
    problem.clear();
    have = false;
    if (at_end_)
        return Status::ok();
    // BuffersWritten counts buffer 0 too; 0 (a header never rewritten) means "read to the end".
    const std::uint32_t promised = info_.header.fields.BuffersWritten;
    if (next_offset_ >= info_.size) {
        if (promised != 0 && next_index_ < promised)
            end_problem_.set(ETW_ERROR_HANDLE_EOF, 0,
                             text_printf("the file ends at offset 0x%llX after %u buffers; BuffersWritten is %u",
                                         static_cast<unsigned long long>(next_offset_), next_index_, promised));
        note_extra_buffers();
        at_end_ = true;
        return Status::ok();
    }
    if (promised != 0 && next_index_ >= promised) {
        // Past the header's count: go on while buffers follow (a preallocated
        // or torn tail is not one).
        bool more = false;
        if (Status st = looks_like_buffer(next_offset_, more); !st)
            return st;
        if (!more) {
            note_extra_buffers();
            at_end_ = true;
            return Status::ok();
        }
        ++beyond_promised_;
    }
    loc = BufferLocation{};
    loc.file_offset = next_offset_;
    loc.index = next_index_++;
    have = true;
    const std::uint64_t remaining = info_.size - next_offset_;
    if (remaining < etl::kBufferHeaderSize) {
        problem.set(
            ETW_ERROR_HANDLE_EOF, 0,
            text_printf("the file ends 0x%llX bytes into a buffer header", static_cast<unsigned long long>(remaining)));
        loc.length = static_cast<std::uint32_t>(remaining);
        loc.problem = problem.code;
        at_end_ = true;
        return Status::ok();
    }
    std::uint8_t head[etl::kBufferHeaderSize];
    std::size_t got = 0;
    if (Status st = input_->read_at(next_offset_, head, sizeof head, got); !st)
        return st;
    if (got < sizeof head) {
        problem.set(ETW_ERROR_HANDLE_EOF, static_cast<std::uint32_t>(got),
                    "the file ended while reading a buffer header");
        loc.length = static_cast<std::uint32_t>(got);
        loc.problem = problem.code;
        at_end_ = true;
        return Status::ok();
    }
    const format::BufferHeader h = format::parse_buffer_header(head);
    loc.sequence = h.sequence_number;
    loc.processor = h.processor();
    const std::uint32_t session = info_.image_context.session_buffer_size;
    const bool can_step_by_session = (info_.header.fields.LogFileMode & etl::kCompressedMode) == 0 &&
                                     session >= etl::kBufferHeaderSize && session <= etl::kMaxBufferBytes;
    if (h.buffer_size < etl::kBufferHeaderSize || h.buffer_size > etl::kMaxBufferBytes) {
        if (can_step_by_session) {
            // Uncompressed buffers all have the session's size: step over this one by it.
            problem.set(ETW_ERROR_BAD_LENGTH, 0,
                        text_printf("BufferSize 0x%X is outside 0x48..0x%X; skipping 0x%X bytes (the session "
                                    "buffer size) to the next buffer",
                                    h.buffer_size, etl::kMaxBufferBytes, session));
            loc.length = static_cast<std::uint32_t>(std::min<std::uint64_t>(session, remaining));
            next_offset_ += session;
        } else {
            problem.set(ETW_ERROR_BAD_LENGTH, 0,
                        text_printf("BufferSize 0x%X is outside 0x48..0x%X; the buffers after it cannot be located",
                                    h.buffer_size, etl::kMaxBufferBytes));
            loc.length = static_cast<std::uint32_t>(etl::kBufferHeaderSize);
            at_end_ = true;
        }
    } else if (h.buffer_size > remaining) {
        problem.set(ETW_ERROR_HANDLE_EOF, static_cast<std::uint32_t>(remaining),
                    text_printf("BufferSize 0x%X runs past the end of the file, 0x%llX bytes on", h.buffer_size,
                                static_cast<unsigned long long>(remaining)));
        loc.length = static_cast<std::uint32_t>(remaining);
        at_end_ = true;
    } else {
        loc.length = h.buffer_size;
        next_offset_ += h.buffer_size;
        if (Status st = check_repeat(loc, problem); !st)
            return st;
    }
    loc.problem = problem.code;
    return Status::ok();
}

Status FileSource::read(const BufferLocation &loc, StoredBuffer &out)
{
    out.location = loc;
    out.problem.clear();
    if (loc.problem != ETW_OK) {
        auto it = located_problems_.find(loc.index);
        if (it != located_problems_.end())
            out.problem = it->second;
    }
    out.bytes.resize(loc.length);
    std::size_t got = 0;
    if (Status st = input_->read_at(loc.file_offset, out.bytes.data(), loc.length, got); !st)
        return st;
    if (got < loc.length) {
        out.bytes.resize(got);
        if (!out.problem)
            out.problem.set(ETW_ERROR_HANDLE_EOF, static_cast<std::uint32_t>(got),
                            "the file became shorter while it was read");
    }
    return Status::ok();
}

Status FileSource::next(StoredBuffer &out, bool &have)
{
    BufferLocation loc;
    Problem problem;
    if (Status st = locate(loc, problem, have); !st || !have)
        return st;
    located_problems_.clear();
    if (problem)
        located_problems_[loc.index] = problem;
    return read(loc, out);
}

Status FileSource::directory(std::vector<BufferLocation> &out)
{
    if (Status st = rewind(); !st)
        return st;
    out.clear();
    located_problems_.clear();
    for (;;) {
        BufferLocation loc;
        Problem problem;
        bool have = false;
        if (Status st = locate(loc, problem, have); !st)
            return st;
        if (!have)
            break;
        if (problem)
            located_problems_[loc.index] = problem;
        out.push_back(loc);
    }
    return Status::ok();
}

} // namespace openetw::consumer
