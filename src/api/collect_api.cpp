// extern "C" shims of collect.h: argument checks and the struct_size
// contract; the collect is src/export's (collect_run.hpp).
#include <openetw/collect.h>

#include "api/guard.hpp"
#include "export/collect_run.hpp"

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>

using openetw::Fail;
using openetw::Status;
using openetw::api::guarded;
using openetw::exporter::CollectedFile;
using openetw::exporter::CollectRun;

// The handle is the run object; the opaque type only hides it.
static CollectRun *impl(etw_collect_report *r) { return reinterpret_cast<CollectRun *>(r); }
static const CollectRun *impl(const etw_collect_report *r) { return reinterpret_cast<const CollectRun *>(r); }

// The public outcome numbers are the enum's order.
static_assert(ETW_COLLECT_WRITTEN == unsigned(CollectedFile::Outcome::Written) &&
              ETW_COLLECT_UNCHANGED == unsigned(CollectedFile::Outcome::Unchanged) &&
              ETW_COLLECT_REPLACED == unsigned(CollectedFile::Outcome::Replaced) &&
              ETW_COLLECT_KEPT == unsigned(CollectedFile::Outcome::Kept) &&
              ETW_COLLECT_NO_FILE == unsigned(CollectedFile::Outcome::NoFile) &&
              ETW_COLLECT_FAILED == unsigned(CollectedFile::Outcome::Failed));
static_assert(offsetof(etw_collected_file, start_time) == 8 && offsetof(etw_collected_file, path) == 32 &&
              sizeof(etw_collected_file) == 32 + 6 * sizeof(const char *)); // no padding on 32- or 64-bit

static const char *text(const char *s) { return s ? s : ""; }

extern "C" {

ETW_API etw_status etw_collect_report_create(etw_collect_report **out)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = reinterpret_cast<etw_collect_report *>(new CollectRun);
        return Status::ok();
    });
}

ETW_API void etw_collect_report_destroy(etw_collect_report *report) { delete impl(report); }

ETW_API etw_status etw_collect_stream(etw_collect_report *report, const char *url, const char *folder,
                                      const char *machine, const char *session, const char *credentials_file,
                                      uint32_t flags)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(report);
        ETW_REQUIRE_ARG(url);
        ETW_REQUIRE_ARG(folder);
        if (const uint32_t unknown = flags & ~ETW_COLLECT_OVERWRITE; unknown != 0) {
            char bits[16];
            std::snprintf(bits, sizeof bits, "0x%X", unknown);
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        std::string("flags has unknown bits ") + bits + " (only ETW_COLLECT_OVERWRITE is defined)");
        }
        openetw::exporter::CollectOptions o;
        o.folder = folder;
        o.filter.machine = text(machine);
        o.filter.session = text(session);
        o.credentials_file = text(credentials_file);
        o.overwrite = (flags & ETW_COLLECT_OVERWRITE) != 0;
        return impl(report)->run(url, o);
    });
}

ETW_API etw_status etw_collect_report_file_count(uint32_t *out, const etw_collect_report *report)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(report);
        *out = static_cast<uint32_t>(impl(report)->report.files.size());
        return Status::ok();
    });
}

ETW_API etw_status etw_collect_report_skipped(uint64_t *out, const etw_collect_report *report)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(report);
        *out = impl(report)->report.skipped;
        return Status::ok();
    });
}

ETW_API etw_status etw_collect_report_file(etw_collected_file *out, const etw_collect_report *report, uint32_t index)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(report);
        // The struct's first version ends with error.
        if (out->struct_size < offsetof(etw_collected_file, error) + sizeof(out->error))
            return Fail(ETW_ERROR_INVALID_PARAMETER, "out->struct_size " + std::to_string(out->struct_size) +
                                                         " is smaller than etw_collected_file (" +
                                                         std::to_string(sizeof(etw_collected_file)) +
                                                         "): set it to sizeof(etw_collected_file)");
        const CollectRun &run = *impl(report);
        if (index >= run.report.files.size())
            return Fail(ETW_ERROR_INVALID_PARAMETER, "index " + std::to_string(index) + " is past the report's " +
                                                         std::to_string(run.report.files.size()) + " file(s)");
        const CollectedFile &f = run.report.files[index];
        etw_collected_file v{};
        v.struct_size = sizeof v;
        v.outcome = static_cast<uint32_t>(f.outcome);
        v.start_time = f.trace.tag.start_time;
        v.data_buffers = f.trace.buffers;
        v.complete = f.trace.complete() ? 1u : 0u;
        v.missing_count = static_cast<uint32_t>(f.trace.missing.size());
        v.path = f.path.c_str();
        v.machine = f.trace.tag.machine.c_str();
        v.session = f.trace.tag.session.c_str();
        v.start_utc = run.start_text[index].c_str();
        v.missing = run.missing_text[index].c_str();
        v.error = f.error.c_str();
        // A caller built against a later header may pass more; fill what both know.
        const std::size_t size = out->struct_size < sizeof v ? out->struct_size : sizeof v;
        v.struct_size = static_cast<uint32_t>(size);
        std::memcpy(out, &v, size);
        return Status::ok();
    });
}

ETW_API const char *etw_collect_outcome_name(uint32_t outcome)
{
    if (outcome > ETW_COLLECT_FAILED)
        return "unknown";
    return openetw::exporter::outcome_name(static_cast<CollectedFile::Outcome>(outcome));
}

} // extern "C"
