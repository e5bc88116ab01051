// Session properties: the EVENT_TRACE_PROPERTIES record plus the two names,
// the rules StartTrace applies to them, and the Windows-layout block codec.
#pragma once

#include <openetw/constants.h>
#include <openetw/records.h>

#include "base/status.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace openetw {

class Properties {
public:
    // Defaults as etw_properties_create documents them. The name is not checked.
    explicit Properties(std::u16string session_name = {});

    // The fixed record. Offsets and Wnode.BufferSize inside it are only
    // meaningful after export (record_for_export) or import.
    const etw_event_trace_properties &record() const { return rec_; }
    etw_event_trace_properties &record() { return rec_; }

    const std::u16string &session_name() const { return session_name_; }
    const std::u16string &log_file_name() const { return log_file_name_; }
    const std::string &session_name_utf8() const { return session_name_utf8_; }
    const std::string &log_file_name_utf8() const { return log_file_name_utf8_; }

    // Checked setters for the names (length, encoding); UTF-8 input.
    Status set_session_name(const char *utf8);
    Status set_log_file_name(const char *utf8); // NULL or "" clears
    // Unchecked UTF-16 setters for the engine (e.g. an expanded file name).
    void assign_session_name(std::u16string name);
    void assign_log_file_name(std::u16string name);

    // Where the session also sends its buffers (etw_properties_set_export):
    // a nats:// URL, checked by the API, and the file holding its
    // credentials (UTF-8 paths; empty: none). Not part of the Windows block.
    const std::string &export_url() const { return export_url_; }
    const std::string &export_credentials() const { return export_credentials_; }
    void set_export(std::string url, std::string credentials_file)
    {
        export_url_ = std::move(url);
        export_credentials_ = std::move(credentials_file);
    }

    // Cross-member rules (see etw_properties_validate).
    Status validate() const;

    // True for the NT Kernel Logger (GUID or name) or ETW_SYSTEM_LOGGER_MODE.
    bool is_system_logger() const;

    // Windows' rule for a MaximumBuffers left 0, applied when a session
    // starts: the minimum (as adjusted: at least 2 per processor stream) plus
    // 20, and at least kDefaultPoolBytes of buffers. Buffering mode keeps 0
    // (its pool is MinimumBuffers). Returns the value it replaced, so a
    // failing start can put it back.
    std::uint32_t apply_maximum_buffers_default(std::uint32_t processors);

    // Zeroes NumberOfBuffers..LoggerThreadId and Wnode.HistoricalContext, so
    // a reused object carries no stale output into a new start.
    void clear_outputs();

    // The exact block etw_properties_export writes, and its size.
    std::size_t export_size() const;
    std::vector<std::uint8_t> export_block() const;
    etw_event_trace_properties record_for_export() const;

    // Parses and fully validates a block (see etw_properties_import).
    static Status import_block(const std::uint8_t *block, std::size_t size, Properties &out);

private:
    struct Layout {
        std::uint32_t block_size;
        std::uint32_t logger_name_offset;
        std::uint32_t log_file_name_offset; // 0 when there is no log file
    };
    Layout layout() const;
    Layout canonical_layout() const;
    std::uint32_t suffix_room_units() const;
    void refresh_utf8();

    etw_event_trace_properties rec_{};
    std::u16string session_name_;
    std::u16string log_file_name_;
    std::string session_name_utf8_;
    std::string log_file_name_utf8_;
    std::string export_url_;
    std::string export_credentials_;
    // An imported block keeps its own layout so that export gives the same bytes.
    bool has_imported_layout_ = false;
    Layout imported_{};
};

// The pool a default MaximumBuffers allows at least: room for a burst of
// about 100,000 small events with no consumer reading (pages are backed only
// when buffers are used; the session maps 64 MiB of headroom anyway).
inline constexpr std::uint64_t kDefaultPoolBytes = 16ull << 20;
// Windows: "typically, this value is the minimum number of buffers plus twenty".
inline constexpr std::uint32_t kDefaultExtraBuffers = 20;

// The longest export URL or credentials file name (bytes): what the
// session host's start request carries of each.
inline constexpr std::size_t kExportTextMax = 1024;

// Name rules shared by the setters and import.
Status check_session_name(const std::u16string &name, const char *field);
Status check_log_file_name(const std::u16string &name, const char *field);

// Case-insensitive session-name comparison (ASCII and Latin-1 letters fold).
bool session_names_equal(const std::u16string &a, const std::u16string &b);

} // namespace openetw
