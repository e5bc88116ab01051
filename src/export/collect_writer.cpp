// The I/O half of `etwctl collect`: read the stream, write one file per
// instance, never replacing a file with other contents unless asked.
#include "export/nats_export.hpp"
#include "export/credentials.hpp"
#include "export/stream_collect.hpp"
#include "platform/file_input.hpp"
#include "platform/files.hpp"

#include <cstdlib>

namespace openetw::exporter {

namespace {

Status write_file(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    platform::File f;
    if (etw_status st = f.open(path, platform::OpenMode::CreateTruncate); st != ETW_OK)
        return Fail(st, "cannot create " + path);
    if (etw_status st = f.write_at(0, bytes.data(), bytes.size()); st != ETW_OK)
        return Fail(st, "cannot write " + path);
    return Status::ok();
}

// Same bytes as what is there: a second collect of a finished session
// leaves the file as it is and is not a conflict.
bool holds(const std::string &path, const std::vector<std::uint8_t> &bytes)
{
    std::vector<std::uint8_t> now;
    if (!platform::read_whole(path, bytes.size() + 1, "collected file", now))
        return false;
    return now == bytes;
}

} // namespace

Status collect_stream(const std::string &url, const CollectOptions &options, CollectReport *report)
{
    *report = CollectReport{};
    if (options.folder.empty() || !platform::parent_directory_exists(options.folder + "/x"))
        return Fail(ETW_ERROR_PATH_NOT_FOUND, "the output folder " + options.folder + " does not exist");
    std::string creds = options.credentials_file;
    if (creds.empty())
        if (const char *env = std::getenv(kCredentialsVariable))
            creds = env;
    std::vector<StreamInstance> instances;
    if (Status st = fetch_nats_stream(url, creds, options.filter, &instances, &report->skipped); !st)
        return st;
    if (instances.empty())
        return Fail(ETW_ERROR_NO_MORE_ITEMS,
                    "no session of the stream at " + url + " matches" +
                        (options.filter.machine.empty() ? "" : " machine " + options.filter.machine) +
                        (options.filter.session.empty() ? "" : " session " + options.filter.session));
    Status write_error = Status::ok();
    std::uint64_t kept = 0, incomplete = 0;
    for (StreamInstance &inst : instances) {
        CollectedFile f;
        f.trace = assemble_instance(inst);
        inst = StreamInstance{}; // one image at a time in memory, not two
        f.path = options.folder + "/" + collected_file_name(f.trace.tag);
        if (!f.trace.complete())
            ++incomplete;
        if (f.trace.etl.empty()) {
            f.outcome = CollectedFile::Outcome::NoFile;
        } else {
            const bool exists = platform::file_exists(f.path);
            if (exists && holds(f.path, f.trace.etl)) {
                f.outcome = CollectedFile::Outcome::Unchanged;
            } else if (exists && !options.overwrite) {
                f.outcome = CollectedFile::Outcome::Kept;
                f.error = "exists with other contents: not overwritten (--force replaces it)";
                ++kept;
            } else if (Status st = write_file(f.path, f.trace.etl); !st) {
                f.outcome = CollectedFile::Outcome::Failed;
                f.error = st.message;
                if (write_error)
                    write_error = st;
            } else {
                f.outcome = exists ? CollectedFile::Outcome::Replaced : CollectedFile::Outcome::Written;
            }
        }
        f.trace.etl = {};
        report->files.push_back(std::move(f));
    }
    if (!write_error)
        return write_error;
    if (kept != 0)
        return Fail(ETW_ERROR_ALREADY_EXISTS,
                    std::to_string(kept) + " file(s) exist with other contents and were not overwritten");
    if (incomplete != 0)
        return Fail(ETW_ERROR_HANDLE_EOF, std::to_string(incomplete) + " of " + std::to_string(report->files.size()) +
                                              " session(s) are incomplete in the stream");
    return Status::ok();
}

} // namespace openetw::exporter
