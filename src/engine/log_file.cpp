// See log_file.hpp for the circular file layout.
#include "engine/log_file.hpp"

#include <openetw/constants.h>

#include "base/utf.hpp"
#include "platform/clock.hpp"

#include <algorithm>
#include <utility>

namespace openetw::engine {

using etl::rd16;
using etl::rd32;
using etl::rd64;
using etl::wr32;
using etl::wr64;

namespace {
// Offsets inside buffer 0 of TRACE_LOGFILE_HEADER fields.
constexpr std::size_t kTlh = etl::kBufferHeaderSize + etl::kSystemHeaderSize;
constexpr std::size_t kTlhEndTime = kTlh + 0x10;
constexpr std::size_t kTlhBuffersWritten = kTlh + 0x24;
constexpr std::size_t kTlhEventsLost = kTlh + 0x30;
std::size_t tlh_buffers_lost(std::uint32_t pointer_size) { return kTlh + (pointer_size == 4 ? 0x10C : 0x114); }
std::size_t tlh_reserved_flags(std::uint32_t pointer_size) { return kTlh + (pointer_size == 4 ? 0x108 : 0x110); }
std::size_t tlh_perf_freq(std::uint32_t pointer_size) { return kTlh + (pointer_size == 4 ? 0xF8 : 0x100); }
// The start of an .etl file: buffer 0's headers and a 64-bit TRACE_LOGFILE_HEADER's worth.
constexpr std::size_t kHeadSize = kTlh + etl::kLogfileHeader64Size;
enum class Head { Ok, Short, NotHeader };
Head read_head(platform::File &f, std::uint8_t (&head)[kHeadSize])
{
    if (f.read_at(0, head, kHeadSize) != ETW_OK)
        return Head::Short;
    if (rd16(head + etl::buf::BufferType) != etl::kTypeHeader ||
        head[etl::kBufferHeaderSize + 3] != etl::kMarkerFixedHeader)
        return Head::NotHeader;
    return Head::Ok;
}
std::u16string utf16_from_latin1(const std::string &s)
{
    std::u16string u;
    for (char c : s)
        u.push_back(char16_t(static_cast<unsigned char>(c)));
    return u;
}
} // namespace

std::string expand_newfile_name(const std::string &pattern, std::uint32_t n)
{
    std::string out = pattern;
    std::size_t pos = out.find("%d");
    if (pos != std::string::npos)
        out.replace(pos, 2, std::to_string(n));
    return out;
}

Status LogFile::open(const Config &config)
{
    config_ = config;
    if (config_.mode & ETW_FILE_MODE_CIRCULAR) {
        const std::uint64_t total = config_.max_bytes / config_.buffer_size;
        if (total < 2)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "MaximumFileSize must hold at least two buffers (the header "
                                                     "buffer and one data buffer) in circular mode");
        slots_ = std::uint32_t(std::min<std::uint64_t>(total - 1, 0xFFFFFFF0u));
    }
    if ((config_.mode & (ETW_FILE_MODE_SEQUENTIAL | ETW_FILE_MODE_NEWFILE)) && config_.max_bytes != 0 &&
        config_.max_bytes / config_.buffer_size < 2 && (config_.mode & ETW_FILE_MODE_NEWFILE))
        return Fail(ETW_ERROR_INVALID_PARAMETER, "MaximumFileSize must hold at least two buffers in newfile mode");
    Status st = open_file(1);
    active_ = st.is_ok();
    return st;
}

