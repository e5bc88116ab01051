//! Traces off the machine: a NATS JetStream stream that sessions export to,
//! read back as files are read, and collected into one `.etl` per machine,
//! session and start (docs/FLEET.md; `properties.h`, `consumer.h`,
//! `collect.h`).

use std::ffi::{CStr, CString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::ptr;

use crate::error::{check, Error, Result, Status};
use crate::{sys, Consumer, ConsumerBuilder, Properties};

fn c_text(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::new(Status::INVALID_PARAMETER, format!("{what} contains a NUL character")))
}

fn c_path(path: &Path, what: &str) -> Result<CString> {
    let text = path.to_str().ok_or_else(|| Error::new(Status::INVALID_PARAMETER, format!("{what} is not UTF-8")))?;
    c_text(text, what)
}

fn opt_ptr(text: &Option<CString>) -> *const core::ffi::c_char {
    text.as_ref().map_or(ptr::null(), |t| t.as_ptr())
}

fn owned(text: *const core::ffi::c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
}

/// A NATS JetStream stream, `nats://HOST[:PORT]/STREAM` (the nodes of a
/// cluster separated by commas).
///
/// The credentials file (`key = value` lines: user, password, token, creds,
/// nkey_seed, tls_*) goes to [`export`](Self::export), [`open`](Self::open)
/// and [`collect`](Self::collect); without one the library takes the file
/// the environment variable `OPENETW_NATS_CREDENTIALS` names. Credentials
/// are never part of the URL.
///
/// Following the stream, from another thread, until cancelled:
///
/// ```no_run
/// # use openetw::{Consumer, NatsStream, Order, Status};
/// # use std::ops::ControlFlow;
/// let stream = NatsStream::new("nats://collector:4222/ETW");
/// let builder = Consumer::builder().follow(true).order(Order::File).on_event(|e| {
///     println!("file {} type {}", e.record().file_index(), e.event_type());
///     ControlFlow::Continue(())
/// });
/// let mut consumer = stream.open(builder)?;
/// let canceller = consumer.canceller();
/// let follower = std::thread::spawn(move || (consumer.process(), consumer));
/// // ...
/// canceller.cancel();
/// let (outcome, consumer) = follower.join().unwrap();
/// assert_eq!(outcome.unwrap_err().status(), Status::CANCELLED);
/// let source = consumer.stream_source(0); // machine and session of file 0
/// # Ok::<(), openetw::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NatsStream {
    url: String,
    credentials_file: Option<PathBuf>,
}

impl NatsStream {
    /// The stream at `url`, without a credentials file.
    pub fn new(url: impl Into<String>) -> Self {
        NatsStream { url: url.into(), credentials_file: None }
    }

    /// The same stream with a credentials file for export and collect.
    pub fn with_credentials(mut self, file: impl Into<PathBuf>) -> Self {
        self.credentials_file = Some(file.into());
        self
    }

    /// The stream's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn credentials(&self) -> Result<Option<CString>> {
        self.credentials_file.as_deref().map(|p| c_path(p, "credentials file")).transpose()
    }

    /// Makes a session started from `props` also publish every buffer to
    /// this stream (`etw_properties_set_export`). The start then fails with
    /// [`Status::ACCESS_DENIED`] when the server refuses the credentials and
    /// [`Status::FILE_NOT_FOUND`] when no server answers.
    pub fn export(&self, props: &mut Properties) -> Result<()> {
        let url = c_text(&self.url, "stream URL")?;
        let creds = self.credentials()?;
        check(unsafe { sys::etw_properties_set_export(props.as_raw(), url.as_ptr(), opt_ptr(&creds)) })
    }

    /// Reads the stream from its start to its last message now, with the
    /// builder's callbacks: each machine's session instance is one file of
    /// the consumer, read as its `.etl` file would be. A record's
    /// `file_index` names its source ([`Consumer::stream_source`]). With
    /// [`ConsumerBuilder::follow`] it goes on with every buffer published
    /// after that, until cancelled (a [`Canceller`](crate::Canceller));
    /// the sources of a followed consumer's files are read once `process`
    /// has returned.
    pub fn open<'a>(&self, builder: ConsumerBuilder<'a>) -> Result<Consumer<'a>> {
        builder.open_stream(&self.url, self.credentials_file.as_deref())
    }

    /// As [`open`](Self::open), from a UTC time `YYYY-MM-DDTHH:MM:SSZ`.
    pub fn open_since<'a>(&self, since: &str, builder: ConsumerBuilder<'a>) -> Result<Consumer<'a>> {
        builder.open_stream(&format!("{}?since={since}", self.url), self.credentials_file.as_deref())
    }

    /// A collect of this stream into `folder` (an existing folder); set
    /// filters on the [`Collect`] and [`run`](Collect::run) it.
    pub fn collect(&self, folder: impl AsRef<Path>) -> Collect<'_> {
        Collect { stream: self, folder: folder.as_ref().to_path_buf(), machine: None, session: None, overwrite: false }
    }
}

