//! OpenETW for Rust: portable classic Event Tracing for Windows sessions.
//!
//! A safe API over [`openetw_sys`]: owned handles freed on `Drop`, every
//! fallible call returning [`Result`] with the library's [`Status`] and
//! message, `Send`/`Sync` as the C headers' thread rules allow.
//!
//! ```no_run
//! use openetw::{LogFileMode, Properties};
//! let mut p = Properties::new("My Session")?;
//! p.set_log_file_name(Some("/tmp/my.etl"))?;
//! p.set_log_file_mode(LogFileMode::SEQUENTIAL)?;
//! p.validate()?;
//! let block: Vec<u8> = p.to_block(); // the Windows EVENT_TRACE_PROPERTIES block
//! assert_eq!(Properties::from_block(&block)?.session_name(), "My Session");
//! # Ok::<(), openetw::Error>(())
//! ```
#![warn(missing_docs)]

mod error;
mod properties;
mod types;

pub use error::{Error, Result, Status};
pub use openetw_sys as sys;
pub use properties::{EventTraceProperties, Properties};
pub use types::{ClockType, Guid, KernelFlags, LogFileMode};

/// "MAJOR.MINOR.PATCH" of the loaded library.
pub fn version() -> &'static str {
    let text = unsafe { std::ffi::CStr::from_ptr(sys::etw_version_string()) };
    text.to_str().expect("the version string is ASCII")
}
