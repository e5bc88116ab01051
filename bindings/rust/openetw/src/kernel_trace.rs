//! The system logger in one object (krabsetw's `kernel_trace`, ferrisetw's
//! `KernelTrace`): a real-time system logger session recording the kernel
//! events its flags select, and a consumer delivering them, decoded, to
//! closures on a thread of its own; stopped when dropped.

use std::ops::ControlFlow;
use std::thread::JoinHandle;
use std::time::SystemTime;

use openetw_sys as sys;

use crate::consumer::{Canceller, Consumer};
use crate::decode::{DecodedEvent, FromValue, Value};
use crate::error::{Error, Result, Status};
use crate::properties::Properties;
use crate::records::Record;
use crate::session::{Session, Statistics};
use crate::types::{KernelFlags, LogFileMode};

/// "NT Kernel Logger": the system logger's own name, a [`KernelTrace`]'s default.
pub const KERNEL_LOGGER_NAME: &str = "NT Kernel Logger";
const _: () = assert!(KERNEL_LOGGER_NAME.len() + 1 == sys::ETW_KERNEL_LOGGER_NAME.len());

/// Which events a [`KernelTraceBuilder::on`] closure receives. Names compare
/// case-insensitively. From `"Class/Event"` (`"Process/Start"`), `"Class"`
/// (`"Process"`: every event of the class) or `("Class", opcode)`
/// (`("Process", 2)`: Class.Type 2, End).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelFilter {
    /// Every event.
    All,
    /// One event by its name, "Class/Event".
    Event(String),
    /// Every event of a class.
    Class(String),
    /// A class and an event type (Class.Type: 1 Start, 2 End, 3 DCStart, ...).
    Opcode(String, u8),
}

impl From<&str> for KernelFilter {
    fn from(text: &str) -> Self {
        if text.contains('/') {
            KernelFilter::Event(text.to_owned())
        } else {
            KernelFilter::Class(text.to_owned())
        }
    }
}

impl From<(&str, u8)> for KernelFilter {
    fn from((class, opcode): (&str, u8)) -> Self {
        KernelFilter::Opcode(class.to_owned(), opcode)
    }
}

impl KernelFilter {
    fn matches(&self, event_name: &str, class_name: &str, opcode: u8) -> bool {
        match self {
            KernelFilter::All => true,
            KernelFilter::Event(name) => name.eq_ignore_ascii_case(event_name),
            KernelFilter::Class(class) => class.eq_ignore_ascii_case(class_name),
            KernelFilter::Opcode(class, op) => *op == opcode && class.eq_ignore_ascii_case(class_name),
        }
    }
}

/// A kernel event as a [`KernelTrace`] delivers it: the record's header facts
/// and its decoded fields, owned (it outlives the closure call).
#[derive(Clone, Debug)]
pub struct KernelEvent {
    opcode: u8,
    process_id: u32,
    thread_id: u32,
    processor: u32,
    timestamp: i64,
    decoded: Result<DecodedEvent>,
}

impl KernelEvent {
    fn new(record: &Record<'_>) -> Self {
        let raw = record.raw();
        // System-logger headers carry the event type in the HookId's low byte.
        let hook =
            matches!(raw.kind, sys::ETW_RECORD_KIND_SYSTEM | sys::ETW_RECORD_KIND_COMPACT | sys::ETW_RECORD_KIND_PERFINFO);
        KernelEvent {
            opcode: if hook { (raw.hook_id & 0xFF) as u8 } else { raw.opcode },
            process_id: raw.process_id,
            thread_id: raw.thread_id,
            processor: raw.processor,
            timestamp: raw.timestamp,
            decoded: record.decode(),
        }
    }

    /// The event's name, "Class/Event" ("Process/Start"); "" when it does not decode.
    pub fn event_name(&self) -> &str {
        self.decoded.as_ref().map_or("", |d| d.event_name.as_str())
    }
    /// The kernel class ("Process"); "" when the event does not decode.
    pub fn class_name(&self) -> &str {
        self.decoded.as_ref().map_or("", |d| d.task_name.as_str())
    }
    /// The event type's name ("Start"); "" when the event does not decode.
    pub fn opcode_name(&self) -> &str {
        self.decoded.as_ref().map_or("", |d| d.opcode_name.as_str())
    }
    /// The event type (Class.Type: 1 Start, 2 End, 3 DCStart, 4 DCEnd, ...).
    pub fn opcode(&self) -> u8 {
        self.opcode
    }
    /// The process the header names.
    pub fn process_id(&self) -> u32 {
        self.process_id
    }
    /// The thread the header names.
    pub fn thread_id(&self) -> u32 {
        self.thread_id
    }
    /// The processor whose buffer held the event.
    pub fn processor(&self) -> u32 {
        self.processor
    }
    /// FILETIME: 100 ns since 1601-01-01 UTC.
    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }
    /// The timestamp as a `SystemTime`.
    pub fn time(&self) -> SystemTime {
        crate::decode::filetime(self.timestamp)
    }
    /// The decoded event: [`Status::NOT_FOUND`] when no kernel class describes
    /// it, [`Status::INVALID_DATA`] when its payload does not match its class.
    pub fn decoded(&self) -> Result<&DecodedEvent> {
        self.decoded.as_ref().map_err(Clone::clone)
    }
    /// The top-level field `name`, or None (also when the event does not decode).
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.decoded.as_ref().ok()?.field(name)
    }
    /// The field `name` as a `T` (see [`DecodedEvent::get`]).
    pub fn get<T: FromValue>(&self, name: &str) -> Result<T> {
        self.decoded()?.get(name)
    }
}

