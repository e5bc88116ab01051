// Session properties: defaults, the rules StartTrace applies, and the
// Windows-layout block (EVENT_TRACE_PROPERTIES + session name + log file name).
#include "engine/properties.hpp"

#include "base/guid.hpp"
#include "base/utf.hpp"
#include "format/etl_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace openetw {

namespace {

constexpr std::uint32_t kRecordSize = sizeof(etw_event_trace_properties);
static_assert(kRecordSize == ETW_EVENT_TRACE_PROPERTIES_SIZE, "EVENT_TRACE_PROPERTIES is 120 bytes");

constexpr std::uint32_t kFileModes = ETW_FILE_MODE_SEQUENTIAL | ETW_FILE_MODE_CIRCULAR | ETW_FILE_MODE_APPEND |
                                     ETW_FILE_MODE_NEWFILE | ETW_FILE_MODE_PREALLOCATE;

std::string hex32(std::uint32_t v)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08X", static_cast<unsigned>(v));
    return text;
}

std::string mode_names(std::uint32_t mode)
{
    struct Named {
        std::uint32_t bit;
        const char *name;
    };
    static constexpr Named kNames[] = {
        {ETW_FILE_MODE_SEQUENTIAL, "SEQUENTIAL"},   {ETW_FILE_MODE_CIRCULAR, "CIRCULAR"},
        {ETW_FILE_MODE_APPEND, "APPEND"},           {ETW_FILE_MODE_NEWFILE, "NEWFILE"},
        {ETW_FILE_MODE_PREALLOCATE, "PREALLOCATE"}, {ETW_REAL_TIME_MODE, "REAL_TIME"},
        {ETW_BUFFERING_MODE, "BUFFERING"},          {ETW_PRIVATE_LOGGER_MODE, "PRIVATE_LOGGER"},
        {ETW_PRIVATE_IN_PROC, "PRIVATE_IN_PROC"},
    };
    std::string out;
    for (const auto &n : kNames) {
        if (mode & n.bit) {
            if (!out.empty())
                out += "|";
            out += n.name;
        }
    }
    return out;
}

// One forbidden pair from the Logging Mode Constants page.
struct Conflict {
    std::uint32_t mode;
    std::uint32_t forbidden;
};

// NEWFILE|SEQUENTIAL is absent on purpose: the page discourages it, but
// Windows accepts it and real traces carry it (LogFileMode 0x9, 0x11002009).
constexpr Conflict kConflicts[] = {
    {ETW_FILE_MODE_SEQUENTIAL, ETW_FILE_MODE_CIRCULAR},
    {ETW_FILE_MODE_CIRCULAR, ETW_FILE_MODE_APPEND | ETW_FILE_MODE_NEWFILE},
    {ETW_FILE_MODE_APPEND, ETW_REAL_TIME_MODE | ETW_FILE_MODE_NEWFILE | ETW_PRIVATE_LOGGER_MODE},
    {ETW_FILE_MODE_NEWFILE, ETW_PRIVATE_LOGGER_MODE | ETW_FILE_MODE_PREALLOCATE},
    {ETW_BUFFERING_MODE, kFileModes | ETW_REAL_TIME_MODE},
};

bool equals_ignore_case(std::u16string_view a, std::u16string_view b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char16_t x = a[i], y = b[i];
        if (x >= u'a' && x <= u'z')
            x = char16_t(x - 32);
        if (y >= u'a' && y <= u'z')
            y = char16_t(y - 32);
        if (x != y)
            return false;
    }
    return true;
}

