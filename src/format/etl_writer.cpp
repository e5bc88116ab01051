#include "format/etl_writer.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::etl {

void write_buffer_header(std::uint8_t *buf, const BufferHeaderFields &f) noexcept
{
    std::memset(buf, 0, kBufferHeaderSize);
    wr32(buf + buf::BufferSize, f.buffer_size);
    wr32(buf + buf::SavedOffset, f.filled);
    wr32(buf + buf::CurrentOffset, f.filled);
    wr64(buf + buf::TimeStamp, std::uint64_t(f.timestamp));
    wr64(buf + buf::SequenceNumber, f.sequence);
    wr16(buf + buf::ProcessorIndex, f.processor_index);
    wr16(buf + buf::LoggerId, f.logger_id);
    wr32(buf + buf::State, kStateFlush);
    wr32(buf + buf::Offset, f.filled);
    wr16(buf + buf::BufferFlag, f.flags);
    wr16(buf + buf::BufferType, f.type);
}

void fill_buffer_tail(std::uint8_t *buf, std::size_t filled, std::size_t size) noexcept
{
    if (filled < size)
        std::memset(buf + filled, 0xFF, size - filled);
}

namespace {

std::size_t tlh_size(const LogfileHeaderFields &f)
{
    return f.pointer_size == 4 ? kLogfileHeader32Size : kLogfileHeader64Size;
}

void write_time_zone(std::uint8_t *p, const etw_time_zone_information &tz)
{
    wr32(p, std::uint32_t(tz.Bias));
    for (int i = 0; i < 32; ++i)
        wr16(p + 4 + 2 * i, tz.StandardName[i]);
    const std::uint16_t *sd = &tz.StandardDate.wYear;
    for (int i = 0; i < 8; ++i)
        wr16(p + 68 + 2 * i, sd[i]);
    wr32(p + 84, std::uint32_t(tz.StandardBias));
    for (int i = 0; i < 32; ++i)
        wr16(p + 88 + 2 * i, tz.DaylightName[i]);
    const std::uint16_t *dd = &tz.DaylightDate.wYear;
    for (int i = 0; i < 8; ++i)
        wr16(p + 152 + 2 * i, dd[i]);
    wr32(p + 168, std::uint32_t(tz.DaylightBias));
}

} // namespace

std::size_t logfile_record_size(const LogfileHeaderFields &f) noexcept
{
    return kSystemHeaderSize + tlh_size(f) + 2 * (f.logger_name.size() + 1) + 2 * (f.log_file_name.size() + 1);
}

std::size_t encode_header_buffer(std::uint8_t *out, const LogfileHeaderFields &in, std::uint16_t logger_id) noexcept
{
    const std::size_t bs = in.buffer_size;
    std::u16string_view logger = in.logger_name, file = in.log_file_name;
    const std::size_t fixed = kSystemHeaderSize + tlh_size(in) + 4;
    const std::size_t room = bs - kBufferHeaderSize - 8; // record must stay below bs - 0x48
    // Shorten the names (file name first) when a small buffer cannot hold them.
    while (fixed + 2 * (logger.size() + file.size()) > room && !file.empty())
        file = file.substr(0, file.size() - 1);
    while (fixed + 2 * (logger.size() + file.size()) > room && !logger.empty())
        logger = logger.substr(0, logger.size() - 1);
    const std::size_t size = fixed + 2 * (logger.size() + file.size());

    std::memset(out, 0, bs);
    std::uint8_t *r = out + kBufferHeaderSize;
    // SYSTEM_TRACE_HEADER (section 3.1).
    wr16(r + 0, 2); // Version
    r[2] = in.pointer_size == 4 ? kSystem32 : kSystem64;
    r[3] = kMarkerFixedHeader;
    wr16(r + 4, std::uint16_t(size));
    wr16(r + 6, kHookHeader);
    wr32(r + 8, in.thread_id);
    wr32(r + 12, in.process_id);
    wr64(r + 16, std::uint64_t(in.start_raw));
    // TRACE_LOGFILE_HEADER (section 5).
    std::uint8_t *t = r + kSystemHeaderSize;
    const bool p64 = in.pointer_size != 4;
    wr32(t + 0x00, in.buffer_size);
    wr32(t + 0x04, in.version);
    wr32(t + 0x08, in.provider_version);
    wr32(t + 0x0C, in.number_of_processors);
    wr64(t + 0x10, std::uint64_t(in.end_time));
    wr32(t + 0x18, in.timer_resolution);
    wr32(t + 0x1C, in.maximum_file_size);
    wr32(t + 0x20, in.log_file_mode);
    wr32(t + 0x24, in.buffers_written);
    wr32(t + 0x28, in.start_buffers);
    wr32(t + 0x2C, in.pointer_size);
    wr32(t + 0x30, in.events_lost);
    wr32(t + 0x34, in.cpu_speed_mhz);
    // 0x38 / 0x3C (0x40 on x64): LoggerName, LogFileName slots stay 0.
    const std::size_t tz = p64 ? 0x48 : 0x40;
    write_time_zone(t + tz, in.time_zone);
    const std::size_t after_tz = tz + ETW_TIME_ZONE_INFORMATION_SIZE + 4; // + alignment padding
    wr64(t + after_tz + 0, std::uint64_t(in.boot_time));
    wr64(t + after_tz + 8, std::uint64_t(in.perf_freq));
    wr64(t + after_tz + 16, std::uint64_t(in.start_time));
    wr32(t + after_tz + 24, in.clock_type);
    wr32(t + after_tz + 28, in.buffers_lost);
    std::uint8_t *s = t + tlh_size(in);
    for (char16_t c : logger) {
        wr16(s, std::uint16_t(c));
        s += 2;
    }
    s += 2;
    for (char16_t c : file) {
        wr16(s, std::uint16_t(c));
        s += 2;
    }
    const std::size_t filled = kBufferHeaderSize + align8(size);
    BufferHeaderFields h;
    h.buffer_size = std::uint32_t(bs);
    h.filled = std::uint32_t(filled);
    h.logger_id = logger_id;
    h.flags = kFlagProcIndex | kFlagFlushMarker;
    h.type = kTypeHeader;
    write_buffer_header(out, h);
    fill_buffer_tail(out, filled, bs);
    return filled;
}

std::vector<std::uint8_t> encode_header_buffer(const LogfileHeaderFields &f, std::uint16_t logger_id)
{
    std::vector<std::uint8_t> out(f.buffer_size);
    encode_header_buffer(out.data(), f, logger_id);
    return out;
}

} // namespace openetw::etl
