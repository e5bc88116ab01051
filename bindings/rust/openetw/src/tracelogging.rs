//! TraceLogging writing (tracelogging.h): self-describing events whose field
//! names and types travel in the event, written with the [`tracelogging!`]
//! macro or [`Provider::write_tracelogging`]. A value's TraceLogging type
//! comes from the [`TraceLoggingValue`] trait, implemented for the Rust
//! primitives, `str`/`String`, `bool`, byte slices (binary), [`Guid`],
//! [`SystemTime`] (FILETIME) and slices of the fixed-size primitives.
//! Writing allocates nothing: values are borrowed or kept on the stack.
use core::ffi::CStr;
use std::time::{SystemTime, UNIX_EPOCH};

use openetw_sys as sys;

use crate::error::{check, check_quiet, Error, Result, Status};
use crate::provider::{Activity, Provider};
use crate::types::Guid;

/// A field value's bytes and its TraceLogging in-type and out-type
/// (`sys::ETW_TL_IN_*`, `sys::ETW_TL_OUT_*`): what [`TraceLoggingValue`] gives.
#[derive(Clone, Copy, Debug)]
pub struct FieldValue<'a> {
    data: Data<'a>,
    in_type: u8,
    out_type: u8,
}

#[derive(Clone, Copy, Debug)]
enum Data<'a> {
    Borrowed(&'a [u8]),
    Inline([u8; 16], u8), // a scalar's bytes, kept by value
}

impl<'a> FieldValue<'a> {
    /// Any bytes with explicit types, e.g. `FieldValue::new(&ip.to_be_bytes(),
    /// sys::ETW_TL_IN_UINT32, sys::ETW_TL_OUT_IPV4)`: the library checks that they fit.
    pub fn new(bytes: &'a [u8], in_type: u32, out_type: u32) -> Self {
        FieldValue { data: Data::Borrowed(bytes), in_type: in_type as u8, out_type: out_type as u8 }
    }

    fn inline(bytes: &[u8], in_type: u32, out_type: u32) -> Self {
        let mut b = [0u8; 16];
        b[..bytes.len()].copy_from_slice(bytes);
        FieldValue { data: Data::Inline(b, bytes.len() as u8), in_type: in_type as u8, out_type: out_type as u8 }
    }

    /// The value's bytes as the library receives them.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Borrowed(b) => b,
            Data::Inline(b, n) => &b[..*n as usize],
        }
    }

    /// The in-type (`sys::ETW_TL_IN_*`, with `ETW_TL_IN_ARRAY` for an array).
    pub fn in_type(&self) -> u8 {
        self.in_type
    }

    /// The out-type (`sys::ETW_TL_OUT_*`).
    pub fn out_type(&self) -> u8 {
        self.out_type
    }
}

/// A value that can be a TraceLogging field: its bytes and types.
pub trait TraceLoggingValue {
    /// The field's bytes, in-type and out-type.
    fn tl_value(&self) -> FieldValue<'_>;
}

macro_rules! scalar {
    ($($t:ty => $in:ident),* $(,)?) => {$(
        impl TraceLoggingValue for $t {
            fn tl_value(&self) -> FieldValue<'_> {
                FieldValue::inline(&self.to_le_bytes(), sys::$in, 0)
            }
        }
        impl TraceLoggingValue for [$t] {
            fn tl_value(&self) -> FieldValue<'_> {
                // Little-endian elements, as in the record (every target this builds for).
                let bytes = unsafe { core::slice::from_raw_parts(self.as_ptr().cast::<u8>(), core::mem::size_of_val(self)) };
                FieldValue::new(bytes, sys::$in | sys::ETW_TL_IN_ARRAY, 0)
            }
        }
    )*};
}
scalar!(i8 => ETW_TL_IN_INT8, i16 => ETW_TL_IN_INT16, u16 => ETW_TL_IN_UINT16, i32 => ETW_TL_IN_INT32,
        u32 => ETW_TL_IN_UINT32, i64 => ETW_TL_IN_INT64, u64 => ETW_TL_IN_UINT64, f32 => ETW_TL_IN_FLOAT,
        f64 => ETW_TL_IN_DOUBLE);

#[cfg(target_endian = "big")]
compile_error!("TraceLogging slices are written in memory order: little-endian targets only");

impl TraceLoggingValue for u8 {
    fn tl_value(&self) -> FieldValue<'_> {
        FieldValue::inline(&[*self], sys::ETW_TL_IN_UINT8, 0)
    }
}