Status check_name(const std::u16string &name, const char *field, std::size_t max, bool required)
{
    if (required && name.empty())
        return Fail(ETW_ERROR_INVALID_NAME, std::string(field) + " is empty");
    if (name.size() > max)
        return Fail(ETW_ERROR_INVALID_NAME, std::string(field) + " is " + std::to_string(name.size()) +
                                                " characters long; at most " + std::to_string(max) + " are allowed");
    if (name.find(u'\0') != std::u16string::npos)
        return Fail(ETW_ERROR_INVALID_NAME, std::string(field) + " contains a NUL character");
    std::size_t bad = find_unpaired_surrogate(name);
    if (bad != std::u16string::npos)
        return Fail(ETW_ERROR_NO_UNICODE_TRANSLATION,
                    std::string(field) + " has an unpaired UTF-16 surrogate at character " + std::to_string(bad));
    return Status::ok();
}

Status utf8_name(const char *utf8, const char *field, std::u16string &out)
{
    auto converted = utf8_to_utf16(utf8);
    if (!converted)
        return Fail(ETW_ERROR_NO_UNICODE_TRANSLATION, std::string(field) + " is not valid UTF-8");
    out = std::move(*converted);
    return Status::ok();
}

} // namespace

Status check_session_name(const std::u16string &name, const char *field)
{
    return check_name(name, field, ETW_MAX_SESSION_NAME_LENGTH, true);
}

Status check_log_file_name(const std::u16string &name, const char *field)
{
    return check_name(name, field, ETW_MAX_LOG_FILE_NAME_LENGTH, false);
}

Properties::Properties(std::u16string session_name)
{
    rec_.Wnode.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    rec_.Wnode.ClientContext = ETW_CLOCK_QPC;
    rec_.BufferSize = ETW_DEFAULT_BUFFER_SIZE_KB;
    assign_session_name(std::move(session_name));
}

void Properties::refresh_utf8()
{
    session_name_utf8_ = utf16_to_utf8_lossy(session_name_);
    log_file_name_utf8_ = utf16_to_utf8_lossy(log_file_name_);
}

void Properties::assign_session_name(std::u16string name)
{
    session_name_ = std::move(name);
    refresh_utf8();
}

void Properties::assign_log_file_name(std::u16string name)
{
    log_file_name_ = std::move(name);
    refresh_utf8();
}

Status Properties::set_session_name(const char *utf8)
{
    if (utf8 == nullptr)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "session name is NULL");
    std::u16string name;
    if (Status s = utf8_name(utf8, "session name", name); !s)
        return s;
    if (Status s = check_session_name(name, "session name"); !s)
        return s;
    assign_session_name(std::move(name));
    return Status::ok();
}

Status Properties::set_log_file_name(const char *utf8)
{
    std::u16string name;
    if (utf8 != nullptr) {
        if (Status s = utf8_name(utf8, "log file name", name); !s)
            return s;
        if (Status s = check_log_file_name(name, "log file name"); !s)
            return s;
    }
    assign_log_file_name(std::move(name));
    return Status::ok();
}

bool Properties::is_system_logger() const
{
    static const etw_guid kSystemTraceControlGuid = ETW_SYSTEM_TRACE_CONTROL_GUID_INIT;
    return (rec_.LogFileMode & ETW_SYSTEM_LOGGER_MODE) != 0 || guid_equal(rec_.Wnode.Guid, kSystemTraceControlGuid) ||
           equals_ignore_case(session_name_, u"" ETW_KERNEL_LOGGER_NAME);
}

