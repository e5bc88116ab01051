#include "summary.hpp"

#include "text.hpp"

namespace etwdump {

namespace {
// The difference of two FILETIMEs from a file, which may be anything: in
// double, since int64 subtraction overflows (undefined) for far-apart values.
double seconds_between(int64_t from, int64_t to) { return (double(to) - double(from)) / 1e7; }
} // namespace

void Summary::add(const etw_record &r)
{
    ++records_;
    ++by_kind_[etw_record_kind_name(r.kind)];
    char key[64];
    if (r.kind == ETW_RECORD_KIND_FULL || r.kind == ETW_RECORD_KIND_INSTANCE || r.kind == ETW_RECORD_KIND_EVENT ||
        (r.present & ETW_RECORD_HAS_GUID)) {
        ++by_guid_[guid_text(r.guid)];
    } else if (r.present & ETW_RECORD_HAS_HOOK_ID) {
        // Kernel-style records name their provider by the group byte of the HookId.
        std::snprintf(key, sizeof key, "(no GUID: %s, hook group 0x%02x)", etw_record_kind_name(r.kind),
                      unsigned(r.hook_id >> 8));
        ++by_guid_[key];
    } else {
        std::snprintf(key, sizeof key, "(no GUID: %s)", etw_record_kind_name(r.kind));
        ++by_guid_[key];
    }
    if (r.present & ETW_RECORD_HAS_TIMESTAMP) {
        if (r.timestamp < first_)
            first_ = r.timestamp;
        if (r.timestamp > last_)
            last_ = r.timestamp;
    }
}

void Summary::print(std::FILE *out, const etw_consumer *consumer, etw_status status, uint64_t warnings) const
{
    uint32_t files = 0;
    etw_consumer_file_count(&files, consumer);
    for (uint32_t i = 0; i < files; ++i) {
        etw_logfile_info info{};
        info.struct_size = sizeof info;
        if (etw_consumer_logfile_header(&info, consumer, i) != ETW_OK)
            continue;
        const etw_trace_logfile_header64 &h = info.header;
        std::fprintf(out, "file %s\n", info.path);
        std::fprintf(out, "  session:      %s\n", info.logger_name);
        std::fprintf(out, "  log file:     %s\n", info.log_file_name);
        std::fprintf(out, "  mode:         %s\n", mode_text(h.LogFileMode).c_str());
        std::fprintf(out, "  clock:        %u, %s (PerfFreq %lld, CPU %u MHz)\n", unsigned(h.ReservedFlags),
                     clock_text(h.ReservedFlags), (long long)h.PerfFreq, unsigned(h.CpuSpeedInMHz));
        std::fprintf(out, "  windows:      %u.%u build %u, layout %u.%u, %u-bit session, %u processors\n",
                     unsigned(h.Version & 0xFF), unsigned((h.Version >> 8) & 0xFF), unsigned(h.ProviderVersion),
                     unsigned((h.Version >> 16) & 0xFF), unsigned(h.Version >> 24), unsigned(h.PointerSize * 8),
                     unsigned(h.NumberOfProcessors));
        std::fprintf(out, "  buffers:      %u written, %u bytes each, %u lost\n", unsigned(h.BuffersWritten),
                     unsigned(h.BufferSize), unsigned(h.BuffersLost));
        std::fprintf(out, "  events lost:  %u\n", unsigned(h.EventsLost));
        std::fprintf(out, "  start:        %s\n", filetime_text(h.StartTime).c_str());
        std::fprintf(out, "  end:          %s (%.3f s)\n", filetime_text(h.EndTime).c_str(),
                     seconds_between(h.StartTime, h.EndTime));
    }
    etw_consumer_stats stats{};
    stats.struct_size = sizeof stats;
    etw_consumer_get_stats(&stats, consumer);
    std::fprintf(out, "records: %llu in %llu buffers (%llu bytes)\n", (unsigned long long)records_,
                 (unsigned long long)stats.buffers, (unsigned long long)stats.bytes_read);
    if (records_ && first_ <= last_)
        std::fprintf(out, "  time span:    %s .. %s (%.3f s)\n", filetime_text(first_).c_str(),
                     filetime_text(last_).c_str(), seconds_between(first_, last_));
    if (stats.corrupt_buffers || stats.corrupt_records || status != ETW_OK)
        std::fprintf(out, "  problems:     %llu corrupt buffers, %llu corrupt records (%s)\n",
                     (unsigned long long)stats.corrupt_buffers, (unsigned long long)stats.corrupt_records,
                     etw_status_name(status));
    if (warnings)
        std::fprintf(out, "  warnings:     %llu buffers whose header disagrees with their records\n",
                     (unsigned long long)warnings);
    std::fprintf(out, "by kind:\n");
    for (const auto &[kind, n] : by_kind_)
        std::fprintf(out, "  %-10s %llu\n", kind.c_str(), (unsigned long long)n);
    std::fprintf(out, "by provider / class GUID:\n");
    for (const auto &[guid, n] : by_guid_)
        std::fprintf(out, "  %-38s %llu\n", guid.c_str(), (unsigned long long)n);
}

} // namespace etwdump
