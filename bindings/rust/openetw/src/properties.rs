//! Session properties (properties.h).
use core::ptr::{self, NonNull};
use std::ffi::{CStr, CString};

use openetw_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::types::{ClockType, Guid, KernelFlags, LogFileMode};

/// EVENT_TRACE_PROPERTIES with the Windows field names (the generated record).
pub type EventTraceProperties = sys::etw_event_trace_properties;

/// The settings of a trace session: the EVENT_TRACE_PROPERTIES block with its
/// session and log file names.
///
/// Setters check one member and leave the object unchanged on error;
/// [`validate`](Self::validate) checks the rules that tie members together.
///
/// Threads: `Send` (objects are independent and have no thread affinity) but
/// not `Sync`: the header asks for one object to be used from one thread at a
/// time, and string getters borrow text the object owns.
pub struct Properties {
    raw: NonNull<sys::etw_properties>,
}

unsafe impl Send for Properties {}

// Text for the C API: UTF-8 without NUL (the C side cannot see past one).
fn c_text(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::new(Status::INVALID_NAME, format!("{what} contains a NUL character")))
}

impl Properties {
    /// Creates properties for a session (1..1024 characters).
    pub fn new(session_name: &str) -> Result<Self> {
        let name = c_text(session_name, "session name")?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::etw_properties_create(&mut raw, name.as_ptr()) })?;
        Ok(Self::from_raw(raw))
    }

    /// Imports a Windows-layout block, with complete validation.
    pub fn from_block(block: &[u8]) -> Result<Self> {
        let mut raw = ptr::null_mut();
        check(unsafe { sys::etw_properties_import(&mut raw, block.as_ptr().cast(), block.len()) })?;
        Ok(Self::from_raw(raw))
    }

    /// The raw object, for the C calls that write into it (start, query, stop...).
    pub(crate) fn as_raw(&mut self) -> *mut sys::etw_properties {
        self.raw.as_ptr()
    }

    fn from_raw(raw: *mut sys::etw_properties) -> Self {
        Properties { raw: NonNull::new(raw).expect("libopenetw returned success and NULL") }
    }

    /// A copy, output members included.
    pub fn try_clone(&self) -> Result<Self> {
        let mut raw = ptr::null_mut();
        check(unsafe { sys::etw_properties_clone(&mut raw, self.raw.as_ptr()) })?;
        Ok(Self::from_raw(raw))
    }

    /// The size of the exported block in bytes.
    pub fn block_size(&self) -> usize {
        let mut size = 0usize;
        // A size query answers ETW_ERROR_MORE_DATA by design.
        unsafe { sys::etw_properties_export(ptr::null_mut(), 0, &mut size, self.raw.as_ptr()) };
        size
    }

    /// Exports into `out`; returns the block size, or MORE_DATA if `out` is too small.
    pub fn export_into(&self, out: &mut [u8]) -> Result<usize> {
        let mut size = 0usize;
        check(unsafe { sys::etw_properties_export(out.as_mut_ptr().cast(), out.len(), &mut size, self.raw.as_ptr()) })?;
        Ok(size)
    }

    /// The Windows-layout block: record, session name, log file name.
    pub fn to_block(&self) -> Vec<u8> {
        let mut block = vec![0u8; self.block_size()];
        let size = self.export_into(&mut block).expect("export into a buffer of the size it asked for");
        block.truncate(size);
        block
    }

    /// Checks the rules that tie members together, as starting a session does.
    pub fn validate(&self) -> Result<()> {
        check(unsafe { sys::etw_properties_validate(self.raw.as_ptr()) })
    }

    /// The fixed record as it would be exported (offsets of the exported block).
    pub fn record(&self) -> EventTraceProperties {
        let mut record = core::mem::MaybeUninit::<EventTraceProperties>::zeroed();
        check(unsafe { sys::etw_properties_get_record(record.as_mut_ptr(), self.raw.as_ptr()) })
            .expect("get_record on a valid object");
        unsafe { record.assume_init() }
    }

    // Text the object owns: valid until the member is set again (which needs
    // &mut self) or the object is dropped, so it can borrow from &self.
    fn text(&self, getter: unsafe extern "C" fn(*const sys::etw_properties) -> *const core::ffi::c_char) -> &str {
        let text = unsafe { CStr::from_ptr(getter(self.raw.as_ptr())) };
        text.to_str().expect("libopenetw returned a name that is not UTF-8")
    }

    /// The session name.
    pub fn session_name(&self) -> &str {
        self.text(sys::etw_properties_session_name)
    }

    /// Sets the session name (1..1024 characters).
    pub fn set_session_name(&mut self, name: &str) -> Result<()> {
        let name = c_text(name, "session name")?;
        check(unsafe { sys::etw_properties_set_session_name(self.raw.as_ptr(), name.as_ptr()) })
    }

    /// The log file name; None when the session has no log file.
    pub fn log_file_name(&self) -> Option<&str> {
        Some(self.text(sys::etw_properties_log_file_name)).filter(|name| !name.is_empty())
    }

    /// Sets the log file name; None (or "") removes it.
    pub fn set_log_file_name(&mut self, name: Option<&str>) -> Result<()> {
        let name = name.map(|n| c_text(n, "log file name")).transpose()?;
        let ptr = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        check(unsafe { sys::etw_properties_set_log_file_name(self.raw.as_ptr(), ptr) })
    }

    /// The session GUID (all zero: generated when the session starts).
    pub fn guid(&self) -> Guid {
        let mut guid = sys::etw_guid { Data1: 0, Data2: 0, Data3: 0, Data4: [0; 8] };
        check(unsafe { sys::etw_properties_get_guid(&mut guid, self.raw.as_ptr()) }).expect("get_guid on a valid object");
        guid.into()
    }

    /// Sets the session GUID.
    pub fn set_guid(&mut self, guid: Guid) -> Result<()> {
        let guid: sys::etw_guid = guid.into();
        check(unsafe { sys::etw_properties_set_guid(self.raw.as_ptr(), &guid) })
    }

    /// The logging mode.
    pub fn log_file_mode(&self) -> LogFileMode {
        LogFileMode(unsafe { sys::etw_properties_log_file_mode(self.raw.as_ptr()) })
    }

    /// Sets the logging mode (combinations are checked by validate).
    pub fn set_log_file_mode(&mut self, mode: LogFileMode) -> Result<()> {
        check(unsafe { sys::etw_properties_set_log_file_mode(self.raw.as_ptr(), mode.0) })
    }

    /// Kernel EnableFlags (system loggers only).
    pub fn enable_flags(&self) -> KernelFlags {
        KernelFlags(unsafe { sys::etw_properties_enable_flags(self.raw.as_ptr()) })
    }

    /// Sets the kernel EnableFlags.
    pub fn set_enable_flags(&mut self, flags: KernelFlags) -> Result<()> {
        check(unsafe { sys::etw_properties_set_enable_flags(self.raw.as_ptr(), flags.0) })
    }

    /// The clock that timestamps events.
    pub fn clock_type(&self) -> ClockType {
        ClockType(unsafe { sys::etw_properties_clock_type(self.raw.as_ptr()) })
    }

    /// Sets the clock (DEFAULT..CPU_CYCLE).
    pub fn set_clock_type(&mut self, clock: ClockType) -> Result<()> {
        check(unsafe { sys::etw_properties_set_clock_type(self.raw.as_ptr(), clock.0) })
    }

    /// AgeLimit / FlushThreshold (one LONG member).
    pub fn flush_threshold(&self) -> i32 {
        unsafe { sys::etw_properties_flush_threshold(self.raw.as_ptr()) }
    }

    /// Sets AgeLimit / FlushThreshold.
    pub fn set_flush_threshold(&mut self, value: i32) -> Result<()> {
        check(unsafe { sys::etw_properties_set_flush_threshold(self.raw.as_ptr(), value) })
    }
}

