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
//!
//! Sessions, providers and consumers (examples/quickstart.rs):
//!
//! ```no_run
//! use openetw::{ControlFlow, Consumer, EventClass, Guid, LogFileMode, Properties, Provider, Session};
//! let guid: Guid = "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab".parse()?;
//! let mut props = Properties::new("Quickstart")?;
//! props.set_log_file_name(Some("/tmp/quickstart.etl"))?;
//! props.set_log_file_mode(LogFileMode::SEQUENTIAL)?;
//! let provider = Provider::register(guid)?;
//! let session = Session::start(&mut props)?;
//! session.enable_provider(&guid, 4, 0, 0)?;
//! provider.write(&EventClass { guid, event_type: 10, level: 4, version: 1 }, b"hello")?;
//! session.stop(None)?;
//! let mut payloads = Vec::new();
//! Consumer::builder()
//!     .on_event(|e| { payloads.push(e.payload().to_vec()); ControlFlow::Continue(()) })
//!     .open_file("/tmp/quickstart.etl")?
//!     .process()?;
//! assert_eq!(payloads, [b"hello".to_vec()]);
//! # Ok::<(), openetw::Error>(())
//! ```
//!
//! Filters at the source and enable properties (EnableTraceEx2's
//! ENABLE_TRACE_PARAMETERS) are an [`EnableOptions`] given to
//! [`Session::enable_provider_ex`]; a session's own PID and executable-name
//! filters go to [`Session::start_with_filters`]. [`list_providers`] and
//! [`query_provider`] list the registered providers, their processes and the
//! sessions enabling them (EnumerateTraceGuidsEx).
//!
//! Callbacks are closures owned by the native object (freed exactly once, by
//! the library's `user_data_free`). Each runs under `catch_unwind`: a panic
//! never crosses into C. A consumer closure's panic stops processing and is
//! resumed from [`Consumer::process`]; an enable closure's panic is resumed
//! from the call that ran it (see [`Provider`]).
#![warn(missing_docs)]

mod callbacks;
mod consumer;
mod decode;
mod error;
mod filter;
mod kernel_trace;
mod logfile;
mod properties;
mod provider;
mod provider_list;
mod records;
mod schemas;
mod session;
mod stream;
mod trace;
mod tracelogging;
mod types;

pub use consumer::{Canceller, Consumer, ConsumerBuilder, Order};
pub use decode::{DecodedEvent, Decoder, FromValue, Property, Source, Value};
pub use error::{Error, Result, Status};
pub use filter::{EnableOptions, EnableProperty, Filter};
pub use kernel_trace::{KernelEvent, KernelFilter, KernelTrace, KernelTraceBuilder, KERNEL_LOGGER_NAME};
pub use logfile::{ConsumerStats, LogfileInfo};
pub use openetw_sys as sys;
pub use properties::{EventTraceProperties, Properties};
pub use provider_list::{list_providers, query_provider, ProviderInfo, ProviderProcess, ProviderSession};
pub use provider::{activity_id_control, Activity, ActivityControl, EnableInfo, EventClass, EventDescriptor, Provider};
pub use records::{
    extended_item_sid, extended_item_stack, BufferInfo, ClassicEvent, EventRecord, LossInfo, Record, RecordKind,
};
pub use schemas::{load_binary, load_manifest, source_count};
pub use session::{HostInfo, HostState, Session, SessionOptions, Statistics};
pub use stream::{
    Collect, CollectError, CollectOutcome, CollectReport, CollectedFile, NatsStream, StreamSource,
};
pub use trace::{LiveTrace, LiveTraceBuilder};
pub use tracelogging::{Field, FieldValue, TraceLoggingOptions, TraceLoggingValue};
pub use types::{level, ClockType, Guid, KernelFlags, LogFileMode, SessionRights};
pub use core::ops::ControlFlow;

/// "MAJOR.MINOR.PATCH" of the loaded library.
pub fn version() -> &'static str {
    let text = unsafe { std::ffi::CStr::from_ptr(sys::etw_version_string()) };
    text.to_str().expect("the version string is ASCII")
}
