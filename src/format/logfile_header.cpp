#include "format/logfile_header.hpp"

#include "base/utf.hpp"
#include "format/etl_layout.hpp"

namespace openetw::format {

using namespace openetw::etl;

bool is_logfile_header_record(const Record &rec)
{
    return rec.kind == RecordKind::System && rec.hook_id == kHookHeader;
}

namespace {

etw_systemtime read_systemtime(const std::uint8_t *p)
{
    etw_systemtime t;
    t.wYear = rd16(p);
    t.wMonth = rd16(p + 2);
    t.wDayOfWeek = rd16(p + 4);
    t.wDay = rd16(p + 6);
    t.wHour = rd16(p + 8);
    t.wMinute = rd16(p + 10);
    t.wSecond = rd16(p + 12);
    t.wMilliseconds = rd16(p + 14);
    return t;
}

etw_time_zone_information read_time_zone(const std::uint8_t *p)
{
    etw_time_zone_information z;
    z.Bias = static_cast<std::int32_t>(rd32(p));
    for (int i = 0; i < 32; ++i)
        z.StandardName[i] = rd16(p + 4 + 2 * i);
    z.StandardDate = read_systemtime(p + 68);
    z.StandardBias = static_cast<std::int32_t>(rd32(p + 84));
    for (int i = 0; i < 32; ++i)
        z.DaylightName[i] = rd16(p + 88 + 2 * i);
    z.DaylightDate = read_systemtime(p + 152);
    z.DaylightBias = static_cast<std::int32_t>(rd32(p + 168));
    return z;
}

// A NUL-terminated UTF-16LE string starting at pos, bounded by end; pos moves past the NUL.
std::string read_name(std::span<const std::uint8_t> bytes, std::size_t &pos)
{
    std::size_t units = 0;
    while (pos + 2 * units + 2 <= bytes.size() && rd16(bytes.data() + pos + 2 * units) != 0)
        ++units;
    std::string name = utf16_to_utf8_lossy(read_utf16le(bytes.data() + pos, units));
    pos += 2 * units + 2; // past the NUL (or past the end when it is missing)
    if (pos > bytes.size())
        pos = bytes.size();
    return name;
}

} // namespace

bool parse_logfile_header(std::span<const std::uint8_t> record, const Record &rec, LogfileHeader &out, Problem &problem)
{
    out = LogfileHeader{};
    // The header type, not PointerSize, says which form was stored (section 10).
    const bool session64 = rec.header_type != kSystem32;
    const std::size_t ptr = session64 ? 8 : 4;
    const std::size_t tlh_size = session64 ? kLogfileHeader64Size : kLogfileHeader32Size;
    const std::size_t start = rec.header_size;
    if (record.size() < start || record.size() - start < tlh_size) {
        problem.set(ETW_ERROR_BAD_LENGTH, static_cast<std::uint32_t>(start),
                    text_printf("the logfile header record has Size 0x%zX, too small for its 0x%zX-byte "
                                "TRACE_LOGFILE_HEADER after a 0x%zX-byte header",
                                record.size(), tlh_size, start));
        return false;
    }
    const std::uint8_t *p = record.data() + start;
    etw_trace_logfile_header64 &h = out.fields;
    h.BufferSize = rd32(p + tlh::BufferSize);
    h.Version = rd32(p + tlh::Version);
    h.ProviderVersion = rd32(p + tlh::ProviderVersion);
    h.NumberOfProcessors = rd32(p + tlh::NumberOfProcessors);
    h.EndTime = static_cast<std::int64_t>(rd64(p + tlh::EndTime));
    h.TimerResolution = rd32(p + tlh::TimerResolution);
    h.MaximumFileSize = rd32(p + tlh::MaximumFileSize);
    h.LogFileMode = rd32(p + tlh::LogFileMode);
    h.BuffersWritten = rd32(p + tlh::BuffersWritten);
    h.StartBuffers = rd32(p + tlh::StartBuffers);
    h.PointerSize = rd32(p + tlh::PointerSize);
    h.EventsLost = rd32(p + tlh::EventsLost);
    h.CpuSpeedInMHz = rd32(p + tlh::CpuSpeedInMHz);
    std::size_t q = tlh::LoggerName;
    h.LoggerName = session64 ? rd64(p + q) : rd32(p + q);
    q += ptr;
    h.LogFileName = session64 ? rd64(p + q) : rd32(p + q);
    q += ptr;
    h.TimeZone = read_time_zone(p + q);
    q += tlh::TimeZoneSize;
    h.Reserved0 = rd32(p + q); // padding that puts BootTime on an 8-byte boundary
    q += 4;
    h.BootTime = static_cast<std::int64_t>(rd64(p + q));
    h.PerfFreq = static_cast<std::int64_t>(rd64(p + q + 8));
    h.StartTime = static_cast<std::int64_t>(rd64(p + q + 16));
    h.ReservedFlags = rd32(p + q + 24);
    h.BuffersLost = rd32(p + q + 28);

    out.system_header_type = rec.header_type;
    out.stored_size = static_cast<std::uint32_t>(tlh_size);
    out.reference_timestamp = rec.timestamp;
    out.thread_id = rec.thread_id;
    out.process_id = rec.process_id;
    std::size_t pos = start + tlh_size;
    out.logger_name = read_name(record, pos);
    out.log_file_name = read_name(record, pos);
    return true;
}

} // namespace openetw::format