Status Properties::validate() const
{
    const auto &r = rec_;
    if ((r.Wnode.Flags & ETW_WNODE_FLAG_TRACED_GUID) == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "Wnode.Flags (" + hex32(r.Wnode.Flags) + ") lacks WNODE_FLAG_TRACED_GUID (0x00020000)");
    if (r.Wnode.ClientContext > ETW_CLOCK_CPU_CYCLE)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "Wnode.ClientContext is " + std::to_string(r.Wnode.ClientContext) +
                                                     "; the clock type must be 0..3");
    if (r.BufferSize < ETW_MIN_BUFFER_SIZE_KB || r.BufferSize > ETW_MAX_BUFFER_SIZE_KB)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "BufferSize is " + std::to_string(r.BufferSize) + " KB; it must be 4..16384 KB");
    if (Status s = check_session_name(session_name_, "session name"); !s)
        return s;
    if (Status s = check_log_file_name(log_file_name_, "log file name"); !s)
        return s;

    const std::uint32_t mode = r.LogFileMode;
    for (const auto &c : kConflicts) {
        if ((mode & c.mode) && (mode & c.forbidden))
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "LogFileMode (" + hex32(mode) + ") combines " + mode_names(c.mode) + " with " +
                            mode_names(mode & c.forbidden) + ", which the logging modes forbid");
    }
    if ((mode & ETW_PRIVATE_IN_PROC) && !(mode & ETW_PRIVATE_LOGGER_MODE))
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "LogFileMode (" + hex32(mode) + ") has PRIVATE_IN_PROC without PRIVATE_LOGGER_MODE");
    const std::uint32_t sized = mode & (ETW_FILE_MODE_CIRCULAR | ETW_FILE_MODE_NEWFILE | ETW_FILE_MODE_PREALLOCATE);
    if (sized && r.MaximumFileSize == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "MaximumFileSize is 0, but LogFileMode has " + mode_names(sized) + ", which needs a maximum size");
    if ((mode & kFileModes) && log_file_name_.empty())
        return Fail(ETW_ERROR_INVALID_PARAMETER, "LogFileMode (" + hex32(mode) + ") has " +
                                                     mode_names(mode & kFileModes) + " but there is no log file name");
    if (log_file_name_.empty() && !(mode & (ETW_REAL_TIME_MODE | ETW_BUFFERING_MODE)))
        return Fail(
            ETW_ERROR_INVALID_PARAMETER,
            "the session has no destination: no log file name and neither REAL_TIME nor BUFFERING in LogFileMode");
    if ((mode & ETW_FILE_MODE_NEWFILE) && log_file_name_.find(u"%d") == std::u16string::npos)
        return Fail(ETW_ERROR_BAD_PATHNAME, "LogFileMode has NEWFILE but the log file name \"" + log_file_name_utf8_ +
                                                "\" has no %d for the sequence number");
    if (r.EnableFlags != 0 && !is_system_logger())
        return Fail(ETW_ERROR_INVALID_PARAMETER, "EnableFlags (" + hex32(r.EnableFlags) +
                                                     ") is valid only for a system logger (the NT Kernel Logger or "
                                                     "SYSTEM_LOGGER_MODE)");
    return Status::ok();
}

std::uint32_t Properties::apply_maximum_buffers_default(std::uint32_t processors)
{
    etw_event_trace_properties &r = rec_;
    const std::uint32_t given = r.MaximumBuffers;
    if (given != 0 || (r.LogFileMode & ETW_BUFFERING_MODE) || r.BufferSize == 0)
        return given;
    const std::uint32_t streams = (r.LogFileMode & ETW_NO_PER_PROCESSOR_BUFFERING) ? 1u : std::max(1u, processors);
    const std::uint64_t minimum = std::max<std::uint64_t>(r.MinimumBuffers, 2ull * streams);
    const std::uint64_t by_memory = kDefaultPoolBytes / (std::uint64_t(r.BufferSize) * 1024u);
    // The engine caps it (ETW_MAX_BUFFERS, the per-session memory cap) as it caps any value.
    r.MaximumBuffers =
        std::uint32_t(std::min<std::uint64_t>(std::max(minimum + kDefaultExtraBuffers, by_memory), ETW_MAX_BUFFERS));
    return given;
}

void Properties::clear_outputs()
{
    rec_.Wnode.HistoricalContext = 0;
    rec_.NumberOfBuffers = 0;
    rec_.FreeBuffers = 0;
    rec_.EventsLost = 0;
    rec_.BuffersWritten = 0;
    rec_.LogBuffersLost = 0;
    rec_.RealTimeBuffersLost = 0;
    rec_.LoggerThreadId = 0;
}

