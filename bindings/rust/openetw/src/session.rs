//! Trace sessions (session.h): StartTrace, ControlTrace, QueryAllTraces,
//! EnableTraceEx2.
use core::ptr::{self, NonNull};
use core::sync::atomic::{AtomicBool, Ordering};
use std::ffi::CString;
use std::path::Path;

use openetw_sys as sys;

use crate::callbacks::{resume_enable_panic, resume_enable_panic_unless_unwinding};
use crate::error::{check, Error, Result, Status};
use crate::filter::{descriptors, EnableOptions, Filter};
use crate::properties::Properties;
use crate::types::{Guid, SessionRights};

/// The statistics a session reports on query, flush and stop (the output
/// members of EVENT_TRACE_PROPERTIES).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Buffers allocated.
    pub number_of_buffers: u32,
    /// Buffers free.
    pub free_buffers: u32,
    /// Events dropped (no free buffer, or a full real-time backlog).
    pub events_lost: u32,
    /// Buffers written to the log file.
    pub buffers_written: u32,
    /// Buffers that could not be written to the log file.
    pub log_buffers_lost: u32,
    /// Buffers no real-time consumer got.
    pub real_time_buffers_lost: u32,
    /// The logger thread.
    pub logger_thread_id: u64,
}

impl Statistics {
    /// The output members of `props`.
    pub fn of(props: &Properties) -> Self {
        Statistics {
            number_of_buffers: props.number_of_buffers(),
            free_buffers: props.free_buffers(),
            events_lost: props.events_lost(),
            buffers_written: props.buffers_written(),
            log_buffers_lost: props.log_buffers_lost(),
            real_time_buffers_lost: props.real_time_buffers_lost(),
            logger_thread_id: props.logger_thread_id(),
        }
    }
}

/// Options beyond EVENT_TRACE_PROPERTIES (`etw_session_options`); zero
/// members take their defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionOptions {
    /// Writers wait (bounded) for space instead of dropping events.
    pub lossless: bool,
    /// Longest wait of a lossless writer in ms; 0 = 1000.
    pub lossless_timeout_ms: u32,
    /// Buffers kept while no real-time consumer is attached; 0 = the maximum.
    pub realtime_backlog_buffers: u32,
    /// At start: an orphaned session holding the name (its host process
    /// died) is stopped first, its log file finished. Not reported by
    /// [`Session::options`].
    pub replace_orphan: bool,
    /// At start: the orphaned session holding the name is stopped (every
    /// committed buffer written) and goes on in this process with its last
    /// settings (`props` gives only the name and receives what started),
    /// appending to its sequential log file, its providers enabled again.
    /// [`Status::WMI_INSTANCE_NOT_FOUND`] when no orphan has the name,
    /// [`Status::ALREADY_EXISTS`] when its host is alive; not with
    /// `replace_orphan` ([`Status::INVALID_PARAMETER`]). Not reported by
    /// [`Session::options`].
    pub take_over_orphan: bool,
    /// At start: the session runs in this process and ends with it, also
    /// where sessions are system-wide (`ETW_SESSION_IN_PROCESS`). Without it
    /// a start that reaches no session host fails saying why. Not reported
    /// by [`Session::options`].
    pub in_process: bool,
    /// A system logger's sampled profile (the `profile` flag): the interval
    /// in 100 ns units; 0 = 10000 (1 ms), else 1221 to 10000000
    /// ([`Status::INVALID_PARAMETER`] outside).
    pub profile_interval: u32,
}

impl SessionOptions {
    fn to_sys(self) -> sys::etw_session_options {
        sys::etw_session_options {
            struct_size: core::mem::size_of::<sys::etw_session_options>() as u32,
            flags: (if self.lossless { sys::ETW_SESSION_LOSSLESS } else { 0 })
                | (if self.replace_orphan { sys::ETW_SESSION_REPLACE_ORPHAN } else { 0 })
                | (if self.take_over_orphan { sys::ETW_SESSION_TAKE_OVER_ORPHAN } else { 0 })
                | (if self.in_process { sys::ETW_SESSION_IN_PROCESS } else { 0 }),
            lossless_timeout_ms: self.lossless_timeout_ms,
            realtime_backlog_buffers: self.realtime_backlog_buffers,
            profile_interval: self.profile_interval,
            filter_count: 0,
            filters: core::ptr::null(),
        }
    }
}

