// A build without libnats (the Windows cross builds, or the `nats` feature
// disabled or not found): the export and the reader say so.
#include "export/nats_export.hpp"
#include "export/nats_follow.hpp"

namespace openetw::exporter {

namespace {
Status absent()
{
    return Fail(ETW_ERROR_NOT_SUPPORTED,
                "this build of OpenETW has no NATS support (it was built without libnats: install libnats-dev and "
                "build again)");
}
} // namespace

bool nats_available() { return false; }

Status open_nats_export(const ExportTarget &, std::unique_ptr<engine::BufferExport> *) { return absent(); }

// Nothing can be sent: spools (made by a build with NATS) stay as they are.
void resend_orphaned_spools(std::vector<std::string> *) {}

Status read_nats_stream(const std::string &, const std::string &, std::vector<StreamTrace> *, std::uint64_t *headless)
{
    if (headless)
        *headless = 0;
    return absent();
}

Status fetch_nats_stream(const std::string &, const std::string &, const StreamFilter &, std::vector<StreamInstance> *,
                         std::uint64_t *skipped)
{
    if (skipped)
        *skipped = 0;
    return absent();
}

Status open_nats_follower(const std::string &, const std::string &, std::unique_ptr<NatsFollower> *)
{
    return absent();
}

} // namespace openetw::exporter
