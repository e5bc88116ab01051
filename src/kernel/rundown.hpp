// The system logger's rundown: the processes, threads and loaded images
// running when a kernel session starts (DCStart) or stops (DCEnd), read
// from the system (platform/proc_info.hpp) and written as Windows'
// Process, Thread and Image records (kernel_records.hpp). A process that
// ends while it is read is left out, never an error. Not thread-safe by
// itself: one rundown per call, no shared state.
#pragma once

#include "base/status.hpp"
#include "kernel/image_build_id.hpp"
#include "kernel/kernel_records.hpp"
#include "platform/proc_info.hpp"

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace openetw::kernel {

struct RundownOptions {
    bool end = false; // DCEnd records instead of DCStart
    bool threads = true;
    bool images = true;
    // After each Image record of a file with a GNU build id, its
    // ImageID/DbgID_RSDS (image_id_records.hpp), the id read from the file.
    bool build_ids = true;
    BuildIdReader read_build_id; // read_file_build_id when empty (tests pass their own)
    // Image records as EVENT_TRACE_HEADER records of the Image class (its
    // GUID inline, as ImageID's are), for sessions that are no system
    // logger: a SYSTEM_TRACE_HEADER is the kernel logger's own.
    bool classic = false;
    std::uint32_t pointer_size = 8;
    std::int64_t timestamp = 0; // raw session clock, for every record
    std::size_t max_record = kMaxRecordSize;
    // Told each process written (a live source remembers them: their exec
    // and end then name their image).
    std::function<void(const ProcessFields &)> on_process;
};

struct RundownCounts {
    std::uint32_t processes = 0;
    std::uint32_t threads = 0;
    std::uint32_t images = 0;
    std::uint32_t build_ids = 0;      // DbgID_RSDS records
    std::uint32_t vanished = 0;       // processes that ended while read
    std::uint32_t images_unknown = 0; // processes whose mappings the caller may not read
};

// One image: a file with an executable mapping, spanning all its mappings.
struct ImageSpan {
    std::string path;
    std::uint64_t base = 0; // lowest start of the file's mappings
    std::uint64_t size = 0; // highest end - base
    std::string device;     // its file's, as /proc/PID/maps gives them
    std::uint64_t inode = 0;
};
// The images among mappings, in the order their lowest mappings appear.
// A file is one image per (device, inode, path); anonymous and
// pseudo-file mappings ("[vdso]") are none.
std::vector<ImageSpan> images_of(std::span<const platform::ProcMapping> mappings);

// The Process record fields for what /proc says.
ProcessFields process_fields(const platform::ProcProcess &p);
// The Thread record fields for thread t of process pid.
ThreadFields thread_fields(std::uint32_t pid, const platform::ProcTask &t);

// Sends each record to sink: per process its Process record, then one
// Thread record per thread and one Image record per image, followed by its
// DbgID_RSDS when the file has a build id (none for a mapping whose file
// was deleted or replaced: " (deleted)", the file at the path is another). Fails only
// when the list of processes cannot be read (ETW_ERROR_NOT_SUPPORTED where
// the system has no /proc).
Status rundown(const RundownOptions &options, const std::function<void(Bytes &&record)> &sink,
               RundownCounts *counts = nullptr);

// The Image DCStart (or DCEnd) records of one process, each followed by its
// DbgID_RSDS as rundown() writes them: the module map that names the code
// addresses of the process's stacks. ETW_ERROR_ACCESS_DENIED or
// ETW_ERROR_NOT_FOUND when its mappings cannot be read.
Status image_rundown(std::uint32_t pid, const RundownOptions &options, const std::function<void(Bytes &&record)> &sink,
                     RundownCounts *counts = nullptr);

} // namespace openetw::kernel
