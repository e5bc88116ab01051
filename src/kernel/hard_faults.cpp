#include "kernel/hard_faults.hpp"

#include <algorithm>

namespace openetw::kernel {

HardFaultPairing::HardFaultPairing(std::uint32_t page_shift) : page_shift_(page_shift), slots_(kSlots) {}

HardFaultPairing::Slot *HardFaultPairing::in_fault(std::uint32_t tid)
{
    Slot &s = slots_[tid % kSlots];
    return s.active && s.tid == tid ? &s : nullptr;
}

void HardFaultPairing::entry(std::uint32_t tid, std::uint64_t time_ns, std::uint64_t address)
{
    Slot &s = slots_[tid % kSlots];
    s = Slot{};
    s.tid = tid;
    s.active = true;
    s.entry_ns = time_ns;
    s.address = address;
}

void HardFaultPairing::filemap_fault(std::uint32_t tid, std::uint32_t dev, std::uint64_t ino, std::uint64_t index)
{
    Slot *s = in_fault(tid);
    if (!s || s->has_file)
        return;
    s->has_file = true;
    s->dev = dev;
    s->ino = ino;
    s->index = index;
}

void HardFaultPairing::page_cache_add(std::uint32_t tid, std::uint32_t dev, std::uint64_t ino, std::uint32_t order)
{
    // Only the fault's own file: the page cache also fills for the thread's
    // reads and writes, which are not in a fault.
    Slot *s = in_fault(tid);
    if (!s || !s->has_file || s->dev != dev || s->ino != ino || order > 30)
        return;
    s->bytes += (std::uint64_t(1) << order) << page_shift_;
}

std::optional<HardFaultRead> HardFaultPairing::completed(std::uint32_t pid, std::uint32_t tid, std::uint64_t time_ns,
                                                         std::uint64_t address)
{
    Slot *s = in_fault(tid);
    // The start of this fault: the same address, not later than its end.
    if (!s || s->address != address || s->entry_ns > time_ns) {
        ++counts_.unpaired;
        return std::nullopt;
    }
    const Slot f = *s;
    s->active = false;
    if (!f.has_file) {
        ++counts_.no_file;
        return std::nullopt;
    }
    if (f.bytes == 0) {
        ++counts_.no_read;
        return std::nullopt;
    }
    ++counts_.written;
    HardFaultRead r;
    r.initial_ns = f.entry_ns;
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

bool HardFaultPairing::on_entry(const TracepointFormat &format, const TracepointSample &sample)
{
    const auto address = format.u(sample.raw, "address");
    if (!address)
        return false;
    queue_.push_back({Queued::Kind::Entry, sample.time, sample.pid, sample.tid, sample.cpu, 0, *address, 0, {}});
    return true;
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
        case Queued::Kind::Entry:
            entry(q.tid, q.time, q.a);
            break;
        case Queued::Kind::File:
            filemap_fault(q.tid, q.dev, q.a, q.b);
            break;
        case Queued::Kind::Add:
            page_cache_add(q.tid, q.dev, q.a, std::uint32_t(std::min<std::uint64_t>(q.b, 63)));
            break;
        case Queued::Kind::End:
            if (auto read = completed(q.pid, q.tid, q.time, q.a))
                done({*read, q.cpu, std::move(q.frames)});
            break;
        }
    }
    queue_.erase(queue_.begin(), queue_.begin() + std::ptrdiff_t(n));
}

HardFaultFiles::Key HardFaultFiles::key_of(std::uint32_t pid, std::uint64_t address, std::uint32_t dev,
                                           std::uint64_t ino)
{
    Key out;
    auto f = files_.find({dev, ino});
    if (f == files_.end()) {
        if (files_.size() >= kMaxFiles)
            files_.clear();
        File file;
        if (!mapped_ || !mapped_(pid, address, dev, ino, &file.path))
            file.path.clear();
        f = files_.emplace(std::pair{dev, ino}, std::move(file)).first;
    }
    File &file = f->second;
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
        out.new_name = !file.path.empty();
    }
    out.file_object = file.own_key;
    return out;
}

} // namespace openetw::kernel
