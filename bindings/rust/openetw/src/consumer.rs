//! Consumers (consumer.h): read .etl files or a live real-time session and
//! call closures for buffers, records and classic events.
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ops::ControlFlow;
use core::ptr::{self, NonNull};
use std::ffi::CString;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use openetw_sys as sys;

use crate::callbacks::{catch, free_box, Payload};
use crate::error::{check, Result};
use crate::logfile::{ConsumerStats, LogfileInfo};
use crate::records::{BufferInfo, ClassicEvent, EventRecord, LossInfo, Record};
use crate::session::{c_path, c_string};

/// The order records are delivered in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Each processor's buffers by sequence, merged by timestamp across
    /// processors and files, as ProcessTrace does (the default).
    #[default]
    Time,
    /// File by file, buffer by buffer as stored, records by offset.
    File,
}

// The closures, boxed once more so C gets a thin pointer. `Send`: the
// consumer (which owns them) may move to another thread to process.
type BufferFn<'a> = dyn FnMut(&BufferInfo<'_>) -> ControlFlow<()> + Send + 'a;
type RecordFn<'a> = dyn FnMut(&Record<'_>) -> ControlFlow<()> + Send + 'a;
type EventFn<'a> = dyn FnMut(&ClassicEvent<'_>) -> ControlFlow<()> + Send + 'a;
type EventRecordFn<'a> = dyn FnMut(&EventRecord<'_>) -> ControlFlow<()> + Send + 'a;
type LossFn<'a> = dyn FnMut(&LossInfo) -> ControlFlow<()> + Send + 'a;
type RawBufferFn<'a> = dyn FnMut(&[u8]) -> ControlFlow<()> + Send + 'a;

/// Everything user_data points at: the closures and the first panic caught.
#[derive(Default)]
struct Handlers<'a> {
    buffer: Option<Box<BufferFn<'a>>>,
    record: Option<Box<RecordFn<'a>>>,
    event: Option<Box<EventFn<'a>>>,
    event_record: Option<Box<EventRecordFn<'a>>>,
    loss: Option<Box<LossFn<'a>>>,
    raw_buffer: Option<Box<RawBufferFn<'a>>>,
    panic: Option<Payload>,
}