// ---- The block ----

std::uint32_t Properties::suffix_room_units() const
{
    if (log_file_name_.empty())
        return 0;
    return (rec_.LogFileMode & (ETW_FILE_MODE_NEWFILE | ETW_PRIVATE_LOGGER_MODE)) ? ETW_LOG_FILE_SUFFIX_ROOM : 0;
}

Properties::Layout Properties::canonical_layout() const
{
    Layout l{};
    l.logger_name_offset = kRecordSize;
    std::uint32_t end = kRecordSize + 2 * static_cast<std::uint32_t>(session_name_.size() + 1);
    if (!log_file_name_.empty()) {
        l.log_file_name_offset = end;
        end += 2 * static_cast<std::uint32_t>(log_file_name_.size() + 1 + suffix_room_units());
    }
    l.block_size = end;
    return l;
}

Properties::Layout Properties::layout() const
{
    if (!has_imported_layout_)
        return canonical_layout();
    // Keep the imported placement while both names still fit in it.
    const Layout &l = imported_;
    const std::uint32_t session_limit = l.log_file_name_offset ? l.log_file_name_offset : l.block_size;
    const bool session_fits = l.logger_name_offset + 2 * (session_name_.size() + 1) <= session_limit;
    const bool file_fits =
        log_file_name_.empty()
            ? true
            : (l.log_file_name_offset != 0 && l.log_file_name_offset + 2 * (log_file_name_.size() + 1) <= l.block_size);
    return (session_fits && file_fits) ? l : canonical_layout();
}

std::size_t Properties::export_size() const { return layout().block_size; }

etw_event_trace_properties Properties::record_for_export() const
{
    const Layout l = layout();
    etw_event_trace_properties r = rec_;
    r.Wnode.BufferSize = l.block_size;
    r.LoggerNameOffset = l.logger_name_offset;
    r.LogFileNameOffset = l.log_file_name_offset;
    return r;
}

std::vector<std::uint8_t> Properties::export_block() const
{
    const Layout l = layout();
    std::vector<std::uint8_t> block(l.block_size, 0);
    const etw_event_trace_properties r = record_for_export();
    std::memcpy(block.data(), &r, kRecordSize);
    write_utf16le(block.data() + l.logger_name_offset, session_name_);
    if (l.log_file_name_offset != 0)
        write_utf16le(block.data() + l.log_file_name_offset, log_file_name_);
    return block;
}

namespace {

using etl::rd16;

// Checks one name offset against the block; `bound` is Wnode.BufferSize.
Status check_offset(std::uint32_t offset, std::uint32_t bound, const char *field)
{
    const std::string f = field;
    if (offset < kRecordSize)
        return Fail(ETW_ERROR_INVALID_PARAMETER, f + " (" + std::to_string(offset) +
                                                     ") points into the EVENT_TRACE_PROPERTIES structure (120 bytes)");
    if (offset >= bound)
        return Fail(ETW_ERROR_BAD_LENGTH, f + " (" + std::to_string(offset) +
                                              ") is past the end of the block (Wnode.BufferSize " +
                                              std::to_string(bound) + ")");
    if (offset % 2 != 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    f + " (" + std::to_string(offset) + ") is not aligned to a UTF-16 character");
    return Status::ok();
}

// Reads the NUL-terminated UTF-16LE name at offset; `units` excludes the NUL.
Status read_name(const std::uint8_t *block, std::uint32_t offset, std::uint32_t bound, const char *field,
                 std::u16string &name)
{
    const std::uint32_t max_units = (bound - offset) / 2;
    std::uint32_t units = 0;
    while (units < max_units && rd16(block + offset + 2 * units) != 0)
        ++units;
    if (units == max_units)
        return Fail(ETW_ERROR_BAD_LENGTH, std::string(field) + " at offset " + std::to_string(offset) +
                                              " is not NUL-terminated inside the block (Wnode.BufferSize " +
                                              std::to_string(bound) + ")");
    name = read_utf16le(block + offset, units);
    return Status::ok();
}

} // namespace

