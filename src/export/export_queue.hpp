// What an export has yet to send, oldest first: in memory while the server
// keeps up, in the on-disk spool (spool.hpp) once it does not. A record goes
// to memory only while the spool is empty and memory holds less than
// memory_limit; otherwise memory is first moved to the spool (in order) and
// the record appended there, so every spooled record is older than every
// record in memory: "spool first, then memory" is the order, and the oldest
// record is the spool's front whenever the spool holds any.
// The bound covers both: push refuses (Full) a record that would take the
// queued bytes past it.
// Records have ordinals (0 for the first this queue held, counting those a
// continued spool brought), so a sender with several records in flight names
// each wherever a spill moved it meanwhile.
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
    using Record = std::shared_ptr<const std::vector<std::uint8_t>>;

    // bound: at most this many bytes queued (records with their 8-byte
    // frames); the spool must have been opened with the same bound.
    ExportQueue(std::unique_ptr<Spool> spool, std::uint64_t bound, std::uint64_t memory_limit);

    // Takes the record only when it returns Stored (Full and Failed leave it to the caller).
    Spool::Push push(std::vector<std::uint8_t> &&record, std::string *why);
    // The record with this ordinal (first() <= ordinal < end()): memory's
    // shared, the spool's read. False past the end or on a spool read error
    // (why says which).
    bool peek(std::uint64_t ordinal, Record *out, std::string *why);
    // A copy of the oldest record; false when nothing is queued.
    bool front(std::vector<std::uint8_t> *out, std::string *why);
    // Removes the oldest record (acknowledged).
    Status pop();
    // Moves every record in memory to the spool (a stop that gives up keeps them there).
    Status spill();
    // An empty vector for the next record, with the storage of one that
    // left (sent and acknowledged, or spooled) when there is one: a record
    // costs no fresh pages (which a new 64 KiB allocation takes, page fault
    // by page fault, each time the allocator gave the last one back).
    std::vector<std::uint8_t> take_spare();

    // Whether push would keep a record of this size in memory (the spool is
    // empty and memory has room): the export holds a lossless logger for
    // that rather than write the spool while the server keeps up.
    bool fits_in_memory(std::size_t record_size) const;
    // Bytes memory can take now (0 while the spool holds records).
    std::uint64_t memory_room() const;
    std::uint64_t memory_limit() const { return memory_limit_; }

    std::uint64_t first() const { return first_; }
    std::uint64_t end() const { return first_ + records(); }
    std::uint64_t records() const { return memory_.size() + spool_->records(); }
    std::uint64_t bytes() const { return memory_bytes_ + spool_->bytes(); }
    std::uint64_t in_memory() const { return memory_.size(); }
    Spool &spool() { return *spool_; }

private:
    std::unique_ptr<Spool> spool_;
    void keep_spare(std::vector<std::uint8_t> &&v);

    std::deque<std::shared_ptr<std::vector<std::uint8_t>>> memory_;
    std::vector<std::vector<std::uint8_t>> spares_;
    std::uint64_t memory_bytes_ = 0;
    std::uint64_t bound_;
    std::uint64_t memory_limit_;
    std::uint64_t first_ = 0; // the oldest record's ordinal
};

} // namespace openetw::exporter