Status LogFile::open_file(std::uint32_t file_number)
{
    file_number_ = file_number;
    std::string path = config_.path;
    if (config_.mode & ETW_FILE_MODE_NEWFILE)
        path = expand_newfile_name(path, file_number);
    current_path_ = platform::absolute_path(path);
    const bool append = (config_.mode & ETW_FILE_MODE_APPEND) != 0 && platform::file_exists(current_path_);
    etw_status st =
        file_.open(current_path_, append ? platform::OpenMode::OpenOrCreate : platform::OpenMode::CreateTruncate);
    if (st == ETW_ERROR_PATH_NOT_FOUND)
        return Fail(st, "the folder of the log file \"" + current_path_ + "\" does not exist");
    if (st != ETW_OK)
        return Fail(st, "cannot open the log file \"" + current_path_ + "\"");
    data_written_ = 0;
    next_sequence_ = 1;
    appended_base_ = 0;
    if (append) {
        std::uint64_t size = 0;
        file_.size(&size);
        if (size > 0)
            return load_for_append();
    }
    etl::LogfileHeaderFields h = config_.header;
    if (auto u = utf8_to_utf16(current_path_))
        h.log_file_name = *u;
    else
        h.log_file_name = utf16_from_latin1(current_path_);
    h.buffers_written = 1;
    // Losses while no file could be opened are on record from the start.
    const Losses pending = unrecorded();
    h.events_lost = pending.events;
    h.buffers_lost = pending.buffers;
    header_ = etl::encode_header_buffer(h, config_.logger_id);
    buffers_in_file_ = 1;
    if (config_.mode & ETW_FILE_MODE_PREALLOCATE && config_.max_bytes != 0) {
        if (etw_status p = file_.preallocate(config_.max_bytes); p != ETW_OK)
            return Fail(p, "cannot preallocate " + std::to_string(config_.max_bytes) + " bytes for \"" + current_path_ +
                               "\"");
    }
    if (etw_status w = file_.write_at(0, header_.data(), header_.size()); w != ETW_OK) {
        // A file without its header is no .etl file: leave none behind.
        file_.close();
        platform::remove_file(current_path_);
        return Fail(w, "cannot write the header buffer of \"" + current_path_ + "\"");
    }
    return Status::ok();
}

std::int64_t LogFile::perf_freq_of(const std::string &path)
{
    platform::File f;
    if (f.open(path, platform::OpenMode::ReadExisting) != ETW_OK)
        return 0;
    std::uint8_t head[kHeadSize];
    if (read_head(f, head) != Head::Ok)
        return 0;
    const std::uint32_t psize = rd32(head + kTlh + 0x2C);
    return std::int64_t(rd64(head + tlh_perf_freq(psize)));
}

Status LogFile::load_for_append()
{
    const std::string &p = current_path_;
    std::uint8_t head[kHeadSize];
    switch (read_head(file_, head)) {
    case Head::Short:
        return Fail(ETW_ERROR_INVALID_DATA, "append: \"" + p + "\" is not an .etl file (too short)");
    case Head::NotHeader:
        return Fail(ETW_ERROR_INVALID_DATA, "append: \"" + p + "\" does not start with an .etl header buffer");
    case Head::Ok:
        break;
    }
    const std::uint32_t bs = rd32(head + etl::buf::BufferSize);
    if (bs != config_.buffer_size)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "append: the file's BufferSize is " + std::to_string(bs / 1024) + " KB but the session's is " +
                        std::to_string(config_.buffer_size / 1024) + " KB; they must be equal");
    header_.assign(bs, 0);
    if (file_.read_at(0, header_.data(), bs) != ETW_OK)
        return Fail(ETW_ERROR_INVALID_DATA, "append: \"" + p + "\" is truncated inside its header buffer");
    const std::uint32_t psize = rd32(header_.data() + kTlh + 0x2C);
    const std::uint32_t cpus = rd32(header_.data() + kTlh + 0x0C);
    const std::uint32_t clock = rd32(header_.data() + tlh_reserved_flags(psize));
    if (cpus != config_.header.number_of_processors)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "append: the file was written with NumberOfProcessors " +
                                                     std::to_string(cpus) + " but this session has " +
                                                     std::to_string(config_.header.number_of_processors));
    if (clock != config_.header.clock_type)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "append: the file's clock type (Wnode.ClientContext) is " +
                                                     std::to_string(clock) + " but the session's is " +
                                                     std::to_string(config_.header.clock_type));
    if (psize != config_.header.pointer_size)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "append: the file's PointerSize differs from this session's");
    // Clock 1 stamps 100 ns units (PerfFreq 10 MHz) or cycle-counter ticks:
    // the session chose by this file (Session::create), unless it cannot.
    const std::int64_t freq = std::int64_t(rd64(header_.data() + tlh_perf_freq(psize)));
    if (clock == ETW_CLOCK_QPC &&
        (freq == platform::kQpcFrequency) != (config_.header.perf_freq == platform::kQpcFrequency))
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "append: the file's QPC timestamps are " +
                        (freq == platform::kQpcFrequency
                             ? std::string("100 ns units")
                             : "cycle-counter ticks (PerfFreq " + std::to_string(freq) + ")") +
                        " but this session's cannot be (the cycle counter is not the system clock here, or "
                        "OPENETW_QPC_CLOCK=monotonic)");
    const std::uint32_t written = rd32(header_.data() + kTlhBuffersWritten);
    std::uint64_t size = 0;
    file_.size(&size);
    const std::uint32_t present = std::uint32_t(std::min<std::uint64_t>(written, size / bs));
    buffers_in_file_ = present == 0 ? 1 : present;
    appended_base_ = buffers_in_file_;
    next_sequence_ = buffers_in_file_; // data buffers 1..n-1 exist
    // Drop anything past the last complete buffer.
    file_.truncate(std::uint64_t(buffers_in_file_) * bs);
    return Status::ok();
}

