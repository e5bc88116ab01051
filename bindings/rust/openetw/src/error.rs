//! Status codes and the crate's one error type.
use core::fmt;
use std::ffi::CStr;

use openetw_sys as sys;

/// A Win32 error code as the library returns it (`etw_status`). Values are
/// never renumbered; unknown values are kept as they are.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Status(pub u32);

macro_rules! statuses {
    ($($name:ident = $value:ident),* $(,)?) => {
        impl Status {
            $(#[allow(missing_docs)] pub const $name: Status = Status(sys::$value);)*
        }
    };
}

statuses! {
    OK = ETW_OK,
    FILE_NOT_FOUND = ETW_ERROR_FILE_NOT_FOUND,
    PATH_NOT_FOUND = ETW_ERROR_PATH_NOT_FOUND,
    ACCESS_DENIED = ETW_ERROR_ACCESS_DENIED,
    INVALID_HANDLE = ETW_ERROR_INVALID_HANDLE,
    NOT_ENOUGH_MEMORY = ETW_ERROR_NOT_ENOUGH_MEMORY,
    INVALID_DATA = ETW_ERROR_INVALID_DATA,
    OUTOFMEMORY = ETW_ERROR_OUTOFMEMORY,
    BAD_LENGTH = ETW_ERROR_BAD_LENGTH,
    WRITE_FAULT = ETW_ERROR_WRITE_FAULT,
    READ_FAULT = ETW_ERROR_READ_FAULT,
    HANDLE_EOF = ETW_ERROR_HANDLE_EOF,
    NOT_SUPPORTED = ETW_ERROR_NOT_SUPPORTED,
    INVALID_PARAMETER = ETW_ERROR_INVALID_PARAMETER,
    DISK_FULL = ETW_ERROR_DISK_FULL,
    INSUFFICIENT_BUFFER = ETW_ERROR_INSUFFICIENT_BUFFER,
    INVALID_NAME = ETW_ERROR_INVALID_NAME,
    BAD_PATHNAME = ETW_ERROR_BAD_PATHNAME,
    BUSY = ETW_ERROR_BUSY,
    ALREADY_EXISTS = ETW_ERROR_ALREADY_EXISTS,
    INVALID_FLAG_NUMBER = ETW_ERROR_INVALID_FLAG_NUMBER,
    MORE_DATA = ETW_ERROR_MORE_DATA,
    ARITHMETIC_OVERFLOW = ETW_ERROR_ARITHMETIC_OVERFLOW,
    NO_MORE_ITEMS = ETW_ERROR_NO_MORE_ITEMS,
    NOT_FOUND = ETW_ERROR_NOT_FOUND,
    NO_UNICODE_TRANSLATION = ETW_ERROR_NO_UNICODE_TRANSLATION,
    CANCELLED = ETW_ERROR_CANCELLED,
    INTERNAL_ERROR = ETW_ERROR_INTERNAL_ERROR,
    NO_SYSTEM_RESOURCES = ETW_ERROR_NO_SYSTEM_RESOURCES,
    TIMEOUT = ETW_ERROR_TIMEOUT,
    LOG_FILE_FULL = ETW_ERROR_LOG_FILE_FULL,
    WMI_GUID_NOT_FOUND = ETW_ERROR_WMI_GUID_NOT_FOUND,
    WMI_INSTANCE_NOT_FOUND = ETW_ERROR_WMI_INSTANCE_NOT_FOUND,
    CTX_CLOSE_PENDING = ETW_ERROR_CTX_CLOSE_PENDING,
}

impl Status {
    /// The C name, e.g. "ETW_ERROR_INVALID_PARAMETER" ("ETW_ERROR_UNKNOWN" if unknown).
    pub fn name(self) -> &'static str {
        static_str(unsafe { sys::etw_status_name(self.0) })
    }

    /// A short English description ("The parameter is incorrect.").
    pub fn description(self) -> &'static str {
        static_str(unsafe { sys::etw_status_string(self.0) })
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

// The library's static text: valid for the life of the process, always UTF-8.
fn static_str(text: *const core::ffi::c_char) -> &'static str {
    if text.is_null() {
        return "";
    }
    unsafe { CStr::from_ptr(text) }.to_str().expect("libopenetw returned text that is not UTF-8")
}

/// A failing OpenETW call: the status and the library's message naming the
/// argument or field at fault.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
}

impl Error {
    /// An error with a status and message (for checks done on this side of the ABI).
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Error { status, message: message.into() }
    }

    /// The status, e.g. [`Status::INVALID_PARAMETER`].
    pub fn status(&self) -> Status {
        self.status
    }

    /// The library's message ("BufferSize 3 KB is outside 4..16384 KB").
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error").field("status", &self.status).field("message", &self.message).finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.message, self.status)
    }
}

impl std::error::Error for Error {}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// Turns a status into a Result: the one place where statuses become errors.
/// Call it right after the failing call, before any other library call on the
/// thread, so the thread-local message still belongs to that call.
pub(crate) fn check(status: sys::etw_status) -> Result<()> {
    if status == sys::ETW_OK {
        return Ok(());
    }
    let message = static_str_now(unsafe { sys::etw_last_error_message() });
    let status = Status(status);
    let message = if message.is_empty() { status.description().to_owned() } else { message };
    Err(Error { status, message })
}

/// As [`check`], for the event-writing hot path, which leaves the thread's
/// message alone (it may belong to an older call): the status's description.
pub(crate) fn check_quiet(status: sys::etw_status) -> Result<()> {
    if status == sys::ETW_OK {
        return Ok(());
    }
    let status = Status(status);
    Err(Error { status, message: status.description().to_owned() })
}

// The last-error text is valid only until the next call: copy it at once.
fn static_str_now(text: *const core::ffi::c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
}