// Runs one closure for C: 0 to continue, 1 to stop (on Break or a panic,
// which is kept for process() to resume).
unsafe fn dispatch(user_data: *mut c_void, call: impl FnOnce(&mut Handlers<'_>) -> ControlFlow<()>) -> i32 {
    // Safety: user_data is the Handlers box given to open; the library calls
    // back only on the thread inside process(&mut self), one call at a time,
    // and frees the box (user_data_free) only at close.
    let handlers = unsafe { &mut *(user_data as *mut Handlers<'_>) };
    if handlers.panic.is_some() {
        return 1; // a closure panicked: call none again
    }
    match catch(|| call(&mut *handlers)) {
        Ok(ControlFlow::Continue(())) => 0,
        Ok(ControlFlow::Break(())) => 1,
        Err(payload) => {
            handlers.panic = Some(payload);
            1
        }
    }
}

unsafe extern "C" fn on_buffer(user_data: *mut c_void, info: *const sys::etw_buffer_info) -> i32 {
    let info = unsafe { BufferInfo::new(&*info) };
    unsafe { dispatch(user_data, |h| h.buffer.as_mut().map_or(ControlFlow::Continue(()), |f| f(&info))) }
}

unsafe extern "C" fn on_record(user_data: *mut c_void, record: *const sys::etw_record) -> i32 {
    let record = unsafe { Record::new(&*record) };
    unsafe { dispatch(user_data, |h| h.record.as_mut().map_or(ControlFlow::Continue(()), |f| f(&record))) }
}

unsafe extern "C" fn on_event(user_data: *mut c_void, event: *const sys::etw_classic_event) -> i32 {
    let event = unsafe { ClassicEvent::new(&*event) };
    unsafe { dispatch(user_data, |h| h.event.as_mut().map_or(ControlFlow::Continue(()), |f| f(&event))) }
}

unsafe extern "C" fn on_event_record(user_data: *mut c_void, event: *const sys::etw_event_record) -> i32 {
    let event = unsafe { EventRecord::new(&*event) };
    unsafe { dispatch(user_data, |h| h.event_record.as_mut().map_or(ControlFlow::Continue(()), |f| f(&event))) }
}

unsafe extern "C" fn on_loss(user_data: *mut c_void, info: *const sys::etw_loss_info) -> i32 {
    let info = unsafe { &*info };
    let info = LossInfo { events_lost: info.events_lost, buffers_lost: info.buffers_lost };
    unsafe { dispatch(user_data, |h| h.loss.as_mut().map_or(ControlFlow::Continue(()), |f| f(&info))) }
}

unsafe extern "C" fn on_raw_buffer(user_data: *mut c_void, data: *const u8, size: u32) -> i32 {
    let data = if data.is_null() { &[][..] } else { unsafe { core::slice::from_raw_parts(data, size as usize) } };
    unsafe { dispatch(user_data, |h| h.raw_buffer.as_mut().map_or(ControlFlow::Continue(()), |f| f(data))) }
}

unsafe extern "C" fn free_handlers(user_data: *mut c_void) {
    unsafe { free_box(user_data as *mut Handlers<'_>) }
}

/// Sets up a [`Consumer`]: order, timestamps and closures, then opens files
/// or a live session. Closures return `ControlFlow::Continue(())` to go on
/// and `ControlFlow::Break(())` to stop processing (process then fails with
/// `Status::CANCELLED`). They receive views borrowed for the call only.
#[derive(Default)]
pub struct ConsumerBuilder<'a> {
    flags: u32,
    handlers: Handlers<'a>,
}

impl<'a> ConsumerBuilder<'a> {
    /// A builder: time order, FILETIME timestamps, no closures.
    pub fn new() -> Self {
        Self::default()
    }

    /// The delivery order (files only; live consumers deliver in arrival order).
    pub fn order(mut self, order: Order) -> Self {
        self.flags = (self.flags & !sys::ETW_CONSUMER_ORDER_FILE)
            | if order == Order::File { sys::ETW_CONSUMER_ORDER_FILE } else { sys::ETW_CONSUMER_ORDER_TIME };
        self
    }

    /// Keeps timestamps as raw session-clock values instead of FILETIME.
    pub fn raw_timestamps(mut self, raw: bool) -> Self {
        self.flags = (self.flags & !sys::ETW_CONSUMER_RAW_TIMESTAMP) | if raw { sys::ETW_CONSUMER_RAW_TIMESTAMP } else { 0 };
        self
    }

    /// Follows a stream ([`open_stream`](Self::open_stream), or
    /// [`NatsStream::open`](crate::NatsStream::open)), as `?follow=1` in its
    /// URL does: `process` reads what the stream holds, then every buffer
    /// sessions publish to it, until a [`Canceller`] (or drop) ends it with
    /// `Err` of status `CANCELLED`, after delivering what it had fetched. A
    /// session instance becomes a new file index when its header buffer
    /// arrives (so `file_count` grows while processing); records come once
    /// they are 3 s old in time order, as they arrive in [`Order::File`].
    /// With files, the open fails with `INVALID_PARAMETER`.
    pub fn follow(mut self, follow: bool) -> Self {
        self.flags = (self.flags & !sys::ETW_CONSUMER_FOLLOW) | if follow { sys::ETW_CONSUMER_FOLLOW } else { 0 };
        self
    }

    /// Called after each buffer's last record (also for buffers with none).
    pub fn on_buffer(mut self, f: impl FnMut(&BufferInfo<'_>) -> ControlFlow<()> + Send + 'a) -> Self {
        self.handlers.buffer = Some(Box::new(f));
        self
    }

    /// Called for every record of every kind.
    pub fn on_record(mut self, f: impl FnMut(&Record<'_>) -> ControlFlow<()> + Send + 'a) -> Self {
        self.handlers.record = Some(Box::new(f));
        self
    }

    /// Called for classic records (FULL and INSTANCE kinds), after the record closure.
    pub fn on_event(mut self, f: impl FnMut(&ClassicEvent<'_>) -> ControlFlow<()> + Send + 'a) -> Self {
        self.handlers.event = Some(Box::new(f));
        self
    }

    /// EVENT_HEADER records (manifest-based, TraceLogging), EVENT_RECORD-style,
    /// after the record closure.
    pub fn on_event_record(mut self, f: impl FnMut(&EventRecord<'_>) -> ControlFlow<()> + Send + 'a) -> Self {
        self.handlers.event_record = Some(Box::new(f));
        self
    }

    /// Live consumers: told before a buffer how much the session lost since
    /// the last notification. File consumers never call it.
    pub fn on_loss(mut self, f: impl FnMut(&LossInfo) -> ControlFlow<()> + Send + 'a) -> Self {
        self.handlers.loss = Some(Box::new(f));
        self
    }

    /// Live consumers: each buffer's bytes before its records. File consumers never call it.
    pub fn on_raw_buffer(mut self, f: impl FnMut(&[u8]) -> ControlFlow<()> + Send + 'a) -> Self {
        self.handlers.raw_buffer = Some(Box::new(f));
        self
    }

    // The options block; the library owns the Handlers box from here on
    // (it frees it at close, or before a failed open returns).
    fn into_options(self) -> (sys::etw_consumer_options, *mut Handlers<'a>) {
        let h = &self.handlers;
        let options = sys::etw_consumer_options {
            struct_size: core::mem::size_of::<sys::etw_consumer_options>() as u32,
            flags: self.flags,
            buffer: h.buffer.as_ref().map(|_| on_buffer as _),
            record: h.record.as_ref().map(|_| on_record as _),
            event: h.event.as_ref().map(|_| on_event as _),
            user_data: ptr::null_mut(),
            user_data_free: Some(free_handlers),
            event_record: h.event_record.as_ref().map(|_| on_event_record as _),
        };
        let handlers = Box::into_raw(Box::new(self.handlers));
        (sys::etw_consumer_options { user_data: handlers.cast(), ..options }, handlers)
    }

    /// Opens one .etl file.
    pub fn open_file(self, path: impl AsRef<Path>) -> Result<Consumer<'a>> {
        self.open_files(&[path.as_ref()])
    }

    /// Opens several .etl files into one consumer (each file's header is read now).
    pub fn open_files<P: AsRef<Path>>(self, paths: &[P]) -> Result<Consumer<'a>> {
        // Convert before the library owns the closures: errors here drop them normally.
        let paths: Vec<CString> = paths.iter().map(|p| c_path(p.as_ref())).collect::<Result<_>>()?;
        let pointers: Vec<*const core::ffi::c_char> = paths.iter().map(|p| p.as_ptr()).collect();
        let (options, handlers) = self.into_options();
        let mut raw = ptr::null_mut();
        check(unsafe { sys::etw_consumer_open(&mut raw, pointers.as_ptr(), pointers.len() as u32, &options) })?;
        Ok(Consumer::new(raw, handlers))
    }

    /// Opens a NATS JetStream stream, `nats://HOST[:PORT]/STREAM[?since=UTC]`,
    /// as a file is opened: each machine's session instance is one file
    /// (`etw_consumer_open_stream`); followed with [`follow`](Self::follow). `credentials_file`: the stream's
    /// `key = value` file; `None` for the file `OPENETW_NATS_CREDENTIALS` names.
    pub fn open_stream(self, url: &str, credentials_file: Option<&Path>) -> Result<Consumer<'a>> {
        let url = c_string(url, "stream URL")?;
        let creds = credentials_file.map(c_path).transpose()?;
        let (options, handlers) = self.into_options();
        let mut raw = ptr::null_mut();
        let creds_ptr = creds.as_ref().map_or(ptr::null(), |c| c.as_ptr());
        check(unsafe { sys::etw_consumer_open_stream(&mut raw, url.as_ptr(), creds_ptr, &options) })?;
        Ok(Consumer::new(raw, handlers))
    }

    /// Opens a live consumer of the running real-time session `name`: the
    /// backlog first, then every buffer the session flushes, until it stops.
    pub fn open_session(self, name: &str) -> Result<Consumer<'a>> {
        let name = c_string(name, "session name")?;
        let (loss, raw_buffer) = (self.handlers.loss.is_some(), self.handlers.raw_buffer.is_some());
        let (options, handlers) = self.into_options();
        let mut raw = ptr::null_mut();
        check(unsafe { sys::etw_consumer_open_session(&mut raw, name.as_ptr(), &options) })?;
        let consumer = Consumer::new(raw, handlers); // closes (and frees) on an error below
        if loss {
            check(unsafe { sys::etw_consumer_set_loss_callback(raw, Some(on_loss)) })?;
        }
        if raw_buffer {
            check(unsafe { sys::etw_consumer_set_raw_buffer_callback(raw, Some(on_raw_buffer)) })?;
        }
        Ok(consumer)
    }
}

// The consumer pointer a Canceller may use: null once the consumer is closed.
struct Slot(*mut sys::etw_consumer);
// consumer.h: "etw_consumer_cancel may be called from any thread"; the
// mutex keeps it from racing etw_consumer_close ("must not race").
unsafe impl Send for Slot {}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Cancels a consumer's processing from any thread; cloneable, `Send` and
/// `Sync`. After the consumer is dropped, cancelling does nothing.
#[derive(Clone)]
pub struct Canceller {
    slot: Arc<Mutex<Slot>>,
}

impl Canceller {
    /// Stops processing: the running `process` returns `CANCELLED` after the
    /// closure in progress returns, and later calls return it at once
    /// (permanent). Returns false when the consumer no longer exists.
    pub fn cancel(&self) -> bool {
        let slot = lock(&self.slot);
        if slot.0.is_null() {
            return false;
        }
        // Only fails for NULL, excluded above.
        unsafe { sys::etw_consumer_cancel(slot.0) };
        true
    }
}

impl core::fmt::Debug for Canceller {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Canceller").finish_non_exhaustive()
    }
}

/// A consumer of .etl files or of a live session. Its closures run only on
/// the thread inside [`process`](Self::process); a panic in one stops
/// processing and is resumed from `process`. Dropping it closes it and drops
/// each closure exactly once.
pub struct Consumer<'a> {
    raw: NonNull<sys::etw_consumer>,
    handlers: *mut Handlers<'a>,
    slot: Arc<Mutex<Slot>>,
    _closures: PhantomData<Handlers<'a>>,
}

// consumer.h: callbacks run only on the thread inside etw_consumer_process,
// so the consumer may move between threads with its (Send) closures.
unsafe impl Send for Consumer<'_> {}
// consumer.h: the other functions may be called from any thread as long as
// they do not race etw_consumer_close (only Drop, with exclusive access,
// closes); process takes &mut self, so &self never reaches the closures.
unsafe impl Sync for Consumer<'_> {}

impl<'a> Consumer<'a> {
    /// A builder (time order, FILETIME timestamps, no closures).
    pub fn builder() -> ConsumerBuilder<'a> {
        ConsumerBuilder::new()
    }

    fn new(raw: *mut sys::etw_consumer, handlers: *mut Handlers<'a>) -> Self {
        let raw = NonNull::new(raw).expect("libopenetw returned success and NULL");
        Consumer { raw, handlers, slot: Arc::new(Mutex::new(Slot(raw.as_ptr()))), _closures: PhantomData }
    }

    /// Reads everything (files: from the beginning again on each call; live:
    /// blocks until the session stops, continuing where the last call
    /// stopped), calling the closures on this thread.
    /// Errors: `CANCELLED` (a closure broke, or a Canceller), file problems
    /// (status and message naming file and offset), `BUSY`. A closure's
    /// panic is resumed here once the library has returned.
    pub fn process(&mut self) -> Result<()> {
        let result = check(unsafe { sys::etw_consumer_process(self.raw.as_ptr()) });
        // Safety: the box lives until close (Drop); no callback runs now.
        if let Some(payload) = unsafe { (*self.handlers).panic.take() } {
            std::panic::resume_unwind(payload);
        }
        result
    }

    /// A handle that cancels processing from any thread.
    pub fn canceller(&self) -> Canceller {
        Canceller { slot: Arc::clone(&self.slot) }
    }

    /// Cancels processing (permanent); see [`Canceller::cancel`].
    pub fn cancel(&self) {
        unsafe { sys::etw_consumer_cancel(self.raw.as_ptr()) };
    }

    /// Number of files opened (1 for a live consumer).
    pub fn file_count(&self) -> u32 {
        let mut count = 0;
        check(unsafe { sys::etw_consumer_file_count(&mut count, self.raw.as_ptr()) }).expect("file_count of an open consumer");
        count
    }

    /// The logfile header facts of file `file_index` (for a live consumer,
    /// file 0 describes the session).
    pub fn logfile_header(&self, file_index: u32) -> Result<LogfileInfo> {
        let mut info = core::mem::MaybeUninit::<sys::etw_logfile_info>::zeroed();
        unsafe { (*info.as_mut_ptr()).struct_size = core::mem::size_of::<sys::etw_logfile_info>() as u32 };
        check(unsafe { sys::etw_consumer_logfile_header(info.as_mut_ptr(), self.raw.as_ptr(), file_index) })?;
        Ok(LogfileInfo::from_sys(unsafe { info.assume_init_ref() }))
    }

    /// Counters of the last `process`.
    pub fn stats(&self) -> Result<ConsumerStats> {
        let mut stats = core::mem::MaybeUninit::<sys::etw_consumer_stats>::zeroed();
        unsafe { (*stats.as_mut_ptr()).struct_size = core::mem::size_of::<sys::etw_consumer_stats>() as u32 };
        check(unsafe { sys::etw_consumer_get_stats(stats.as_mut_ptr(), self.raw.as_ptr()) })?;
        Ok(ConsumerStats::from_sys(unsafe { stats.assume_init_ref() }))
    }

    /// The raw consumer, for calls this crate does not wrap. Do not close it.
    pub fn as_raw(&self) -> *mut sys::etw_consumer {
        self.raw.as_ptr()
    }
}

impl Drop for Consumer<'_> {
    fn drop(&mut self) {
        // Cancellers see null from now on, so none can race the close.
        let raw = core::mem::replace(&mut lock(&self.slot).0, ptr::null_mut());
        // No process runs (it needs &mut self): close frees the closures via
        // user_data_free, exactly once.
        unsafe { sys::etw_consumer_close(raw) };
    }
}

impl core::fmt::Debug for Consumer<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Consumer").field("file_count", &self.file_count()).finish()
    }
}