LogFile::Outcome LogFile::write_buffer(std::uint8_t *buffer, std::uint32_t events, Losses so_far)
{
    (void)events;
    so_far_ = so_far;
    const std::uint32_t bs = config_.buffer_size;
    if (!active_)
        return Outcome::WriteError;
    // NEWFILE after a switch that failed (a full disk): try the file again.
    if (!file_.is_open() && ((config_.mode & ETW_FILE_MODE_NEWFILE) == 0 || !open_file(file_number_)))
        return Outcome::WriteError;
    std::uint64_t offset;
    if (config_.mode & ETW_FILE_MODE_CIRCULAR) {
        offset = (1 + data_written_ % slots_) * std::uint64_t(bs);
    } else {
        offset = std::uint64_t(buffers_in_file_) * bs;
        if (config_.max_bytes != 0 && offset + bs > config_.max_bytes) {
            if (!(config_.mode & ETW_FILE_MODE_NEWFILE))
                return Outcome::FileFull;
            // NEWFILE: finish this file with its own header and start the next.
            finish_current(platform::filetime_now());
            if (!open_file(file_number_ + 1))
                return Outcome::WriteError;
            offset = std::uint64_t(buffers_in_file_) * bs;
        }
    }
    wr64(buffer + etl::buf::SequenceNumber, next_sequence_);
    etw_status st = file_.write_at(offset, buffer, bs);
    if (st != ETW_OK) {
        // Keep the file readable up to the last complete buffer.
        if (!(config_.mode & ETW_FILE_MODE_CIRCULAR) && !(config_.mode & ETW_FILE_MODE_PREALLOCATE))
            file_.truncate(offset);
        return Outcome::WriteError;
    }
    ++next_sequence_;
    ++data_written_;
    if (config_.mode & ETW_FILE_MODE_CIRCULAR)
        buffers_in_file_ = std::uint32_t(1 + std::min<std::uint64_t>(data_written_, slots_));
    else
        ++buffers_in_file_;
    return Outcome::Written;
}

LogFile::Losses LogFile::unrecorded() const
{
    return {so_far_.events - recorded_.events, so_far_.buffers - recorded_.buffers};
}

void LogFile::patch_header(std::int64_t end_time, Losses lost)
{
    const std::uint32_t psize = rd32(header_.data() + kTlh + 0x2C);
    wr64(header_.data() + kTlhEndTime, std::uint64_t(end_time));
    wr32(header_.data() + kTlhBuffersWritten, buffers_in_file_);
    const std::uint32_t prev_lost = appended_base_ ? rd32(header_.data() + kTlhEventsLost) : 0;
    const std::uint32_t prev_blost = appended_base_ ? rd32(header_.data() + tlh_buffers_lost(psize)) : 0;
    wr32(header_.data() + kTlhEventsLost, prev_lost + lost.events);
    wr32(header_.data() + tlh_buffers_lost(psize), prev_blost + lost.buffers);
}

Status LogFile::finish_current(std::int64_t end_time)
{
    if (!file_.is_open())
        return Status::ok();
    const std::uint32_t bs = config_.buffer_size;
    Status result;
    if ((config_.mode & ETW_FILE_MODE_CIRCULAR) && data_written_ > slots_) {
        // Wrapped: renumber the surviving buffers 1..N, oldest first. The oldest
        // is in the slot after the newest.
        const std::uint64_t first = data_written_ % slots_; // slot index (0-based) of the oldest
        for (std::uint32_t i = 0; i < slots_; ++i) {
            const std::uint64_t slot = (first + i) % slots_;
            std::uint8_t seq[8];
            wr64(seq, i + 1);
            file_.write_at((1 + slot) * bs + etl::buf::SequenceNumber, seq, 8);
        }
    }
    patch_header(end_time, unrecorded());
    if (etw_status st = file_.write_at(0, header_.data(), header_.size()); st != ETW_OK) {
        // Not on record here: the next file's header takes them.
        result = Fail(st, "cannot rewrite the header buffer of \"" + current_path_ + "\"");
    } else {
        recorded_ = so_far_;
        last_finished_ = current_path_;
    }
    if (config_.mode & ETW_FILE_MODE_PREALLOCATE)
        file_.truncate(std::uint64_t(buffers_in_file_) * bs);
    file_.close();
    return result;
}