/// The machine's session instance a file of a stream consumer came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StreamSource {
    /// The host name.
    pub machine: String,
    /// The session name.
    pub session: String,
    /// The session's StartTime, FILETIME (UTC).
    pub start_time: i64,
}

// %XX escapes of a subject token back to bytes; "%" alone is the empty name.
fn unescape(token: &str) -> Option<String> {
    if token == "%" {
        return Some(String::new());
    }
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = token.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl Consumer<'_> {
    /// The source of file `file_index` of a consumer opened on a stream,
    /// or `None` for a file that did not come from one (or an index out of
    /// range).
    pub fn stream_source(&self, file_index: u32) -> Option<StreamSource> {
        // The reader names each file "URL#machine/session/start", names
        // escaped as subject tokens, so neither part holds a '/' of its own.
        let path = self.logfile_header(file_index).ok()?.path;
        let (_, tail) = path.rsplit_once('#')?;
        let mut parts = tail.split('/');
        let (machine, session, start) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        Some(StreamSource { machine: unescape(machine)?, session: unescape(session)?, start_time: start.parse().ok()? })
    }
}

/// What became of a collected session instance's file (`ETW_COLLECT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectOutcome {
    /// A new file.
    Written,
    /// The file existed with these very bytes.
    Unchanged,
    /// The file existed with other bytes; overwrite replaced it.
    Replaced,
    /// The file existed with other bytes and was left alone.
    Kept,
    /// The stream no longer holds the header buffer: no file could begin.
    NoFile,
    /// Writing the file failed (see [`CollectedFile::error`]).
    Failed,
}

impl CollectOutcome {
    fn from_raw(v: u32) -> Self {
        match v {
            sys::ETW_COLLECT_WRITTEN => Self::Written,
            sys::ETW_COLLECT_UNCHANGED => Self::Unchanged,
            sys::ETW_COLLECT_REPLACED => Self::Replaced,
            sys::ETW_COLLECT_KEPT => Self::Kept,
            sys::ETW_COLLECT_NO_FILE => Self::NoFile,
            _ => Self::Failed,
        }
    }
}

/// One session instance of a collected stream and what became of its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectedFile {
    /// `FOLDER/MACHINE.SESSION.START.etl`, the names escaped.
    pub path: PathBuf,
    /// The host name the session's export sent.
    pub machine: String,
    /// The session name.
    pub session: String,
    /// The session's StartTime, FILETIME (UTC).
    pub start_time: i64,
    /// The start as the file name gives it, UTC `YYYYMMDDTHHMMSS.fffffffZ`.
    pub start_utc: String,
    /// What was done with the file.
    pub outcome: CollectOutcome,
    /// Data buffers in the file.
    pub data_buffers: u64,
    /// The stream held all of it: the file is the session's own.
    pub complete: bool,
    /// Sentences saying what the stream lacks; empty when complete.
    pub missing: Vec<String>,
    /// Why the file was kept or not written; empty otherwise.
    pub error: String,
}

/// What a collect did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CollectReport {
    /// The files, in (machine, session, start) order.
    pub files: Vec<CollectedFile>,
    /// Instances the session filter left out (the machine filter is the
    /// server's: what it leaves out is never read).
    pub skipped: u64,
}

