// The export's bounded on-disk queue (docs/FLEET.md, "Spool"): every buffer
// the logger hands to the export is appended here, and the sender removes it
// once JetStream acknowledged it, so a slow or absent server never holds up
// the logger and a buffer leaves the spool only acknowledged.
//
// Layout in its folder: segment files seg-NNNNNNNNNN (records appended,
// each [u32 magic][u32 length][bytes]; a new segment past kSegmentBytes)
// and `head` (the segment and offset of the oldest unacknowledged record,
// rewritten at each pop). Opening a folder that holds a spool continues it:
// its records come first, in their order (a torn last record, a host killed
// mid-append, is cut off).
//
// Bounded: push refuses (Full) a record that would take the unacknowledged
// bytes past max_bytes; the caller counts what it drops.
// Not thread-safe: its owner serialises calls (export/nats_export.cpp).
#pragma once

#include "base/status.hpp"
#include "platform/files.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace openetw::exporter {

class Spool {
public:
    static constexpr std::uint64_t kSegmentBytes = 8ull << 20;

    // Makes folder (and its parents) if missing. ETW_ERROR_PATH_NOT_FOUND
    // when it cannot be made, ETW_ERROR_INVALID_PARAMETER for max_bytes 0.
    static Status open(const std::string &folder, std::uint64_t max_bytes, std::unique_ptr<Spool> *out);

    enum class Push { Stored, Full, Failed };
    // Appends one record. Full: it would pass the bound (nothing written);
    // Failed: a write error (why says which), nothing kept.
    Push push(const std::vector<std::uint8_t> &record, std::string *why);
    // The oldest record not yet popped; false when the spool is empty.
    bool front(std::vector<std::uint8_t> *out, std::string *why) { return read(0, out, why); }
    // The i-th oldest (0: the front); false past the last or on a read error (why says which).
    bool read(std::size_t i, std::vector<std::uint8_t> *out, std::string *why);
    // Drops the oldest record (acknowledged).
    Status pop();

    std::uint64_t records() const { return index_.size(); }
    std::uint64_t bytes() const { return bytes_; }
    const std::string &folder() const { return folder_; }
    // Removes the folder's files (an export that finished with nothing left).
    void remove_files();

private:
    struct Entry {
        std::uint32_t segment;
        std::uint64_t offset; // of the record's bytes
        std::uint32_t length;
    };
    Spool() = default;
    std::string segment_path(std::uint32_t n) const;
    Status open_tail(std::uint32_t n);
    Status load();
    Status write_head();

    std::string folder_;
    std::uint64_t max_bytes_ = 0;
    std::uint64_t bytes_ = 0; // record bytes (with their 8-byte frames) not yet popped
    std::deque<Entry> index_; // unpopped records, oldest first
    std::uint32_t tail_segment_ = 0;
    std::uint64_t tail_size_ = 0;
    platform::File tail_;
    platform::File head_;
    static constexpr std::uint32_t kNoSegment = 0xFFFFFFFFu;
    platform::File reader_; // an older segment being read (read), kept open
    std::uint32_t reader_segment_ = kNoSegment;
};

// The host's state folder for spools: $OPENETW_SPOOL_DIR, else root's
// /var/spool/openetw, else $XDG_STATE_HOME/openetw/spool or
// ~/.local/state/openetw/spool.
std::string spool_root();
// A folder of its own for one session instance started now:
// <session escaped>-<pid>-<process start time>-<FILETIME now>.
std::string spool_folder_for(const std::string &session);
// Whether the process that made the spool folder named name (its last path
// part, as spool_folder_for makes it) is gone: a host that died or stopped
// with records left. False for a name spool_folder_for cannot have made.
bool spool_owner_gone(const std::string &name);

} // namespace openetw::exporter