/// A byte slice is binary data (TraceLoggingBinary; at most 65535 bytes).
impl TraceLoggingValue for [u8] {
    fn tl_value(&self) -> FieldValue<'_> {
        FieldValue::new(self, sys::ETW_TL_IN_BINARY, 0)
    }
}

/// Pointer-sized integers as 64-bit ones.
impl TraceLoggingValue for isize {
    fn tl_value(&self) -> FieldValue<'_> {
        FieldValue::inline(&(*self as i64).to_le_bytes(), sys::ETW_TL_IN_INT64, 0)
    }
}

impl TraceLoggingValue for usize {
    fn tl_value(&self) -> FieldValue<'_> {
        FieldValue::inline(&(*self as u64).to_le_bytes(), sys::ETW_TL_IN_UINT64, 0)
    }
}

/// bool as TraceLoggingBool: a 4-byte BOOL32.
impl TraceLoggingValue for bool {
    fn tl_value(&self) -> FieldValue<'_> {
        FieldValue::inline(&(*self as i32).to_le_bytes(), sys::ETW_TL_IN_BOOL32, 0)
    }
}

/// A UTF-8 string (no NUL characters: the library refuses them).
impl TraceLoggingValue for str {
    fn tl_value(&self) -> FieldValue<'_> {
        FieldValue::new(self.as_bytes(), sys::ETW_TL_IN_ANSISTRING, sys::ETW_TL_OUT_UTF8)
    }
}

impl TraceLoggingValue for String {
    fn tl_value(&self) -> FieldValue<'_> {
        self.as_str().tl_value()
    }
}

impl TraceLoggingValue for Guid {
    fn tl_value(&self) -> FieldValue<'_> {
        FieldValue::inline(&self.to_bytes_le(), sys::ETW_TL_IN_GUID, 0)
    }
}

/// A time as FILETIME (100 ns since 1601, UTC); before 1601, 0.
impl TraceLoggingValue for SystemTime {
    fn tl_value(&self) -> FieldValue<'_> {
        const FROM_1601: i128 = 116_444_736_000_000_000; // 1601 to 1970 in 100 ns
        let ticks = match self.duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128 / 100 + FROM_1601,
            Err(e) => FROM_1601 - e.duration().as_nanos() as i128 / 100,
        };
        let ticks = ticks.clamp(0, i64::MAX as i128) as u64;
        FieldValue::inline(&ticks.to_le_bytes(), sys::ETW_TL_IN_FILETIME, 0)
    }
}

impl TraceLoggingValue for FieldValue<'_> {
    fn tl_value(&self) -> FieldValue<'_> {
        *self
    }
}

impl<T: TraceLoggingValue + ?Sized> TraceLoggingValue for &T {
    fn tl_value(&self) -> FieldValue<'_> {
        (**self).tl_value()
    }
}

impl<T> TraceLoggingValue for Vec<T>
where
    [T]: TraceLoggingValue,
{
    fn tl_value(&self) -> FieldValue<'_> {
        self.as_slice().tl_value()
    }
}

impl<T, const N: usize> TraceLoggingValue for [T; N]
where
    [T]: TraceLoggingValue,
{
    fn tl_value(&self) -> FieldValue<'_> {
        self.as_slice().tl_value()
    }
}

/// One named field of an event.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    name: &'a CStr,
    value: FieldValue<'a>,
}

impl<'a> Field<'a> {
    /// The field `name` (UTF-8) holding `value`.
    pub fn new<T: TraceLoggingValue + ?Sized>(name: &'a CStr, value: &'a T) -> Self {
        Field { name, value: value.tl_value() }
    }
}

/// What a TraceLogging event is besides its name and fields. The default is
/// TraceLogging's: level 5 (verbose), channel 11, the rest 0, no activity ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceLoggingOptions {
    /// Sessions take levels up to their own.
    pub level: u8,
    /// Sessions take it by their MatchAnyKeyword / MatchAllKeyword (0: always).
    pub keyword: u64,
    #[allow(missing_docs)]
    pub opcode: u8,
    /// 11 (`sys::ETW_TL_CHANNEL`) by default.
    pub channel: u8,
    /// EVENT_DESCRIPTOR.Id (TraceLogging events are told apart by name: usually 0).
    pub id: u16,
    #[allow(missing_docs)]
    pub version: u8,
    #[allow(missing_docs)]
    pub task: u16,
    /// The event's activity id (None: the thread's) and a related one.
    pub activity: Activity,
}

