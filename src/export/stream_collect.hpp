// `etwctl collect`: a stream's session instances rebuilt as .etl files
// (docs/FLEET.md, "Collecting"). assemble_instance and collected_file_name
// are pure rules over what was read; collect_stream reads the stream
// (nats_reader.cpp) and writes the files. No threads, no locks.
//
// A file is byte-identical to the session's own only when the stream holds
// all of the instance: the final header (rewritten with the final counts at
// the stop) and every data buffer from 1 to the one before it. Anything less
// is written as far as it goes and reported with what is missing, never
// passed off as complete.
#pragma once

#include "base/status.hpp"
#include "export/buffer_message.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace openetw::exporter {

// Every message of one machine's session instance, as read from a stream.
struct StreamInstance {
    BufferTag tag;                    // machine, session, start_time (sequence unused)
    std::vector<std::uint8_t> header; // sequence 0, empty when the stream no longer holds it
    std::vector<std::uint8_t> end;    // the final header, empty before the stop
    std::uint64_t end_sequence = 0;   // the final header's sequence: data buffers are 1 .. end_sequence - 1
    std::multimap<std::uint64_t, std::vector<std::uint8_t>> data; // by sequence; duplicates kept
};

// Which instances a read keeps; empty: all. The machine is compared as
// written, the session case-insensitively (ASCII), as session names are.
struct StreamFilter {
    std::string machine;
    std::string session;
    bool matches(const BufferTag &tag) const;
};

// One instance as an .etl image and what it lacks.
struct CollectedTrace {
    BufferTag tag;
    std::vector<std::uint8_t> etl;    // empty when there is no header buffer to begin a file with
    std::uint64_t buffers = 0;        // data buffers in etl
    bool stopped = false;             // etl begins with the final header
    std::vector<std::string> missing; // sentences; empty: byte-identical to the session's file
    bool complete() const { return missing.empty(); }
};

// The image: the final header if the session stopped, else its first; then
// one copy of each data buffer in sequence order. Missing are the header
// buffer, the final header, gaps in the sequences (ranges named), and a
// sequence held twice with different bytes (the first copy is used).
CollectedTrace assemble_instance(const StreamInstance &inst);

// "<machine>.<session>.<start>.etl": each name escaped as a subject token
// (bytes outside [A-Za-z0-9_-] as %XX, so no '/', '\\', '.' or ':' of the
// name reaches the file system), a name whose token would pass
// kMaxNameToken bytes cut there and ended with '~' and a hash of the whole
// name, a machine token that Windows reserves as a device (CON, NUL,
// COM1...) with its first letter escaped; the start as UTC
// YYYYMMDDTHHMMSS.fffffffZ. Distinct instances get distinct names.
inline constexpr std::size_t kMaxNameToken = 96;
std::string collected_file_name(const BufferTag &tag);
// A session's start as that name gives it: FILETIME as UTC YYYYMMDDTHHMMSS.fffffffZ.
std::string start_utc_text(std::int64_t filetime);

struct CollectOptions {
    std::string folder; // must exist
    StreamFilter filter;
    bool overwrite = false;       // replace a file that exists with other contents
    std::string credentials_file; // empty: $OPENETW_NATS_CREDENTIALS, else none
};

struct CollectedFile {
    enum class Outcome {
        Written,   // a new file
        Unchanged, // the file existed with these very bytes
        Replaced,  // the file existed with other bytes; overwrite asked
        Kept,      // the file existed with other bytes; left alone
        NoFile,    // no header buffer: nothing to begin a file with
        Failed,    // writing failed (why: in error)
    };
    CollectedTrace trace; // etl released once written
    std::string path;
    Outcome outcome = Outcome::NoFile;
    std::string error;
};

struct CollectReport {
    std::vector<CollectedFile> files; // in (machine, session, start) order
    std::uint64_t skipped = 0;        // instances the filter left out
};

// Reads the stream (url as a consumer takes it, ?since= included) and
// writes one file per selected instance into options.folder. Statuses: the
// reader's (read_nats_stream), ETW_ERROR_PATH_NOT_FOUND when the folder
// does not exist, ETW_ERROR_NO_MORE_ITEMS when no instance matches the
// filter; then, with *report filled: ETW_ERROR_WRITE_FAULT / DISK_FULL when
// a file could not be written, ETW_ERROR_ALREADY_EXISTS when a file was kept,
// ETW_ERROR_HANDLE_EOF when an instance is incomplete (the message counts
// them), else OK.
Status collect_stream(const std::string &url, const CollectOptions &options, CollectReport *report);

// What a CollectedFile's outcome is called in a report ("written", ...).
const char *outcome_name(CollectedFile::Outcome o);

} // namespace openetw::exporter