Status LogFile::finish_or_record(std::int64_t end_time)
{
    if (file_.is_open())
        return finish_current(end_time);
    const Losses pending = unrecorded();
    if ((pending.events == 0 && pending.buffers == 0) || last_finished_.empty())
        return Status::ok();
    // A NEWFILE session that could open no file since (a full disk): the last
    // file it finished holds them; if even that fails, only the session's
    // statistics do (the stop's answer).
    if (add_losses_to_header(last_finished_, pending))
        recorded_ = so_far_;
    return Status::ok();
}

Status LogFile::finish(std::int64_t end_time, Losses so_far)
{
    so_far_ = so_far;
    active_ = false;
    return finish_or_record(end_time);
}

Status LogFile::switch_to(const std::string &path, std::int64_t end_time, Losses so_far)
{
    so_far_ = so_far;
    Status st = finish_or_record(end_time);
    config_.path = path;
    Status o = open_file(1);
    active_ = o.is_ok();
    return o ? st : o;
}

Status add_losses_to_header(const std::string &path, LogFile::Losses lost)
{
    const std::string quoted = "\"" + path + "\"";
    if (!platform::file_exists(path))
        return Fail(ETW_ERROR_FILE_NOT_FOUND, "the log file " + quoted + " is gone");
    platform::File f;
    if (etw_status st = f.open(path, platform::OpenMode::OpenOrCreate); st != ETW_OK)
        return Fail(st, "cannot open the log file " + quoted);
    std::uint8_t head[kHeadSize];
    if (read_head(f, head) != Head::Ok)
        return Fail(ETW_ERROR_INVALID_DATA, "the log file " + quoted + " does not start with an .etl header buffer");
    const std::uint32_t psize = rd32(head + kTlh + 0x2C);
    if (psize != 4 && psize != 8)
        return Fail(ETW_ERROR_INVALID_DATA,
                    "the header buffer of " + quoted + " has PointerSize " + std::to_string(psize));
    std::uint8_t events[4], buffers[4];
    wr32(events, rd32(head + kTlhEventsLost) + lost.events);
    wr32(buffers, rd32(head + tlh_buffers_lost(psize)) + lost.buffers);
    if (etw_status st = f.write_at(kTlhEventsLost, events, 4); st != ETW_OK)
        return Fail(st, "cannot rewrite the header buffer of " + quoted);
    if (etw_status st = f.write_at(tlh_buffers_lost(psize), buffers, 4); st != ETW_OK)
        return Fail(st, "cannot rewrite the header buffer of " + quoted);
    return Status::ok();
}

