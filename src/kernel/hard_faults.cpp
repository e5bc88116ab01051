#include "kernel/hard_faults.hpp"

#include <algorithm>

namespace openetw::kernel {

HardFaultPairing::HardFaultPairing(std::uint32_t page_shift, Check check)
    : page_shift_(page_shift), check_(std::move(check)), slots_(kSlots)
{}

void HardFaultPairing::filemap_fault(std::uint32_t tid, std::uint64_t time_ns, std::uint32_t dev, std::uint64_t ino,
                                     std::uint64_t index)
{
    Slot &s = slots_[tid % kSlots];
    // The same page asked again before an end: the fault's retry.
    if (s.active && s.tid == tid && s.dev == dev && s.ino == ino && s.index == index)
        return;
    s = Slot{};
    s.tid = tid;
    s.active = true;
    s.start_ns = time_ns;
    s.dev = dev;
    s.ino = ino;
    s.index = index;
}

void HardFaultPairing::page_cache_add(std::uint32_t tid, std::uint32_t dev, std::uint64_t ino, std::uint32_t order)
{
    // Only the fault's own file: the page cache also fills for the thread's
    // reads and writes, which are not in a fault.
    Slot &s = slots_[tid % kSlots];
    if (!s.active || s.tid != tid || s.dev != dev || s.ino != ino || order > 30)
        return;
    s.bytes += (std::uint64_t(1) << order) << page_shift_;
}

std::optional<HardFaultRead> HardFaultPairing::completed(std::uint32_t pid, std::uint32_t tid, std::uint64_t time_ns,
                                                         std::uint64_t address)
{
    Slot &s = slots_[tid % kSlots];
    if (!s.active || s.tid != tid) {
        // Another thread's start in the slot may have taken this one's.
        ++(s.active ? counts_.unpaired : counts_.no_file);
        return std::nullopt;
    }
    if (s.start_ns > time_ns) { // a later fault's (applied out of order)
        ++counts_.unpaired;
        return std::nullopt;
    }
    const Slot f = s;
    s.active = false; // a start pairs once
    if (f.bytes == 0) {
        ++counts_.no_read;
        return std::nullopt;
    }
    HardFaultRead r;
    if (check_)
        switch (check_(pid, address, f.ino, f.index, &r.path)) {
        case MappedPage::Other:
            ++counts_.unpaired;
            return std::nullopt;
        case MappedPage::NoFile:
            ++counts_.no_file;
            return std::nullopt;
        case MappedPage::Same:
        case MappedPage::Unknown:
            break;
        }
    ++counts_.written;
    r.initial_ns = f.start_ns;
    r.end_ns = time_ns;
    r.pid = pid;
    r.tid = tid;
    r.address = address;
    r.dev = f.dev;
    r.ino = f.ino;
    r.read_offset = f.index << page_shift_;
    r.bytes = f.bytes;
    return r;
}

bool HardFaultPairing::on_filemap_fault(const TracepointFormat &format, const TracepointSample &sample)
{
    const auto dev = format.u(sample.raw, "s_dev");
    const auto ino = format.u(sample.raw, "i_ino");
    const auto index = format.u(sample.raw, "index");
    if (!dev || !ino || !index)
        return false;
    queue_.push_back(
        {Queued::Kind::File, sample.time, sample.pid, sample.tid, sample.cpu, std::uint32_t(*dev), *ino, *index, {}});
    return true;
}

bool HardFaultPairing::on_page_cache_add(const TracepointFormat &format, const TracepointSample &sample)
{
    const auto dev = format.u(sample.raw, "s_dev");
    const auto ino = format.u(sample.raw, "i_ino");
    const auto order = format.u(sample.raw, "order");
    if (!dev || !ino || !order)
        return false;
    queue_.push_back(
        {Queued::Kind::Add, sample.time, sample.pid, sample.tid, sample.cpu, std::uint32_t(*dev), *ino, *order, {}});
    return true;
}

void HardFaultPairing::on_major_fault(const TracepointSample &sample)
{
    queue_.push_back({Queued::Kind::End, sample.time, sample.pid, sample.tid, sample.cpu, 0, sample.addr, 0,
                      std::vector<std::uint64_t>(sample.frames.begin(), sample.frames.end())});
}

void HardFaultPairing::settle(std::uint64_t until_ns, const std::function<void(Ended &&)> &done)
{
    std::stable_sort(queue_.begin(), queue_.end(), [](const Queued &x, const Queued &y) { return x.time < y.time; });
    std::size_t n = 0;
    for (; n < queue_.size() && queue_[n].time <= until_ns; ++n) {
        Queued &q = queue_[n];
        switch (q.kind) {
        case Queued::Kind::File:
            filemap_fault(q.tid, q.time, q.dev, q.a, q.b);
            break;
        case Queued::Kind::Add:
            page_cache_add(q.tid, q.dev, q.a, std::uint32_t(std::min<std::uint64_t>(q.b, 63)));
            break;
        case Queued::Kind::End:
            if (auto read = completed(q.pid, q.tid, q.time, q.a))
                done({std::move(*read), q.cpu, std::move(q.frames)});
            break;
        }
    }
    queue_.erase(queue_.begin(), queue_.begin() + std::ptrdiff_t(n));
}

MappedPage HardFaultFiles::check(std::uint32_t pid, std::uint64_t address, std::uint64_t ino, std::uint64_t index,
                                 std::string *path)
{
    auto kept = maps_.find(pid);
    // The kept mappings first; read again when they do not show the page.
    for (bool fresh = kept == maps_.end();; fresh = true) {
        if (fresh) {
            std::vector<HardFaultMapping> maps;
            if (kept != maps_.end())
                maps_.erase(kept);
            if (!read_ || !read_(pid, &maps))
                return MappedPage::Unknown;
            std::sort(maps.begin(), maps.end(),
                      [](const HardFaultMapping &x, const HardFaultMapping &y) { return x.start < y.start; });
            if (maps_.size() >= kMaxProcesses)
                maps_.clear();
            kept = maps_.emplace(pid, std::move(maps)).first;
        }
        const std::vector<HardFaultMapping> &maps = kept->second;
        auto m = std::upper_bound(maps.begin(), maps.end(), address,
                                  [](std::uint64_t a, const HardFaultMapping &x) { return a < x.start; });
        MappedPage v = MappedPage::Unknown; // unmapped since
        if (m != maps.begin() && address < (--m)->end) {
            if (m->inode == 0 || m->path.empty() || m->path[0] != '/')
                v = MappedPage::NoFile;
            else if (m->inode != ino || ((m->offset >> page_shift_) + ((address - m->start) >> page_shift_)) != index)
                v = MappedPage::Other;
            else {
                *path = m->path;
                return MappedPage::Same;
            }
        }
        if (fresh)
            return v;
    }
}

HardFaultFiles::Key HardFaultFiles::key_of(std::uint32_t dev, std::uint64_t ino, const std::string &path)
{
    Key out;
    auto f = files_.find({dev, ino});
    if (f == files_.end()) {
        if (files_.size() >= kMaxFiles)
            files_.clear();
        f = files_.emplace(std::pair{dev, ino}, File{}).first;
    }
    File &file = f->second;
    if (file.path.empty())
        file.path = path;
    out.path = file.path;
    // FileIo's key while an open holds the path: the two classes join.
    if (!file.path.empty() && held_)
        if (const std::uint64_t k = held_(file.path); k != 0) {
            out.file_object = k;
            return out;
        }
    if (file.own_key == 0) {
        file.own_key = next_;
        next_ += kKeyStep;
    }
    out.new_name = !file.named && !file.path.empty();
    file.named = file.named || out.new_name;
    out.file_object = file.own_key;
    return out;
}

} // namespace openetw::kernel