/// A collect that did not rebuild every selected instance whole: the error
/// says why ([`Status::ALREADY_EXISTS`] a file kept, [`Status::HANDLE_EOF`]
/// an instance incomplete, `NO_MORE_ITEMS` nothing matched, or the reader's
/// status), the report what was done (empty when the stream could not be
/// read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectError {
    /// The status and the library's message.
    pub error: Error,
    /// The files as far as the collect went.
    pub report: CollectReport,
}

impl fmt::Display for CollectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for CollectError {}

impl From<CollectError> for Error {
    fn from(e: CollectError) -> Error {
        e.error
    }
}

/// A collect being set up ([`NatsStream::collect`]).
#[derive(Debug)]
pub struct Collect<'s> {
    stream: &'s NatsStream,
    folder: PathBuf,
    machine: Option<String>,
    session: Option<String>,
    overwrite: bool,
}

// Frees the report whatever happens.
struct ReportHandle(*mut sys::etw_collect_report);

impl Drop for ReportHandle {
    fn drop(&mut self) {
        unsafe { sys::etw_collect_report_destroy(self.0) }
    }
}

impl Collect<'_> {
    /// Only this host name (compared as written).
    pub fn machine(mut self, machine: &str) -> Self {
        self.machine = Some(machine.to_owned());
        self
    }

    /// Only this session name (compared case-insensitively).
    pub fn session(mut self, session: &str) -> Self {
        self.session = Some(session.to_owned());
        self
    }

    /// Replace a file that exists with other contents.
    pub fn overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// Rebuilds each selected session instance as a file
    /// (`etw_collect_stream`). Ok only when every one was complete and its
    /// file written or unchanged.
    pub fn run(self) -> core::result::Result<CollectReport, CollectError> {
        let fail = |error: Error| CollectError { error, report: CollectReport::default() };
        let url = c_text(&self.stream.url, "stream URL").map_err(fail)?;
        let folder = c_path(&self.folder, "folder").map_err(fail)?;
        let machine = self.machine.as_deref().map(|m| c_text(m, "machine")).transpose().map_err(fail)?;
        let session = self.session.as_deref().map(|s| c_text(s, "session")).transpose().map_err(fail)?;
        let creds = self.stream.credentials().map_err(fail)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::etw_collect_report_create(&mut raw) }).map_err(fail)?;
        let handle = ReportHandle(raw);
        let flags = if self.overwrite { sys::ETW_COLLECT_OVERWRITE } else { 0 };
        let status = unsafe {
            sys::etw_collect_stream(
                handle.0,
                url.as_ptr(),
                folder.as_ptr(),
                opt_ptr(&machine),
                opt_ptr(&session),
                opt_ptr(&creds),
                flags,
            )
        };
        let outcome = check(status); // the message, before any other call
        let mut count = 0u32;
        let mut skipped = 0u64;
        unsafe {
            sys::etw_collect_report_file_count(&mut count, handle.0);
            sys::etw_collect_report_skipped(&mut skipped, handle.0);
        }
        let mut files = Vec::with_capacity(count as usize);
        for i in 0..count {
            let mut f: sys::etw_collected_file = unsafe { core::mem::zeroed() };
            f.struct_size = core::mem::size_of::<sys::etw_collected_file>() as u32;
            if unsafe { sys::etw_collect_report_file(&mut f, handle.0, i) } != sys::ETW_OK {
                continue;
            }
            let missing = owned(f.missing);
            files.push(CollectedFile {
                path: PathBuf::from(owned(f.path)),
                machine: owned(f.machine),
                session: owned(f.session),
                start_time: f.start_time,
                start_utc: owned(f.start_utc),
                outcome: CollectOutcome::from_raw(f.outcome),
                data_buffers: f.data_buffers,
                complete: f.complete != 0,
                missing: if missing.is_empty() { Vec::new() } else { missing.split('\n').map(str::to_owned).collect() },
                error: owned(f.error),
            });
        }
        let report = CollectReport { files, skipped };
        match outcome {
            Ok(()) => Ok(report),
            Err(error) => Err(CollectError { error, report }),
        }
    }
}
