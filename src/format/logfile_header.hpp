// The first record of every file: SYSTEM_TRACE_HEADER (HookId 0) +
// TRACE_LOGFILE_HEADER in its 32- or 64-bit session form + the logger and
// log file names (ETL_FORMAT.md section 5).
#pragma once

#include "format/problem.hpp"
#include "format/record_reader.hpp"

#include <openetw/records.h>

#include <cstdint>
#include <span>
#include <string>

namespace openetw::format {

struct LogfileHeader {
    etw_trace_logfile_header64 fields{}; // a 32-bit session's header is widened into this form
    std::uint8_t system_header_type = 0; // 0x01 (32-bit session) or 0x02 (64-bit session)
    std::uint32_t stored_size = 0;       // 0x110 or 0x118
    std::string logger_name;             // UTF-8 (unpaired surrogates become U+FFFD)
    std::string log_file_name;
    std::int64_t reference_timestamp = 0; // SystemTime of the header record: the raw clock at StartTime
    std::uint32_t thread_id = 0;
    std::uint32_t process_id = 0;
};

// Is rec the WMI_LOG_TYPE_HEADER record (a SYSTEM record with HookId 0)?
bool is_logfile_header_record(const Record &rec);

// Parses the header record; record holds its rec.size bytes. Returns false
// (problem set, at = offset within the record) when the record is too short
// for the TRACE_LOGFILE_HEADER its header type calls for.
bool parse_logfile_header(std::span<const std::uint8_t> record, const Record &rec, LogfileHeader &out,
                          Problem &problem);

} // namespace openetw::format
