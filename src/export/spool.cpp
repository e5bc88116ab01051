#include "export/spool.hpp"

#include "export/buffer_message.hpp"
#include "platform/clock.hpp"
#include "platform/process.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace openetw::exporter {

namespace {

constexpr std::uint32_t kRecordMagic = 0x4C505345; // "ESPL"
constexpr std::uint64_t kFrame = 8;                // magic + length

bool segment_number(const std::string &name, std::uint32_t *n)
{
    if (name.size() != 14 || name.rfind("seg-", 0) != 0)
        return false;
    std::uint64_t v = 0;
    for (std::size_t i = 4; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        v = v * 10 + std::uint64_t(name[i] - '0');
    }
    if (v > 0xFFFFFFFFull)
        return false;
    *n = std::uint32_t(v);
    return true;
}

} // namespace

std::string Spool::segment_path(std::uint32_t n) const
{
    char name[32];
    std::snprintf(name, sizeof name, "/seg-%010u", n);
    return folder_ + name;
}

Status Spool::open(const std::string &folder, std::uint64_t max_bytes, std::unique_ptr<Spool> *out)
{
    if (max_bytes == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the spool's bound is 0 bytes");
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec || !std::filesystem::is_directory(folder, ec))
        return Fail(ETW_ERROR_PATH_NOT_FOUND, "cannot make the export's spool folder \"" + folder + "\"");
    std::unique_ptr<Spool> s(new Spool());
    s->folder_ = folder;
    s->max_bytes_ = max_bytes;
    if (Status st = s->load(); !st)
        return st;
    *out = std::move(s);
    return Status::ok();
}

Status Spool::load()
{
    std::vector<std::uint32_t> segments;
    for (const std::string &name : platform::list_folder(folder_))
        if (std::uint32_t n = 0; segment_number(name, &n))
            segments.push_back(n);
    std::sort(segments.begin(), segments.end());
    if (etw_status e = head_.open(folder_ + "/head", platform::OpenMode::OpenOrCreate); e != ETW_OK)
        return Fail(e, "cannot open the spool's head file in \"" + folder_ + "\"");
    std::uint32_t head_segment = segments.empty() ? 0 : segments.front();
    std::uint64_t head_offset = 0;
    std::uint8_t h[12];
    if (head_.read_at(0, h, sizeof h) == ETW_OK) {
        std::memcpy(&head_segment, h, 4);
        std::memcpy(&head_offset, h + 4, 8);
    }
    for (std::uint32_t n : segments) {
        if (n < head_segment) {
            platform::remove_file(segment_path(n)); // acknowledged whole
            continue;
        }
        platform::File f;
        if (etw_status e = f.open(segment_path(n), platform::OpenMode::OpenOrCreate); e != ETW_OK)
            return Fail(e, "cannot open the spool segment " + segment_path(n));
        std::uint64_t size = 0;
        f.size(&size);
        std::uint64_t at = n == head_segment ? head_offset : 0;
        for (;;) {
            std::uint32_t frame[2];
            if (at + kFrame > size || f.read_at(at, frame, sizeof frame) != ETW_OK || frame[0] != kRecordMagic ||
                at + kFrame + frame[1] > size)
                break;
            index_.push_back({n, at + kFrame, frame[1]});
            bytes_ += kFrame + frame[1];
            at += kFrame + frame[1];
        }
        if (at < size && n == segments.back())
            f.truncate(at); // a torn last append
        tail_segment_ = n;
        tail_size_ = std::max(at, n == head_segment ? head_offset : std::uint64_t(0));
    }
    if (segments.empty() || tail_segment_ < head_segment)
        tail_segment_ = head_segment;
    return open_tail(tail_segment_);
}

Status Spool::open_tail(std::uint32_t n)
{
    tail_.close();
    if (etw_status e = tail_.open(segment_path(n), platform::OpenMode::OpenOrCreate); e != ETW_OK)
        return Fail(e, "cannot open the spool segment " + segment_path(n));
    std::uint64_t size = 0;
    tail_.size(&size);
    tail_segment_ = n;
    tail_size_ = size;
    return Status::ok();
}

Spool::Push Spool::push(const std::vector<std::uint8_t> &record, std::string *why)
{
    const std::uint64_t need = kFrame + record.size();
    if (bytes_ + need > max_bytes_)
        return Push::Full;
    if (tail_size_ > 0 && tail_size_ + need > kSegmentBytes) {
        if (Status st = open_tail(tail_segment_ + 1); !st) {
            *why = st.message;
            return Push::Failed;
        }
    }
    const std::uint32_t frame[2] = {kRecordMagic, std::uint32_t(record.size())};
    etw_status e = tail_.write_at(tail_size_ + kFrame, record.data(), record.size());
    if (e == ETW_OK)
        e = tail_.write_at(tail_size_, frame, sizeof frame); // the frame last: a torn append reads as none
    if (e != ETW_OK) {
        tail_.truncate(tail_size_);
        *why = "cannot write to the spool segment " + segment_path(tail_segment_) +
               (e == ETW_ERROR_DISK_FULL ? " (the disk is full)" : "");
        return Push::Failed;
    }
    index_.push_back({tail_segment_, tail_size_ + kFrame, std::uint32_t(record.size())});
    tail_size_ += need;
    bytes_ += need;
    return Push::Stored;
}

