// The .etl file sink of a session: sequential, circular, newfile, append and
// preallocate modes, MaximumFileSize in MB or KB, write-error accounting.
// Only the logger thread (and start/stop/update with the logger quiescent)
// uses a LogFile.
//
// CIRCULAR FILE LAYOUT (also in docs/ENGINE.md, "Circular files"):
//   The file holds 1 + S buffers at most, S = MaximumFileSize / BufferSize - 1
//   data slots (start fails if S < 1). Buffer 0, the header buffer, is never
//   overwritten except when it is rewritten in place. The k-th data buffer
//   written (k = 0, 1, ...) goes to slot 1 + (k mod S), so after a wrap the
//   oldest surviving buffer sits right after the newest one. While the
//   session runs, SequenceNumber is the session-wide write count k + 1. At
//   stop the engine renumbers the surviving data buffers 1..N, oldest first,
//   in place (so SequenceNumber <= BuffersWritten holds for every reader),
//   and sets BuffersWritten = 1 + N. A reader orders data buffers by
//   SequenceNumber; file order is ring order, not time order.
#pragma once

#include "base/status.hpp"
#include "format/etl_writer.hpp"
#include "platform/files.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::engine {

class LogFile {
public:
    struct Config {
        std::string path;            // UTF-8; with %d for NEWFILE
        std::uint32_t mode = 0;      // LogFileMode
        std::uint64_t max_bytes = 0; // 0: no limit
        std::uint32_t buffer_size = 0;
        std::uint16_t logger_id = 0;
        etl::LogfileHeaderFields header; // names, clocks, processors...
    };

    enum class Outcome { Written, FileFull, WriteError };

    // The session's loss counters so far (EventsLost, LogBuffersLost). Each
    // file's header records the part of them no earlier file's header took,
    // so the headers of a file sequence (NEWFILE, UPDATE to a new name) sum
    // to the session's counts.
    struct Losses {
        std::uint32_t events = 0;
        std::uint32_t buffers = 0;
    };

    // Opens the first file and writes its header buffer.
    Status open(const Config &config);
    // Whether the session logs to a file: from a successful open() (or
    // switch_to()) until finish(). Stays true when a NEWFILE switch could not
    // create the next file (a full disk): write_buffer() then tries again and
    // reports WriteError for each buffer it cannot write, so every one is
    // counted lost and none is dropped unseen.
    bool is_open() const { return active_; }

    // Writes one data buffer (its header complete but for SequenceNumber,
    // which this sets). FileFull: sequential limit reached, nothing written.
    // WriteError: the buffer is not in the file (the file keeps only whole
    // buffers; a NEWFILE file whose header could not be written is removed).
    // so_far: the session's losses now; a NEWFILE file this opens records in
    // its header those no earlier file took (losses while no file could be
    // opened), and the file it finishes those while it was current.
    Outcome write_buffer(std::uint8_t *buffer, std::uint32_t events, Losses so_far);

    // Rewrites the header with the final counts (so_far less what earlier
    // files recorded), renumbers a wrapped circular file, trims a
    // preallocated file, and closes. A NEWFILE session whose next file could
    // not be opened (a full disk) adds what is unrecorded to the header of
    // the last file it finished, rewritten in place (no room needed).
    Status finish(std::int64_t end_time, Losses so_far);

    // Buffer 0 of the current (or last finished) file as last written: after
    // finish(), the final header.
    const std::vector<std::uint8_t> &header() const { return header_; }

    // UPDATE with a new file name: finishes the current file and starts path.
    Status switch_to(const std::string &path, std::int64_t end_time, Losses so_far);

    // The PerfFreq in the header of the .etl file at path (UTF-8): the unit
    // of the clock-1 timestamps an APPEND adds to it. 0 when there is no
    // such file or it does not start with a header buffer (open() then says
    // what is wrong).
    static std::int64_t perf_freq_of(const std::string &path);

private:
    Status open_file(std::uint32_t file_number);
    Status load_for_append();
    void patch_header(std::int64_t end_time, Losses lost);
    Status finish_current(std::int64_t end_time);
    // Losses the headers written so far do not hold.
    Losses unrecorded() const;
    // finish_current(), or with no file open, the unrecorded losses into the
    // last finished file's header.
    Status finish_or_record(std::int64_t end_time);

    Config config_;
    platform::File file_;
    bool active_ = false;
    std::string current_path_;          // the file being written (NEWFILE: the expanded name), UTF-8, absolute
    std::vector<std::uint8_t> header_;  // buffer 0 as written
    std::uint32_t buffers_in_file_ = 0; // including buffer 0, complete buffers only
    std::uint64_t data_written_ = 0;    // data buffers written to this file (circular: may exceed slots)
    std::uint64_t next_sequence_ = 1;
    std::uint32_t file_number_ = 1;
    std::uint32_t slots_ = 0;         // circular data slots
    std::uint32_t appended_base_ = 0; // buffers already in an appended file
    Losses so_far_;                   // the session's losses, as last told
    Losses recorded_;                 // the part of them finished files' headers hold
    std::string last_finished_;       // the last file whose final header was written
};

// Adds lost to the EventsLost and BuffersLost of the header of the .etl file
// at path (UTF-8), in place.
Status add_losses_to_header(const std::string &path, LogFile::Losses lost);

// Finishes the file of a session whose host process died (an orphan being
// stopped, docs/SYSTEM_SESSIONS.md): keeps the header buffer and the whole
// data buffers after it (up to the first one that is not a data buffer of the
// file's size: a torn last write or a preallocated tail is cut off),
// renumbers them 1..N by SequenceNumber (a wrapped circular file), and
// rewrites the header with BuffersWritten = 1 + N, end_time and events_lost
// added to the file's EventsLost. Nothing in the file is trusted;
// ETW_ERROR_INVALID_DATA (with what was wrong) leaves it untouched.
// *data_buffers receives N.
// extra: whole data buffers recovered from the session's memory
// (host/orphan_recovery.hpp); each is appended unless the file holds a
// buffer with its (non-zero) SequenceNumber already.
Status recover_log_file(const std::string &path, std::int64_t end_time, std::uint32_t events_lost,
                        std::uint32_t *data_buffers, const std::vector<std::vector<std::uint8_t>> &extra = {});

// Expands the first "%d" of a NEWFILE name with n.
std::string expand_newfile_name(const std::string &pattern, std::uint32_t n);

} // namespace openetw::engine