Status recover_log_file(const std::string &path, std::int64_t end_time, std::uint32_t events_lost,
                        std::uint32_t *data_buffers, const std::vector<std::vector<std::uint8_t>> &extra)
{
    *data_buffers = 0;
    const std::string quoted = "\"" + path + "\"";
    if (!platform::file_exists(path))
        return Fail(ETW_ERROR_FILE_NOT_FOUND, "the log file " + quoted + " is gone");
    platform::File file;
    if (etw_status st = file.open(path, platform::OpenMode::OpenOrCreate); st != ETW_OK)
        return Fail(st, "cannot open the log file " + quoted);
    std::uint8_t head[etl::kBufferHeaderSize];
    if (file.read_at(0, head, sizeof head) != ETW_OK)
        return Fail(ETW_ERROR_INVALID_DATA, "the log file " + quoted + " is too short to hold its header buffer");
    // BufferSize is 4..16384 KB (DESIGN.md); anything else is not our header.
    const std::uint32_t bs = rd32(head + etl::buf::BufferSize);
    if (bs < 4 * 1024 || bs > 16384 * 1024 || bs % 1024 != 0 || rd16(head + etl::buf::BufferType) != etl::kTypeHeader)
        return Fail(ETW_ERROR_INVALID_DATA, "the log file " + quoted + " does not start with an .etl header buffer");
    std::vector<std::uint8_t> header(bs);
    if (file.read_at(0, header.data(), bs) != ETW_OK || header[etl::kBufferHeaderSize + 3] != etl::kMarkerFixedHeader)
        return Fail(ETW_ERROR_INVALID_DATA, "the header buffer of " + quoted + " is incomplete");
    const std::uint32_t psize = rd32(header.data() + kTlh + 0x2C);
    if (psize != 4 && psize != 8)
        return Fail(ETW_ERROR_INVALID_DATA,
                    "the header buffer of " + quoted + " has PointerSize " + std::to_string(psize));
    std::uint64_t size = 0;
    if (file.size(&size) != ETW_OK)
        return Fail(ETW_ERROR_INVALID_DATA, "cannot read the size of " + quoted);
    const std::uint64_t whole = std::min<std::uint64_t>(size / bs, 0xFFFFFFFFu);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> buffers; // (SequenceNumber, slot)
    for (std::uint32_t i = 1; i < whole; ++i) {
        std::uint8_t h[etl::kBufferHeaderSize];
        if (file.read_at(std::uint64_t(i) * bs, h, sizeof h) != ETW_OK)
            break;
        const std::uint32_t filled = rd32(h + etl::buf::Offset);
        if (rd32(h + etl::buf::BufferSize) != bs || filled < etl::kBufferHeaderSize || filled > bs ||
            rd16(h + etl::buf::BufferType) == etl::kTypeHeader)
            break; // never written (a preallocated or ring slot not reached yet)
        buffers.emplace_back(rd64(h + etl::buf::SequenceNumber), i);
    }
    // Buffers recovered from the session's memory go after the file's, unless
    // the file already has them (the logger numbered and wrote them).
    std::uint64_t last = 0;
    for (const auto &b : buffers)
        last = std::max(last, b.first);
    std::vector<const std::vector<std::uint8_t> *> appended;
    for (const auto &x : extra) {
        if (x.size() != bs)
            continue;
        const std::uint64_t seq = rd64(x.data() + etl::buf::SequenceNumber);
        const bool in_file =
            seq != 0 && std::any_of(buffers.begin(), buffers.end(), [&](const auto &b) { return b.first == seq; });
        if (!in_file)
            appended.push_back(&x);
    }
    for (std::size_t k = 0; k < appended.size(); ++k) {
        const std::uint32_t slot = std::uint32_t(buffers.size() + 1);
        std::vector<std::uint8_t> b = *appended[k];
        wr64(b.data() + etl::buf::SequenceNumber, last + 1 + k);
        if (etw_status st = file.write_at(std::uint64_t(slot) * bs, b.data(), bs); st != ETW_OK)
            return Fail(st, "cannot write the buffers recovered from memory to " + quoted);
        buffers.emplace_back(last + 1 + k, slot);
    }
    // Readers order by SequenceNumber and expect 1..N (a wrapped ring holds session-wide counts).
    std::stable_sort(buffers.begin(), buffers.end());
    for (std::uint32_t k = 0; k < buffers.size(); ++k) {
        if (buffers[k].first == k + 1u)
            continue;
        std::uint8_t seq[8];
        wr64(seq, k + 1u);
        if (etw_status st = file.write_at(std::uint64_t(buffers[k].second) * bs + etl::buf::SequenceNumber, seq, 8);
            st != ETW_OK)
            return Fail(st, "cannot renumber the buffers of " + quoted);
    }
    const std::uint32_t n = std::uint32_t(buffers.size());
    if (size > std::uint64_t(1 + n) * bs)
        file.truncate(std::uint64_t(1 + n) * bs);
    wr64(header.data() + kTlhEndTime, std::uint64_t(end_time));
    wr32(header.data() + kTlhBuffersWritten, 1 + n);
    wr32(header.data() + kTlhEventsLost, rd32(header.data() + kTlhEventsLost) + events_lost);
    if (etw_status st = file.write_at(0, header.data(), bs); st != ETW_OK)
        return Fail(st, "cannot rewrite the header buffer of " + quoted);
    *data_buffers = n;
    return Status::ok();
}

} // namespace openetw::engine
