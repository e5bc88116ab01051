//! Owned copies of a consumer's facts: logfile headers and statistics.
use std::ffi::CStr;

use openetw_sys as sys;

use crate::error::Status;

/// The TRACE_LOGFILE_HEADER facts of one opened file (`etw_logfile_info`),
/// copied: the names outlive the consumer.
#[derive(Clone, Debug)]
pub struct LogfileInfo {
    /// Which file of the consumer.
    pub file_index: u32,
    /// Every header field as stored (a 32-bit session's header widened).
    /// `header.BufferSize` is in bytes.
    pub header: sys::etw_trace_logfile_header64,
    /// Raw SystemTime of the header record.
    pub reference_timestamp: i64,
    /// The file's size in bytes.
    pub file_size: u64,
    /// 1 = 32-bit, 2 = 64-bit session.
    pub header_type: u32,
    /// Thread of the header record.
    pub thread_id: u32,
    /// Process of the header record.
    pub process_id: u32,
    /// COMPRESSION_FORMAT_* of compressed buffers.
    pub compression_format: u32,
    /// The session's name.
    pub logger_name: String,
    /// The log file name as stored in the file.
    pub log_file_name: String,
    /// The path given to the consumer (the session name for live consumers).
    pub path: String,
}

fn text(ptr: *const core::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
}

impl LogfileInfo {
    pub(crate) fn from_sys(info: &sys::etw_logfile_info) -> Self {
        LogfileInfo {
            file_index: info.file_index,
            header: info.header,
            reference_timestamp: info.reference_timestamp,
            file_size: info.file_size,
            header_type: info.header_type,
            thread_id: info.thread_id,
            process_id: info.process_id,
            compression_format: info.compression_format,
            logger_name: text(info.logger_name),
            log_file_name: text(info.log_file_name),
            path: text(info.path),
        }
    }
}

/// Counters of the last (or running) `Consumer::process` (`etw_consumer_stats`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConsumerStats {
    /// Files opened.
    pub file_count: u32,
    /// Buffers processed.
    pub buffers: u64,
    /// Buffers with a problem.
    pub corrupt_buffers: u64,
    /// Records delivered.
    pub records: u64,
    /// Records skipped, and buffers whose records stop at damage.
    pub corrupt_records: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Sum of the files' EventsLost (plus live losses).
    pub events_lost: u64,
    /// The first problem found, OK if none.
    pub first_problem: Status,
}

impl ConsumerStats {
    pub(crate) fn from_sys(s: &sys::etw_consumer_stats) -> Self {
        ConsumerStats {
            file_count: s.file_count,
            buffers: s.buffers,
            corrupt_buffers: s.corrupt_buffers,
            records: s.records,
            corrupt_records: s.corrupt_records,
            bytes_read: s.bytes_read,
            events_lost: s.events_lost,
            first_problem: Status(s.first_problem),
        }
    }
}
