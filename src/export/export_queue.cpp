#include "export/export_queue.hpp"

namespace openetw::exporter {

namespace {
constexpr std::uint64_t kFrame = 8; // as the spool counts a record
} // namespace

ExportQueue::ExportQueue(std::unique_ptr<Spool> spool, std::uint64_t bound, std::uint64_t memory_limit)
    : spool_(std::move(spool)), bound_(bound), memory_limit_(memory_limit)
{}

Spool::Push ExportQueue::push(std::vector<std::uint8_t> record, std::string *why)
{
    const std::uint64_t need = kFrame + record.size();
    if (bytes() + need > bound_)
        return Spool::Push::Full;
    if (spool_->records() == 0 && memory_bytes_ + need <= memory_limit_) {
        memory_bytes_ += need;
        memory_.push_back(std::move(record));
        return Spool::Push::Stored;
    }
    if (Status st = spill(); !st) {
        *why = st.message;
        return Spool::Push::Failed;
    }
    return spool_->push(record, why);
}

Status ExportQueue::spill()
{
    while (!memory_.empty()) {
        std::string why;
        const Spool::Push r = spool_->push(memory_.front(), &why);
        if (r != Spool::Push::Stored)
            return Fail(ETW_ERROR_WRITE_FAULT,
                        r == Spool::Push::Full ? "the spool " + spool_->folder() + " is full" : why);
        memory_bytes_ -= kFrame + memory_.front().size();
        memory_.pop_front();
        ++spills_;
    }
    return Status::ok();
}

bool ExportQueue::front(std::vector<std::uint8_t> *out, std::string *why)
{
    if (spool_->records() != 0) {
        front_from_memory_ = false;
        return spool_->front(out, why);
    }
    if (memory_.empty())
        return false;
    front_from_memory_ = true;
    front_spills_ = spills_;
    *out = memory_.front();
    return true;
}

Status ExportQueue::pop()
{
    if (front_from_memory_ && front_spills_ == spills_) {
        if (!memory_.empty()) {
            memory_bytes_ -= kFrame + memory_.front().size();
            memory_.pop_front();
        }
        return Status::ok();
    }
    // A spill moved it to the spool's front (records leave memory in order).
    return spool_->pop();
}

} // namespace openetw::exporter
