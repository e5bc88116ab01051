// What an export has yet to send, oldest first: in memory while the server
// keeps up, in the on-disk spool (spool.hpp) once it does not. A record goes
// to memory only while the spool is empty and memory holds less than
// memory_limit; otherwise memory is first moved to the spool (in order) and
// the record appended there, so every spooled record is older than every
// record in memory and sending "spool first, then memory" keeps the order.
// The bound covers both: push refuses (Full) a record that would take the
// queued bytes past it.
// Not thread-safe: its owner serialises calls (export/nats_export.cpp).
#pragma once

#include "base/status.hpp"
#include "export/spool.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace openetw::exporter {

class ExportQueue {
public:
    // bound: at most this many bytes queued (records with their 8-byte
    // frames); the spool must have been opened with the same bound.
    ExportQueue(std::unique_ptr<Spool> spool, std::uint64_t bound, std::uint64_t memory_limit);

    Spool::Push push(std::vector<std::uint8_t> record, std::string *why);
    // A copy of the oldest record; false when nothing is queued.
    bool front(std::vector<std::uint8_t> *out, std::string *why);
    // Removes the record the last front() gave (acknowledged), wherever a
    // spill moved it meanwhile.
    Status pop();
    // Moves every record in memory to the spool (a stop that gives up keeps them there).
    Status spill();

    std::uint64_t records() const { return memory_.size() + spool_->records(); }
    std::uint64_t bytes() const { return memory_bytes_ + spool_->bytes(); }
    std::uint64_t in_memory() const { return memory_.size(); }
    Spool &spool() { return *spool_; }

private:
    std::unique_ptr<Spool> spool_;
    std::deque<std::vector<std::uint8_t>> memory_;
    std::uint64_t memory_bytes_ = 0;
    std::uint64_t bound_;
    std::uint64_t memory_limit_;
    std::uint64_t spills_ = 0;       // records moved to the spool so far
    bool front_from_memory_ = false; // the last front() was memory's
    std::uint64_t front_spills_ = 0; // spills_ at that front()
};

} // namespace openetw::exporter