/// Whether a session's host process is alive (`ETW_SESSION_HOST_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostState {
    /// The host process is alive.
    Running,
    /// The host process died: stop the session to free its name.
    Orphaned,
    /// A value this crate does not know (a newer library).
    Other(u32),
}

/// Where a session runs (`etw_session_host_info`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostInfo {
    /// The process that started the session.
    pub process_id: u32,
    /// Whether that process is alive.
    pub state: HostState,
    /// True when the calling process is the host.
    pub is_local: bool,
}

/// A handle to a running (or stopped) trace session.
///
/// Dropping a handle that *started* its session ([`start`](Self::start))
/// stops the session (errors ignored; call [`stop`](Self::stop) to see them),
/// unless [`detach`](Self::detach) was called: a detached session runs on
/// until someone stops it (the logman workflow: start, detach, exit, and stop
/// it later by name with `etwctl` or [`open`](Self::open)). Dropping a handle
/// from [`open`](Self::open) only closes it. Calls through a handle whose
/// session has stopped fail with [`Status::WMI_INSTANCE_NOT_FOUND`].
///
/// Calls that enable or disable providers (`start` of a private session,
/// `enable_provider`, `disable_provider`, `stop`) run the providers' enable
/// callbacks on the calling thread; a panic in one of them is resumed from
/// that call after the C call has returned.
pub struct Session {
    raw: NonNull<sys::etw_session>,
    // True while dropping this handle must stop the session: started here,
    // not detached, not stopped yet.
    stop_on_drop: AtomicBool,
}

// session.h: "every function here may be called from any thread,
// concurrently with each other and with event writing". Properties objects
// are passed by &mut, so they are never shared.
unsafe impl Send for Session {}
unsafe impl Sync for Session {}

pub(crate) fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::new(Status::INVALID_PARAMETER, format!("{what} contains a NUL character")))
}

pub(crate) fn c_path(path: &Path) -> Result<CString> {
    let text = path.to_str().ok_or_else(|| {
        Error::new(Status::NO_UNICODE_TRANSLATION, format!("path {path:?} is not UTF-8"))
    })?;
    c_string(text, "path")
}

// A scratch object for calls whose caller wants only the statistics.
fn scratch() -> Result<Properties> {
    Properties::new("openetw-rs statistics")
}

impl Session {
    /// Starts a session from `props` (StartTrace). On success `props` holds the
    /// settings the session runs with (adjusted buffer counts, GUID, handle).
    pub fn start(props: &mut Properties) -> Result<Session> {
        Self::start_inner(props, None)
    }

    /// Starts a session with options beyond EVENT_TRACE_PROPERTIES.
    pub fn start_with_options(props: &mut Properties, options: &SessionOptions) -> Result<Session> {
        Self::start_inner(props, Some(options.to_sys()))
    }

    /// Starts a session with options and filters of its own
    /// (EVENT_TRACE_PROPERTIES_V2.FilterDesc), applied to every provider it
    /// enables: [`Filter::pid`] and [`Filter::executable_name`] only
    /// (another type: [`Status::NOT_SUPPORTED`]; bad ones as
    /// [`enable_provider_ex`](Self::enable_provider_ex) says).
    pub fn start_with_filters(props: &mut Properties, options: &SessionOptions, filters: &[Filter]) -> Result<Session> {
        let descriptors = descriptors(filters); // borrowed until the call returns; the library copies them
        let mut native = options.to_sys();
        native.filter_count = descriptors.len().min(u32::MAX as usize) as u32;
        native.filters = if descriptors.is_empty() { ptr::null() } else { descriptors.as_ptr() };
        Self::start_inner(props, Some(native))
    }

    fn start_inner(props: &mut Properties, options: Option<sys::etw_session_options>) -> Result<Session> {
        let mut raw = ptr::null_mut();
        let opts = options.as_ref().map_or(ptr::null(), |o| o as *const _);
        let status = unsafe { sys::etw_session_start_ex(&mut raw, props.as_raw(), opts) };
        let result = check(status).map(|()| {
            let session = Session::from_raw(raw);
            session.stop_on_drop.store(true, Ordering::Relaxed);
            session
        });
        // A private session enables its provider here: its callback may have panicked.
        resume_enable_panic();
        result
    }