type Callback = Box<dyn FnMut(&KernelEvent) + Send + 'static>;

/// Builds a [`KernelTrace`]: `KernelTrace::new(flags).name(..).on(..).start()`.
pub struct KernelTraceBuilder {
    flags: KernelFlags,
    name: String,
    buffer_size: u32,
    callbacks: Vec<(KernelFilter, Callback)>,
}

impl KernelTraceBuilder {
    /// The session name (default [`KERNEL_LOGGER_NAME`]); any other name starts
    /// a system logger of its own (`SYSTEM_LOGGER_MODE`), so several can run at once.
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.to_owned();
        self
    }

    /// BufferSize in KB (0: the library's default).
    pub fn buffer_size(mut self, kilobytes: u32) -> Self {
        self.buffer_size = kilobytes;
        self
    }

    /// The closure called for every event, on the trace's thread.
    pub fn on_event(self, f: impl FnMut(&KernelEvent) + Send + 'static) -> Self {
        self.on(KernelFilter::All, f)
    }

    /// The closure called for the events `filter` selects ("Process/Start",
    /// "Process", ("Process", 2)), on the trace's thread, in time order.
    pub fn on(mut self, filter: impl Into<KernelFilter>, f: impl FnMut(&KernelEvent) + Send + 'static) -> Self {
        self.callbacks.push((filter.into(), Box::new(f)));
        self
    }

    /// Starts the session (its DCStart rundown describes what runs) and the
    /// delivery thread. [`Status::NOT_SUPPORTED`] for a flag this system does
    /// not serve, [`Status::ACCESS_DENIED`] without the right to read kernel
    /// events, [`Status::ALREADY_EXISTS`] when a session has the name; no
    /// session is left running then.
    pub fn start(self) -> Result<KernelTrace> {
        let mut props = Properties::new(&self.name)?;
        let mut mode = LogFileMode::REAL_TIME;
        if !self.name.eq_ignore_ascii_case(KERNEL_LOGGER_NAME) {
            mode |= LogFileMode::SYSTEM_LOGGER; // the kernel logger's name makes it one already
        }
        props.set_log_file_mode(mode)?;
        props.set_enable_flags(self.flags)?;
        if self.buffer_size != 0 {
            props.set_buffer_size(self.buffer_size)?;
        }
        let session = Session::start(&mut props)?; // dropped (so stopped) if anything below fails
        let mut callbacks = self.callbacks;
        let consumer = Consumer::builder()
            .on_record(move |record| {
                let event = KernelEvent::new(record);
                for (filter, f) in callbacks.iter_mut() {
                    if filter.matches(event.event_name(), event.class_name(), event.opcode) {
                        f(&event);
                    }
                }
                ControlFlow::Continue(())
            })
            .open_session(&self.name)?;
        let canceller = consumer.canceller();
        let thread = std::thread::Builder::new()
            .name(format!("KernelTrace {}", self.name))
            .spawn(move || {
                let mut consumer = consumer;
                consumer.process()
            })
            .map_err(|e| Error::new(Status::NO_SYSTEM_RESOURCES, format!("cannot start a thread: {e}")))?;
        Ok(KernelTrace { flags: self.flags, name: self.name, session, thread: Some(thread), canceller, stats: None })
    }
}

/// A running kernel trace; see [`KernelTrace::new`]. Dropping it stops the
/// session and waits for the delivery thread (errors and a panic of a
/// closure are then lost: call [`stop`](Self::stop) to get them).
///
/// ```no_run
/// use openetw::{KernelFlags, KernelTrace};
/// let trace = KernelTrace::new("process,thread".parse::<KernelFlags>()?)
///     .name("My kernel trace")
///     .on("Process/Start", |e| println!("{} {:?}", e.get::<u32>("ProcessId").unwrap(), e.field("ImageFileName")))
///     .start()?;
/// // ...
/// trace.stop()?;
/// # Ok::<(), openetw::Error>(())
/// ```
pub struct KernelTrace {
    flags: KernelFlags,
    name: String,
    session: Session,
    thread: Option<JoinHandle<Result<()>>>,
    canceller: Canceller,
    stats: Option<Statistics>,
}

impl KernelTrace {
    /// A builder for a kernel trace of `flags` (`KernelFlags::PROCESS | ..`,
    /// or names: `"process,thread".parse()?`).
    #[allow(clippy::new_ret_no_self)]
    pub fn new(flags: KernelFlags) -> KernelTraceBuilder {
        KernelTraceBuilder { flags, name: KERNEL_LOGGER_NAME.to_owned(), buffer_size: 0, callbacks: Vec::new() }
    }

    /// The flags it records.
    pub fn flags(&self) -> KernelFlags {
        self.flags
    }

    /// The session name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The session, for control calls (query, flush).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Stops the session and returns once every event it logged was
    /// delivered and the thread has ended, with the final statistics. A
    /// panic of a closure is resumed here.
    pub fn stop(mut self) -> Result<Statistics> {
        crate::trace::finish_delivery(&self.session, &mut self.thread, &self.canceller, &mut self.stats)
    }
}

impl Drop for KernelTrace {
    fn drop(&mut self) {
        crate::trace::drop_delivery(&self.session, &mut self.thread, &self.canceller);
    }
}