Status Properties::import_block(const std::uint8_t *block, std::size_t size, Properties &out)
{
    if (block == nullptr)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "block is NULL");
    if (size < kRecordSize)
        return Fail(ETW_ERROR_BAD_LENGTH,
                    "the block is " + std::to_string(size) + " bytes, smaller than EVENT_TRACE_PROPERTIES (120 bytes)");
    etw_event_trace_properties r;
    std::memcpy(&r, block, kRecordSize);
    const std::uint32_t bound = r.Wnode.BufferSize;
    if (bound < kRecordSize)
        return Fail(ETW_ERROR_BAD_LENGTH, "Wnode.BufferSize (" + std::to_string(bound) +
                                              ") is smaller than EVENT_TRACE_PROPERTIES (120 bytes)");
    if (bound > size)
        return Fail(ETW_ERROR_BAD_LENGTH, "Wnode.BufferSize (" + std::to_string(bound) +
                                              ") is larger than the block (" + std::to_string(size) + " bytes)");
    if ((r.Wnode.Flags & ETW_WNODE_FLAG_TRACED_GUID) == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "Wnode.Flags (" + hex32(r.Wnode.Flags) + ") lacks WNODE_FLAG_TRACED_GUID (0x00020000)");
    if (r.LoggerNameOffset == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "LoggerNameOffset is 0: the block carries no session name");
    if (Status s = check_offset(r.LoggerNameOffset, bound, "LoggerNameOffset"); !s)
        return s;
    if (r.LogFileNameOffset != 0) {
        if (Status s = check_offset(r.LogFileNameOffset, bound, "LogFileNameOffset"); !s)
            return s;
        if (r.LogFileNameOffset <= r.LoggerNameOffset)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "LogFileNameOffset (" + std::to_string(r.LogFileNameOffset) +
                            ") places the log file name before the session name (LoggerNameOffset " +
                            std::to_string(r.LoggerNameOffset) + ")");
    }
    std::u16string session, file;
    if (Status s = read_name(block, r.LoggerNameOffset, bound, "the session name", session); !s)
        return s;
    const std::uint32_t session_end = r.LoggerNameOffset + 2 * static_cast<std::uint32_t>(session.size() + 1);
    if (r.LogFileNameOffset != 0) {
        if (session_end > r.LogFileNameOffset)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "the session name (offsets " + std::to_string(r.LoggerNameOffset) +
                                                         ".." + std::to_string(session_end) +
                                                         ") overlaps the log file name at LogFileNameOffset " +
                                                         std::to_string(r.LogFileNameOffset));
        if (Status s = read_name(block, r.LogFileNameOffset, bound, "the log file name", file); !s)
            return s;
    }
    if (Status s = check_session_name(session, "the session name (LoggerNameOffset)"); !s)
        return s;
    if (Status s = check_log_file_name(file, "the log file name (LogFileNameOffset)"); !s)
        return s;

    Properties p;
    p.rec_ = r;
    p.assign_session_name(std::move(session));
    p.assign_log_file_name(std::move(file));
    if (Status s = p.validate(); !s)
        return s;
    p.has_imported_layout_ = true;
    p.imported_ = Layout{bound, r.LoggerNameOffset, r.LogFileNameOffset};
    out = std::move(p);
    return Status::ok();
}

namespace {
char16_t fold(char16_t c)
{
    if (c >= u'a' && c <= u'z')
        return char16_t(c - 32);
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7)
        return char16_t(c - 32);
    return c;
}
} // namespace

bool session_names_equal(const std::u16string &a, const std::u16string &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (fold(a[i]) != fold(b[i]))
            return false;
    return true;
}

} // namespace openetw