    /// Opens a running session by name (case-insensitive) to control it.
    pub fn open(name: &str) -> Result<Session> {
        let name = c_string(name, "session name")?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::etw_session_open(&mut raw, name.as_ptr()) })?;
        Ok(Session::from_raw(raw))
    }

    fn from_raw(raw: *mut sys::etw_session) -> Session {
        Session { raw: NonNull::new(raw).expect("libopenetw returned success and NULL"), stop_on_drop: AtomicBool::new(false) }
    }

    /// The raw handle, for calls this crate does not wrap. Valid while `self` lives.
    pub fn as_raw(&self) -> *mut sys::etw_session {
        self.raw.as_ptr()
    }

    /// Lets the session outlive this handle: dropping it then only closes the
    /// handle, and the session runs until someone stops it (by name with
    /// [`open`](Self::open) + [`stop`](Self::stop), or `etwctl stop`).
    pub fn detach(&self) {
        self.stop_on_drop.store(false, Ordering::Relaxed);
    }

    /// True when dropping this handle stops the session (it was started here,
    /// and is neither detached nor stopped).
    pub fn stops_on_drop(&self) -> bool {
        self.stop_on_drop.load(Ordering::Relaxed)
    }

    /// The session handle value (Wnode.HistoricalContext).
    pub fn handle(&self) -> u64 {
        unsafe { sys::etw_session_handle(self.raw.as_ptr()) }
    }

    /// The options the session runs with, defaults applied.
    pub fn options(&self) -> Result<SessionOptions> {
        let mut out = SessionOptions::default().to_sys();
        check(unsafe { sys::etw_session_get_options(&mut out, self.raw.as_ptr()) })?;
        Ok(SessionOptions {
            lossless: out.flags & sys::ETW_SESSION_LOSSLESS != 0,
            lossless_timeout_ms: out.lossless_timeout_ms,
            realtime_backlog_buffers: out.realtime_backlog_buffers,
            replace_orphan: false,
            take_over_orphan: false,
            in_process: false,
            profile_interval: out.profile_interval,
        })
    }

    /// The host process and its state; an orphaned session still answers
    /// query and stop.
    pub fn host_info(&self) -> Result<HostInfo> {
        let mut out = sys::etw_session_host_info {
            struct_size: core::mem::size_of::<sys::etw_session_host_info>() as u32,
            process_id: 0,
            state: 0,
            is_local: 0,
        };
        check(unsafe { sys::etw_session_get_host_info(&mut out, self.raw.as_ptr()) })?;
        let state = match out.state {
            sys::ETW_SESSION_HOST_RUNNING => HostState::Running,
            sys::ETW_SESSION_HOST_ORPHANED => HostState::Orphaned,
            other => HostState::Other(other),
        };
        Ok(HostInfo { process_id: out.process_id, state, is_local: out.is_local != 0 })
    }

    /// The current settings and statistics (ControlTrace QUERY), names included.
    pub fn query(&self) -> Result<Properties> {
        let mut props = scratch()?;
        self.query_into(&mut props)?;
        Ok(props)
    }

    /// Copies the current settings and statistics into `props`.
    pub fn query_into(&self, props: &mut Properties) -> Result<()> {
        check(unsafe { sys::etw_session_query(self.raw.as_ptr(), props.as_raw()) })
    }

    /// Changes a running session (ControlTrace UPDATE): FlushTimer,
    /// MaximumBuffers, EnableFlags and the log file name of `props`; `props`
    /// then receives the current settings.
    pub fn update(&self, props: &mut Properties) -> Result<Statistics> {
        check(unsafe { sys::etw_session_update(self.raw.as_ptr(), props.as_raw()) })?;
        Ok(Statistics::of(props))
    }

    // Runs a control call that fills a properties object, the caller's or a scratch one.
    fn control(
        &self,
        props: Option<&mut Properties>,
        call: impl FnOnce(*mut sys::etw_properties) -> sys::etw_status,
    ) -> Result<Statistics> {
        let mut own;
        let props = match props {
            Some(p) => p,
            None => {
                own = scratch()?;
                &mut own
            }
        };
        let result = check(call(props.as_raw()));
        resume_enable_panic();
        result.map(|()| Statistics::of(props))
    }

    /// Flushes every buffer holding events (ControlTrace FLUSH); a buffering
    /// session writes its buffers to its log file. `props`, if given,
    /// receives the settings and statistics after the flush.
    pub fn flush(&self, props: Option<&mut Properties>) -> Result<Statistics> {
        self.control(props, |p| unsafe { sys::etw_session_flush(self.raw.as_ptr(), p) })
    }

    /// Buffering sessions: writes the buffers held as a complete .etl at `path`.
    pub fn flush_to_file(&self, path: impl AsRef<Path>, props: Option<&mut Properties>) -> Result<Statistics> {
        let path = c_path(path.as_ref())?;
        self.control(props, |p| unsafe { sys::etw_session_flush_to_file(self.raw.as_ptr(), path.as_ptr(), p) })
    }

    /// Stops the session (ControlTrace STOP): disables its providers, writes
    /// every buffer and finishes the log file. The handle stays valid.
    pub fn stop(&self, props: Option<&mut Properties>) -> Result<Statistics> {
        self.stop_on_drop.store(false, Ordering::Relaxed); // stopped, or failing: drop does not retry
        self.control(props, |p| unsafe { sys::etw_session_stop(self.raw.as_ptr(), p) })
    }

    /// Sets the rights of user `user_id` over the session (EventAccessControl),
    /// replacing what the user had; [`SessionRights::NONE`] revokes. A session
    /// starts owner-only: its host's user and root hold every right. Works on
    /// a session hosted here or, with the control right, in another process.
    /// [`Status::INVALID_PARAMETER`] for unknown bits; [`Status::NOT_SUPPORTED`]
    /// for a private session or where sessions are not system-wide
    /// (`OPENETW_REGISTRY=none`).
    pub fn grant(&self, user_id: u32, rights: SessionRights) -> Result<()> {
        check(unsafe { sys::etw_session_grant(self.raw.as_ptr(), user_id, rights.bits()) })
    }

    /// Changes a running system logger's sampled-profile interval
    /// (TraceSampledProfileIntervalInfo), in 100 ns units, 1221 to 10000000:
    /// the profile's source reopens at it at once; [`Session::options`]
    /// reports it. [`Status::INVALID_PARAMETER`] outside the range;
    /// [`Status::NOT_SUPPORTED`] for a session that is no system logger;
    /// [`Status::ACCESS_DENIED`] without the control right over another
    /// process's session.
    pub fn set_profile_interval(&self, interval_100ns: u32) -> Result<()> {
        check(unsafe { sys::etw_session_set_profile_interval(self.raw.as_ptr(), interval_100ns) })
    }

    /// Enables (or re-enables with another level or keywords) a provider for
    /// this session (EnableTraceEx2). `level` 0 takes every level;
    /// `match_any_keyword` 0 means all flags.
    pub fn enable_provider(&self, guid: &Guid, level: u8, match_any_keyword: u64, match_all_keyword: u64) -> Result<()> {
        self.enable_raw(guid, sys::ETW_CONTROL_CODE_ENABLE_PROVIDER, level, match_any_keyword, match_all_keyword)
    }

    /// Asks the provider's registrations this session enables to log their
    /// state (EVENT_CONTROL_CODE_CAPTURE_STATE): each callback gets an
    /// `EnableInfo` with `capture_state` true and this call's level and
    /// keywords; the enablement does not change. An error of status
    /// ETW_ERROR_WMI_GUID_NOT_FOUND when the session does not enable the GUID.
    pub fn capture_state(&self, guid: &Guid, level: u8, match_any_keyword: u64, match_all_keyword: u64) -> Result<()> {
        self.enable_raw(guid, sys::ETW_CONTROL_CODE_CAPTURE_STATE, level, match_any_keyword, match_all_keyword)
    }

    /// Disables a provider for this session.
    pub fn disable_provider(&self, guid: &Guid) -> Result<()> {
        self.enable_raw(guid, sys::ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0)
    }

    /// Enables a provider with enable parameters (EnableTraceEx2 with
    /// ENABLE_TRACE_PARAMETERS): `options` gives the properties (extended
    /// data items on the provider's events) and the filters at the source.
    /// Enabling again replaces level, keywords, properties and filters. A bad
    /// filter (no ids, more than 8 pids, a type given twice, ...) is an error
    /// with the library's status ([`Status::INVALID_PARAMETER`], or
    /// [`Status::NOT_SUPPORTED`] for a type OpenETW does not implement) and a
    /// message naming the filter by its index.
    pub fn enable_provider_ex(
        &self,
        guid: &Guid,
        level: u8,
        match_any_keyword: u64,
        match_all_keyword: u64,
        options: &EnableOptions,
    ) -> Result<()> {
        let guid: sys::etw_guid = (*guid).into();
        // Both borrowed until the call returns; the library copies the filters.
        let descriptors = descriptors(options.filters());
        let params = options.to_sys(level, match_any_keyword, match_all_keyword, &descriptors);
        let status = unsafe {
            sys::etw_session_enable_provider_ex(self.raw.as_ptr(), &guid, sys::ETW_CONTROL_CODE_ENABLE_PROVIDER, &params)
        };
        let result = check(status);
        resume_enable_panic();
        result
    }

    fn enable_raw(&self, guid: &Guid, code: u32, level: u8, any: u64, all: u64) -> Result<()> {
        let guid: sys::etw_guid = (*guid).into();
        let status = unsafe { sys::etw_session_enable_provider(self.raw.as_ptr(), &guid, code, level, any, all) };
        let result = check(status);
        resume_enable_panic();
        result
    }

    /// The running sessions (QueryAllTraces): names, settings and statistics.
    pub fn list() -> Result<Vec<Properties>> {
        loop {
            let mut count = 0u32;
            match check(unsafe { sys::etw_session_list(&mut count, ptr::null(), 0) }) {
                Ok(()) => return Ok(Vec::new()),
                Err(e) if e.status() == Status::MORE_DATA => {}
                Err(e) => return Err(e),
            }
            let mut array = (0..count).map(|_| scratch()).collect::<Result<Vec<_>>>()?;
            let raws: Vec<*mut sys::etw_properties> = array.iter_mut().map(|p| p.as_raw()).collect();
            let mut now = 0u32;
            match check(unsafe { sys::etw_session_list(&mut now, raws.as_ptr(), count) }) {
                Ok(()) => {
                    array.truncate(now as usize);
                    return Ok(array);
                }
                // A session started between the two calls: ask again.
                Err(e) if e.status() == Status::MORE_DATA => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Sets how many sessions may run at once.
    pub fn set_max_sessions(max_sessions: u32) -> Result<()> {
        check(unsafe { sys::etw_session_set_max_sessions(max_sessions) })
    }

    /// How many sessions may run at once.
    pub fn max_sessions() -> u32 {
        unsafe { sys::etw_session_max_sessions() }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if *self.stop_on_drop.get_mut() {
            // Errors (already stopped elsewhere, a file error) have no one to go to.
            let _ = unsafe { sys::etw_session_stop(self.raw.as_ptr(), ptr::null_mut()) };
            resume_enable_panic_unless_unwinding();
        }
        unsafe { sys::etw_session_close(self.raw.as_ptr()) }
    }
}

impl core::fmt::Debug for Session {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session").field("handle", &self.handle()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_flags_reach_the_c_struct() {
        let both = SessionOptions { lossless: true, replace_orphan: true, ..Default::default() };
        assert_eq!(both.to_sys().flags, 0x1 | 0x2); // ETW_SESSION_LOSSLESS | ETW_SESSION_REPLACE_ORPHAN
        let one = SessionOptions { replace_orphan: true, ..Default::default() };
        assert_eq!(one.to_sys().flags, 0x2);
        let take = SessionOptions { take_over_orphan: true, ..Default::default() };
        assert_eq!(take.to_sys().flags, 0x4); // ETW_SESSION_TAKE_OVER_ORPHAN
        let lossless_take = SessionOptions { lossless: true, take_over_orphan: true, ..Default::default() };
        assert_eq!(lossless_take.to_sys().flags, 0x1 | 0x4);
        let here = SessionOptions { in_process: true, ..Default::default() };
        assert_eq!(here.to_sys().flags, 0x8); // ETW_SESSION_IN_PROCESS
    }

    #[test]
    fn session_rights_are_the_header_bits() {
        let all = [SessionRights::NONE, SessionRights::CONTROL, SessionRights::LOG, SessionRights::CONSUME, SessionRights::ALL];
        assert_eq!(all.map(SessionRights::bits), [0, 1, 2, 4, 7]);
        assert_eq!(SessionRights::CONTROL | SessionRights::LOG | SessionRights::CONSUME, SessionRights::ALL);
        assert_eq!(SessionRights::default(), SessionRights::NONE);
    }
}