// The plain u32 members: a getter and a checked setter each.
macro_rules! u32_members {
    ($($(#[$doc:meta])* $get:ident / $set:ident => $cget:ident / $cset:ident;)*) => {
        impl Properties {
            $(
                $(#[$doc])*
                pub fn $get(&self) -> u32 { unsafe { sys::$cget(self.raw.as_ptr()) } }
                $(#[$doc])*
                pub fn $set(&mut self, value: u32) -> Result<()> {
                    check(unsafe { sys::$cset(self.raw.as_ptr(), value) })
                }
            )*
        }
    };
}

u32_members! {
    /// BufferSize: KB per buffer, 4..16384.
    buffer_size / set_buffer_size => etw_properties_buffer_size / etw_properties_set_buffer_size;
    /// MinimumBuffers (raised at start to 2 per processor).
    minimum_buffers / set_minimum_buffers => etw_properties_minimum_buffers / etw_properties_set_minimum_buffers;
    /// MaximumBuffers (raised at start to the adjusted minimum).
    maximum_buffers / set_maximum_buffers => etw_properties_maximum_buffers / etw_properties_set_maximum_buffers;
    /// MaximumFileSize: MB, or KB with USE_KBYTES_FOR_SIZE; 0 = no limit.
    maximum_file_size / set_maximum_file_size => etw_properties_maximum_file_size / etw_properties_set_maximum_file_size;
    /// FlushTimer in seconds.
    flush_timer / set_flush_timer => etw_properties_flush_timer / etw_properties_set_flush_timer;
}

// Output members, filled when a session starts, is queried or stops.
macro_rules! outputs {
    ($($(#[$doc:meta])* $get:ident: $ty:ty => $cget:ident;)*) => {
        impl Properties {
            $($(#[$doc])* pub fn $get(&self) -> $ty { unsafe { sys::$cget(self.raw.as_ptr()) } })*
        }
    };
}

outputs! {
    /// Output: buffers allocated.
    number_of_buffers: u32 => etw_properties_number_of_buffers;
    /// Output: free buffers.
    free_buffers: u32 => etw_properties_free_buffers;
    /// Output: events dropped.
    events_lost: u32 => etw_properties_events_lost;
    /// Output: buffers written.
    buffers_written: u32 => etw_properties_buffers_written;
    /// Output: buffers not written to the log file.
    log_buffers_lost: u32 => etw_properties_log_buffers_lost;
    /// Output: buffers not delivered in real time.
    real_time_buffers_lost: u32 => etw_properties_real_time_buffers_lost;
    /// Output: the logger thread.
    logger_thread_id: u64 => etw_properties_logger_thread_id;
    /// Output: Wnode.HistoricalContext, the session handle after a start.
    historical_context: u64 => etw_properties_historical_context;
}

impl Drop for Properties {
    fn drop(&mut self) {
        unsafe { sys::etw_properties_destroy(self.raw.as_ptr()) }
    }
}

impl Clone for Properties {
    /// Panics only if the library cannot allocate, as std collections abort.
    fn clone(&self) -> Self {
        self.try_clone().expect("etw_properties_clone")
    }
}

impl core::fmt::Debug for Properties {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Properties")
            .field("session_name", &self.session_name())
            .field("log_file_name", &self.log_file_name())
            .field("log_file_mode", &self.log_file_mode())
            .field("buffer_size", &self.buffer_size())
            .finish_non_exhaustive()
    }
}

// Compile-time proof that Properties is not Sync: if it were, both impls
// below would apply and the path would be ambiguous.
#[allow(dead_code)]
trait AmbiguousIfSync<A> {
    fn check() {}
}
impl<T: ?Sized> AmbiguousIfSync<()> for T {}
impl<T: ?Sized + Sync> AmbiguousIfSync<u8> for T {}
const _: fn() = || {
    let _ = <Properties as AmbiguousIfSync<_>>::check;
};
