// Sessions exported to NATS JetStream and read back (docs/FLEET.md). Built
// with libnats (meson feature `nats`); without it (the Windows cross builds,
// a machine without libnats-dev) both functions fail with
// ETW_ERROR_NOT_SUPPORTED saying so (nats_absent.cpp).
#pragma once

#include "base/status.hpp"
#include "engine/buffer_export.hpp"
#include "export/buffer_message.hpp"
#include "export/stream_collect.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openetw::exporter {

// Whether this build can export and read streams.
bool nats_available();

// What the session host's export of one session needs.
struct ExportTarget {
    std::string url;                 // nats://HOST:PORT/STREAM
    std::string credentials_file;    // empty: none
    std::string session;             // the session name, UTF-8
    std::uint32_t buffer_size = 0;   // bytes: must fit the server's max_payload
    std::string spool_folder;        // empty: spool_folder_for(session)
    std::uint64_t spool_bytes = 0;   // 0: $OPENETW_SPOOL_BYTES, else kDefaultSpoolBytes
    std::int64_t finish_wait_ms = 0; // how long the stop waits for acknowledgements; 0: kFinishWaitMs
    std::uint64_t memory_bytes = 0;  // buffers queued in memory before the spool; 0: kMemoryBytes
    std::int64_t stall_ms = 0;       // no acknowledgement for this long: spool; 0: kStallMs
};

// The spool's bound where the host's $OPENETW_SPOOL_BYTES sets none.
inline constexpr std::uint64_t kDefaultSpoolBytes = 256ull << 20;
// How long a stop waits for the last acknowledgements.
inline constexpr std::int64_t kFinishWaitMs = 20000;
// Bytes of buffers queued in memory (sent or not, unacknowledged) before the
// spool on disk takes them: a server that keeps up costs the logger no second
// write per buffer.
inline constexpr std::uint64_t kMemoryBytes = 16ull << 20;
// A server that acknowledged nothing for this long is not keeping up: a
// lossless session's logger, held while the memory queue is full, spools
// from then on (docs/FLEET.md, "Spool").
inline constexpr std::int64_t kStallMs = 250;

// Connects, creates the stream if missing (subjects STREAM.>, file storage),
// and opens the spool; the sender thread starts. A spool folder that holds
// records (a stop that timed out, a host that died) is continued: its
// records are sent first, each with its own tag and message id. ETW_ERROR_INVALID_PARAMETER
// / ETW_ERROR_INVALID_NAME for a bad URL (export_url.hpp), the credentials
// file's statuses (credentials.hpp), ETW_ERROR_ACCESS_DENIED when the server
// refuses the credentials, ETW_ERROR_FILE_NOT_FOUND when no server answers,
// ETW_ERROR_NOT_SUPPORTED when it has no JetStream, ETW_ERROR_INVALID_PARAMETER
// when a buffer would exceed its max_payload; each with the server's reason.
Status open_nats_export(const ExportTarget &target, std::unique_ptr<engine::BufferExport> *out);

// The session host at its start: sends what spools of hosts that are gone
// still hold (spool_owner_gone) to the stream each names (the `target`
// file an export writes in its folder: URL and credentials file), in their
// order, and removes each spool it emptied. One that cannot be sent now
// stays for the next host; each outcome is a line of *report.
void resend_orphaned_spools(std::vector<std::string> *report);

// One machine's session instance as read from a stream: an .etl image
// (its header buffer, the final one once the session stopped, then its data
// buffers in the order they were sent).
struct StreamTrace {
    BufferTag tag; // machine, session, start_time (sequence unused)
    std::vector<std::uint8_t> etl;
    std::uint64_t buffers = 0; // data buffers in etl
    bool stopped = false;      // the session's final header was read (else the header as it started)
};

// Replays the stream named by url from its start (or its ?since= time) to
// its last message now. ETW_ERROR_FILE_NOT_FOUND when no server answers or
// it has no such stream, ETW_ERROR_ACCESS_DENIED when it refuses the
// credentials, ETW_ERROR_HANDLE_EOF when no session's header buffer is in
// what was read, ETW_ERROR_INVALID_DATA for a message without our headers.
// Instances whose header buffer is gone (the stream's retention took it)
// are left out and counted in *headless.
Status read_nats_stream(const std::string &url, const std::string &credentials_file, std::vector<StreamTrace> *out,
                        std::uint64_t *headless = nullptr);

// Replays the stream as read_nats_stream does and returns every instance
// the filter keeps with all its messages, in (machine, session, start)
// order; *skipped counts those it left out. The same statuses, but an
// instance without its header buffer is returned too (collect reports it).
Status fetch_nats_stream(const std::string &url, const std::string &credentials_file, const StreamFilter &filter,
                         std::vector<StreamInstance> *out, std::uint64_t *skipped);

} // namespace openetw::exporter