impl Default for TraceLoggingOptions {
    fn default() -> Self {
        TraceLoggingOptions {
            level: sys::ETW_LEVEL_VERBOSE as u8,
            keyword: 0,
            opcode: 0,
            channel: sys::ETW_TL_CHANNEL as u8,
            id: 0,
            version: 0,
            task: 0,
            activity: Activity::default(),
        }
    }
}

impl Provider {
    /// Registers a TraceLogging provider by name, as TraceLoggingRegister and
    /// EventSource do: its GUID is [`Provider::guid_from_name`]`(name)`, and
    /// every event it writes carries the name.
    pub fn register_named(name: &str) -> Result<Provider> {
        let provider = Provider::register(Provider::guid_from_name(name)?)?;
        provider.set_name(name, None)?;
        Ok(provider)
    }

    /// The provider GUID TraceLogging and .NET EventSource derive from a name
    /// ("MyCompany.MyComponent" gives ce5fa4ea-ab00-5402-8b76-9f76ac858fb5).
    /// INVALID_PARAMETER for a name holding a NUL.
    pub fn guid_from_name(name: &str) -> Result<Guid> {
        let name = c_name(name)?;
        let mut out = sys::etw_guid::from(Guid::NIL);
        check(unsafe { sys::etw_provider_guid_from_name(&mut out, name.as_ptr()) })?;
        Ok(out.into())
    }

    /// Sets the provider's name (and a provider group) as its traits, carried
    /// by every event written afterwards. Once: ALREADY_EXISTS after that.
    pub fn set_name(&self, name: &str, group: Option<Guid>) -> Result<()> {
        let name = c_name(name)?;
        let group = group.map(sys::etw_guid::from);
        let g = group.as_ref().map_or(core::ptr::null(), |g| g as *const sys::etw_guid);
        check(unsafe { sys::etw_provider_set_name(self.as_raw(), name.as_ptr(), g) })
    }