bool Spool::read(std::size_t i, std::vector<std::uint8_t> *out, std::string *why)
{
    if (i >= index_.size())
        return false;
    const Entry &e = index_[i];
    out->resize(e.length);
    platform::File *from = &tail_;
    if (e.segment != tail_segment_) {
        // Kept open for the records after it: a sender reads a segment through.
        if (reader_segment_ != e.segment) {
            reader_.close();
            reader_segment_ = kNoSegment;
            if (reader_.open(segment_path(e.segment), platform::OpenMode::ReadExisting) != ETW_OK) {
                *why = "cannot open the spool segment " + segment_path(e.segment);
                return false;
            }
            reader_segment_ = e.segment;
        }
        from = &reader_;
    }
    if (from->read_at(e.offset, out->data(), e.length) != ETW_OK) {
        *why = "cannot read the spool segment " + segment_path(e.segment);
        return false;
    }
    return true;
}

Status Spool::pop()
{
    if (index_.empty())
        return Status::ok();
    const Entry e = index_.front();
    index_.pop_front();
    bytes_ -= kFrame + e.length;
    if (index_.empty() || index_.front().segment != e.segment) {
        if (e.segment != tail_segment_) {
            if (reader_segment_ == e.segment) {
                reader_.close();
                reader_segment_ = kNoSegment;
            }
            platform::remove_file(segment_path(e.segment));
        }
    }
    if (index_.empty() && tail_size_ > 0) {
        // Nothing left: start the tail segment over rather than let it grow.
        tail_.truncate(0);
        tail_size_ = 0;
    }
    return write_head();
}

Status Spool::write_head()
{
    std::uint8_t h[12];
    const std::uint32_t segment = index_.empty() ? tail_segment_ : index_.front().segment;
    const std::uint64_t offset = index_.empty() ? tail_size_ : index_.front().offset - kFrame;
    std::memcpy(h, &segment, 4);
    std::memcpy(h + 4, &offset, 8);
    if (etw_status e = head_.write_at(0, h, sizeof h); e != ETW_OK)
        return Fail(e, "cannot write the spool's head file in \"" + folder_ + "\"");
    return Status::ok();
}

void Spool::remove_files()
{
    tail_.close();
    reader_.close();
    reader_segment_ = kNoSegment;
    head_.close();
    for (const std::string &name : platform::list_folder(folder_))
        platform::remove_file(folder_ + "/" + name);
    std::error_code ec;
    std::filesystem::remove(folder_, ec);
    index_.clear();
    bytes_ = 0;
}

std::string spool_root()
{
    if (const char *v = std::getenv("OPENETW_SPOOL_DIR"); v && *v)
        return v;
    if (platform::effective_user_id() == 0)
        return "/var/spool/openetw";
    if (const char *v = std::getenv("XDG_STATE_HOME"); v && *v)
        return std::string(v) + "/openetw/spool";
    if (const char *v = std::getenv("HOME"); v && *v)
        return std::string(v) + "/.local/state/openetw/spool";
    return "/tmp/openetw-spool-" + std::to_string(platform::effective_user_id());
}

std::string spool_folder_for(const std::string &session)
{
    const std::uint32_t pid = platform::process_id();
    return spool_root() + "/" + escape_token(session) + "-" + std::to_string(pid) + "-" +
           std::to_string(platform::process_start_time(pid)) + "-" + std::to_string(platform::filetime_now());
}

bool spool_owner_gone(const std::string &name)
{
    // The last three '-' fields; the escaped session name has no '-' that
    // matters here, since it is taken from the left of them.
    std::size_t ends[3];
    std::size_t at = name.size();
    for (std::size_t &e : ends) {
        at = at == 0 ? std::string::npos : name.rfind('-', at - 1);
        if (at == std::string::npos || at == 0)
            return false;
        e = at;
    }
    const std::string pid_text = name.substr(ends[2] + 1, ends[1] - ends[2] - 1);
    const std::string start_text = name.substr(ends[1] + 1, ends[0] - ends[1] - 1);
    if (pid_text.empty() || start_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos ||
        start_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 10 ||
        start_text.size() > 19)
        return false;
    const std::uint64_t pid = std::stoull(pid_text);
    if (pid == 0 || pid > 0xFFFFFFFFull)
        return false;
    return platform::process_start_time(std::uint32_t(pid)) != std::stoull(start_text);
}

} // namespace openetw::exporter
