#include "export/export_queue.hpp"

namespace openetw::exporter {

namespace {
constexpr std::uint64_t kFrame = 8;   // as the spool counts a record
constexpr std::size_t kMaxSpares = 8; // a window's worth of turnover; more is memory held for nothing
} // namespace

ExportQueue::ExportQueue(std::unique_ptr<Spool> spool, std::uint64_t bound, std::uint64_t memory_limit)
    : spool_(std::move(spool)), bound_(bound), memory_limit_(memory_limit)
{}

bool ExportQueue::fits_in_memory(std::size_t record_size) const
{
    return spool_->records() == 0 && memory_bytes_ + kFrame + record_size <= memory_limit_;
}

std::uint64_t ExportQueue::memory_room() const
{
    return spool_->records() == 0 && memory_bytes_ < memory_limit_ ? memory_limit_ - memory_bytes_ : 0;
}

Spool::Push ExportQueue::push(std::vector<std::uint8_t> &&record, std::string *why)
{
    const std::uint64_t need = kFrame + record.size();
    if (bytes() + need > bound_)
        return Spool::Push::Full;
    if (fits_in_memory(record.size())) {
        memory_bytes_ += need;
        memory_.push_back(std::make_shared<std::vector<std::uint8_t>>(std::move(record)));
        return Spool::Push::Stored;
    }
    if (Status st = spill(); !st) {
        *why = st.message;
        return Spool::Push::Failed;
    }
    const Spool::Push r = spool_->push(record, why);
    if (r == Spool::Push::Stored)
        keep_spare(std::move(record));
    return r;
}

void ExportQueue::keep_spare(std::vector<std::uint8_t> &&v)
{
    if (spares_.size() < kMaxSpares) {
        v.clear();
        spares_.push_back(std::move(v));
    }
}

std::vector<std::uint8_t> ExportQueue::take_spare()
{
    if (spares_.empty())
        return {};
    std::vector<std::uint8_t> v = std::move(spares_.back());
    spares_.pop_back();
    return v;
}

Status ExportQueue::spill()
{
    while (!memory_.empty()) {
        std::string why;
        const Spool::Push r = spool_->push(*memory_.front(), &why);
        if (r != Spool::Push::Stored)
            return Fail(ETW_ERROR_WRITE_FAULT,
                        r == Spool::Push::Full ? "the spool " + spool_->folder() + " is full" : why);
        memory_bytes_ -= kFrame + memory_.front()->size();
        if (memory_.front().use_count() == 1) // the sender holds none of it now
            keep_spare(std::move(*memory_.front()));
        memory_.pop_front();
    }
    return Status::ok();
}

bool ExportQueue::peek(std::uint64_t ordinal, Record *out, std::string *why)
{
    if (ordinal < first_ || ordinal >= end())
        return false;
    const std::uint64_t i = ordinal - first_;
    if (i >= spool_->records()) {
        *out = memory_[std::size_t(i - spool_->records())];
        return true;
    }
    auto bytes = std::make_shared<std::vector<std::uint8_t>>();
    if (!spool_->read(std::size_t(i), bytes.get(), why))
        return false;
    *out = std::move(bytes);
    return true;
}

bool ExportQueue::front(std::vector<std::uint8_t> *out, std::string *why)
{
    Record r;
    if (!peek(first_, &r, why))
        return false;
    *out = *r;
    return true;
}

Status ExportQueue::pop()
{
    if (records() == 0)
        return Status::ok();
    ++first_;
    if (spool_->records() != 0)
        return spool_->pop();
    memory_bytes_ -= kFrame + memory_.front()->size();
    if (memory_.front().use_count() == 1) // the sender holds none of it now
        keep_spare(std::move(*memory_.front()));
    memory_.pop_front();
    return Status::ok();
}

} // namespace openetw::exporter