    /// Writes a TraceLogging event `name` with `fields` in order
    /// (etw_provider_write_tracelogging); [`tracelogging!`] builds the call.
    /// Nothing is allocated. Errors: INVALID_PARAMETER (more than 128 fields,
    /// a string holding a NUL, a binary or array above 65535 bytes or
    /// elements...) and ARITHMETIC_OVERFLOW (too large for one event), with
    /// the library's message naming the field; a session's MORE_DATA,
    /// NOT_ENOUGH_MEMORY, LOG_FILE_FULL (the event was dropped).
    pub fn write_tracelogging(&self, name: &CStr, options: &TraceLoggingOptions, fields: &[Field<'_>]) -> Result<()> {
        const MAX: usize = sys::ETW_TL_MAX_FIELDS as usize;
        if fields.len() > MAX {
            return Err(Error::new(
                Status::INVALID_PARAMETER,
                format!("an event has at most {MAX} fields, not {}", fields.len()),
            ));
        }
        let empty = sys::etw_tl_field {
            name: core::ptr::null(),
            data: core::ptr::null(),
            size: 0,
            in_type: 0,
            out_type: 0,
            reserved: 0,
        };
        let mut raw = [empty; MAX];
        for (r, f) in raw.iter_mut().zip(fields) {
            let bytes = f.value.bytes();
            *r = sys::etw_tl_field {
                name: f.name.as_ptr(),
                data: bytes.as_ptr().cast(),
                size: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
                in_type: f.value.in_type,
                out_type: f.value.out_type,
                reserved: 0,
            };
        }
        let d = sys::etw_event_descriptor {
            Id: options.id,
            Version: options.version,
            Channel: options.channel,
            Level: options.level,
            Opcode: options.opcode,
            Task: options.task,
            Keyword: options.keyword,
        };
        let id = options.activity.id.map(sys::etw_guid::from);
        let related = options.activity.related.map(sys::etw_guid::from);
        let ptr = |g: &Option<sys::etw_guid>| g.as_ref().map_or(core::ptr::null(), |g| g as *const sys::etw_guid);
        let status = unsafe {
            sys::etw_provider_write_tracelogging(
                self.as_raw(),
                name.as_ptr(),
                &d,
                ptr(&id),
                ptr(&related),
                fields.len() as u32,
                raw.as_ptr(),
            )
        };
        // What the library checked comes with its sentence; a session's drop sets none.
        if status == sys::ETW_ERROR_INVALID_PARAMETER || status == sys::ETW_ERROR_ARITHMETIC_OVERFLOW {
            check(status)
        } else {
            check_quiet(status)
        }
    }
}

fn c_name(name: &str) -> Result<std::ffi::CString> {
    std::ffi::CString::new(name)
        .map_err(|_| Error::new(Status::INVALID_PARAMETER, format!("name {name:?} holds a NUL character")))
}

/// Writes a TraceLogging event, as TraceLoggingWrite:
///
/// ```no_run
/// # let provider = openetw::Provider::register_named("MyCompany.Orders").unwrap();
/// openetw::tracelogging!(provider, "OrderShipped", level: 4, keyword: 0x10,
///                        order_id = 4711i32, customer = "Fabrikam", "weight (kg)" = 2.5f64)?;
/// # Ok::<(), openetw::Error>(())
/// ```
///
/// The event name is a string literal; each field is `name = value` (an
/// identifier or a string literal as the name, any expression whose type
/// implements [`TraceLoggingValue`] as the value); options (`level:`,
/// `keyword:`, `opcode:`, `channel:`, `id:`, `version:`, `task:`,
/// `activity:` an `Activity`) may appear anywhere among them. Gives
/// `Result<()>`; when no session takes the event (none enables the provider,
/// or none at its level and keyword) it returns `Ok(())` without evaluating
/// the fields.
#[macro_export]
macro_rules! tracelogging {
    ($provider:expr, $name:literal $(, $($args:tt)*)?) => {{
        let __tl_provider: &$crate::Provider = &$provider;
        if __tl_provider.enabled_hint() {
            #[allow(unused_mut)]
            let mut __tl_options = $crate::TraceLoggingOptions::default();
            $crate::__tracelogging_args!(__tl_provider, $name, __tl_options, [] $($($args)*)?)
        } else {
            $crate::Result::<()>::Ok(())
        }
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __tracelogging_cstr {
    ($s:expr) => {
        match ::core::ffi::CStr::from_bytes_with_nul(::core::concat!($s, "\0").as_bytes()) {
            Ok(s) => s,
            Err(_) => ::core::panic!("a TraceLogging name holds a NUL character"),
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __tracelogging_args {
    // As TraceLoggingWrite: an event no session takes (level, keyword) evaluates no field.
    ($p:ident, $name:literal, $o:ident, [$($f:tt)*]) => {
        if $p.is_enabled($o.level, $o.keyword) {
            $p.write_tracelogging($crate::__tracelogging_cstr!($name), &$o, &[$($f)*])
        } else {
            $crate::Result::<()>::Ok(())
        }
    };
    ($p:ident, $name:literal, $o:ident, [$($f:tt)*] $opt:ident : $v:expr $(, $($rest:tt)*)?) => {{
        $crate::__tracelogging_option!($o, $opt, $v);
        $crate::__tracelogging_args!($p, $name, $o, [$($f)*] $($($rest)*)?)
    }};
    ($p:ident, $name:literal, $o:ident, [$($f:tt)*] $field:ident = $v:expr $(, $($rest:tt)*)?) => {
        $crate::__tracelogging_args!($p, $name, $o,
            [$($f)* $crate::Field::new($crate::__tracelogging_cstr!(::core::stringify!($field)), &$v),] $($($rest)*)?)
    };
    ($p:ident, $name:literal, $o:ident, [$($f:tt)*] $field:literal = $v:expr $(, $($rest:tt)*)?) => {
        $crate::__tracelogging_args!($p, $name, $o,
            [$($f)* $crate::Field::new($crate::__tracelogging_cstr!($field), &$v),] $($($rest)*)?)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __tracelogging_option {
    ($o:ident, level, $v:expr) => { $o.level = $v };
    ($o:ident, keyword, $v:expr) => { $o.keyword = $v };
    ($o:ident, opcode, $v:expr) => { $o.opcode = $v };
    ($o:ident, channel, $v:expr) => { $o.channel = $v };
    ($o:ident, id, $v:expr) => { $o.id = $v };
    ($o:ident, version, $v:expr) => { $o.version = $v };
    ($o:ident, task, $v:expr) => { $o.task = $v };
    ($o:ident, activity, $v:expr) => { $o.activity = $v };
}
