//! Decoded events (decode.h): names and typed fields of TraceLogging,
//! manifest and kernel (MOF) events.
//!
//! [`Record::decode`] (or [`ClassicEvent::decode`]) decodes with a decoder of
//! the calling thread and copies the result into a [`DecodedEvent`] that
//! owns its values, so it outlives the callback. Fields are [`Value`]s with
//! the width of their TDH in-type; [`DecodedEvent::get`] converts one to a
//! Rust type through [`FromValue`] and fails, naming the field and both
//! types, when the types differ (no silent widening).
use core::fmt;
use std::cell::RefCell;
use std::ffi::CStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use openetw_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::records::{ClassicEvent, Record};
use crate::types::Guid;

/// One decoded value, typed by its TDH in-type (and out-type where it
/// changes the meaning: booleans, character arrays shown as strings).
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Value {
    Null,
    I8(i8),
    U8(u8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
    /// Strings of every in-type, and character arrays shown as one string.
    String(String),
    /// Binary and hex-dump fields.
    Binary(Vec<u8>),
    Guid(Guid),
    /// A pointer or SIZE_T of the event's pointer size.
    Pointer(u64),
    /// FILETIME (UTC), or SYSTEMTIME read as UTC.
    Time(SystemTime),
    /// A SID as text ("S-1-5-18").
    Sid(String),
    /// Values TDH only formats (IP addresses, socket addresses, XML, JSON): the library's text.
    Text(String),
    Array(Vec<Value>),
    /// Members in payload order.
    Struct(Vec<(String, Value)>),
}

impl Value {
    /// The variant's name, as errors show it ("U32", "String", ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "Null",
            Value::I8(_) => "I8",
            Value::U8(_) => "U8",
            Value::I16(_) => "I16",
            Value::U16(_) => "U16",
            Value::I32(_) => "I32",
            Value::U32(_) => "U32",
            Value::I64(_) => "I64",
            Value::U64(_) => "U64",
            Value::F32(_) => "F32",
            Value::F64(_) => "F64",
            Value::Bool(_) => "Bool",
            Value::String(_) => "String",
            Value::Binary(_) => "Binary",
            Value::Guid(_) => "Guid",
            Value::Pointer(_) => "Pointer",
            Value::Time(_) => "Time",
            Value::Sid(_) => "Sid",
            Value::Text(_) => "Text",
            Value::Array(_) => "Array",
            Value::Struct(_) => "Struct",
        }
    }
}

/// Which schema described an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Metadata carried by the event.
    TraceLogging,
    /// A classic kernel (MOF) class.
    Kernel,
    /// An instrumentation manifest.
    Manifest,
    /// A source this version of the crate does not know (its code).
    Other(u32),
}

/// One property as decode.h gives it: the tree in payload order.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The property's name (array elements are named like the array).
    pub name: String,
    /// The library's formatted text ("" for arrays and structs).
    pub formatted: String,
    /// Index of the enclosing array or struct, or None at the top level.
    pub parent: Option<usize>,
    /// Elements of an array, members of a struct.
    pub child_count: u32,
    /// `sys::ETW_PROPERTY_KIND_*`.
    pub kind: u32,
    /// TDH_INTYPE_*.
    pub in_type: u16,
    /// TDH_OUTTYPE_*.
    pub out_type: u16,
}

/// A decoded event that owns its names and values.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedEvent {
    /// Which schema described it.
    pub source: Source,
    /// The event's name ("" when the schema has none), and likewise below.
    pub event_name: String,
    #[allow(missing_docs)]
    pub provider_name: String,
    #[allow(missing_docs)]
    pub task_name: String,
    #[allow(missing_docs)]
    pub opcode_name: String,
    #[allow(missing_docs)]
    pub level_name: String,
    #[allow(missing_docs)]
    pub keywords_name: String,
    /// Payload bytes the properties cover.
    pub payload_used: u32,
    /// Every property (values, arrays, structs, elements) in payload order.
    pub properties: Vec<Property>,
    /// Top-level fields in payload order, arrays and structs nested.
    pub fields: Vec<(String, Value)>,
}

impl DecodedEvent {
    /// The top-level field `name` (the first, if the schema repeats a name).
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The top-level field names in payload order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(n, _)| n.as_str())
    }

    /// The formatted text of the top-level field `name`.
    pub fn formatted(&self, name: &str) -> Option<&str> {
        self.properties.iter().find(|p| p.parent.is_none() && p.name == name).map(|p| p.formatted.as_str())
    }

    /// The field `name` as a `T`: an error with [`Status::NOT_FOUND`] when
    /// absent, [`Status::INVALID_PARAMETER`] when it holds another type; both
    /// messages name the event, the field and the types.
    pub fn get<T: FromValue>(&self, name: &str) -> Result<T> {
        let value = self.field(name).ok_or_else(|| {
            Error::new(Status::NOT_FOUND, format!("event '{}' has no field '{}'", self.event_name, name))
        })?;
        T::from_value(value).ok_or_else(|| {
            Error::new(
                Status::INVALID_PARAMETER,
                format!(
                    "field '{}' of event '{}' is {}, not {}",
                    name,
                    self.event_name,
                    value.type_name(),
                    T::TYPE_NAME
                ),
            )
        })
    }
}

/// A Rust type a [`Value`] converts to exactly (an `I32` is not a `u32` nor an `i64`).
pub trait FromValue: Sized {
    /// The name errors show for this type.
    const TYPE_NAME: &'static str;
    /// The value as Self, or None when it holds another type.
    fn from_value(value: &Value) -> Option<Self>;
}

macro_rules! from_value {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl FromValue for $t {
            const TYPE_NAME: &'static str = stringify!($t);
            fn from_value(value: &Value) -> Option<Self> {
                match value {
                    Value::$variant(v) => Some(v.clone()),
                    _ => None,
                }
            }
        }
    )*};
}

from_value! {
    i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32, i64 => I64, u64 => U64,
    f32 => F32, f64 => F64, bool => Bool, Vec<u8> => Binary, Guid => Guid, SystemTime => Time,
    Vec<Value> => Array,
}

impl FromValue for String {
    const TYPE_NAME: &'static str = "String";
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(s) | Value::Sid(s) | Value::Text(s) => Some(s.clone()),
            _ => None,
        }
    }
}

impl FromValue for Value {
    const TYPE_NAME: &'static str = "Value";
    fn from_value(value: &Value) -> Option<Self> {
        Some(value.clone())
    }
}

/// An owned decoder (etw_decoder). One per thread is kept for
/// [`Record::decode`]; make one yourself to control its lifetime.
pub struct Decoder {
    pub(crate) raw: *mut sys::etw_decoder,
}

impl Decoder {
    /// A decoder of TraceLogging and kernel events; load manifests and
    /// provider binaries with [`load_manifest`](Self::load_manifest) and
    /// [`load_binary`](Self::load_binary).
    pub fn new() -> Result<Self> {
        let mut raw = core::ptr::null_mut();
        check(unsafe { sys::etw_decoder_create(&mut raw) })?;
        Ok(Decoder { raw })
    }

    /// Decodes a record: [`Status::NOT_FOUND`] when no schema describes it,
    /// [`Status::INVALID_DATA`] when the payload does not match its schema.
    pub fn decode(&mut self, record: &Record<'_>) -> Result<DecodedEvent> {
        // Safety: a Record is a record the library delivered, borrowed for the call.
        unsafe { self.decode_raw(record.raw()) }
    }

    /// As [`decode`](Self::decode), for an `etw_record` built by hand (e.g.
    /// from a stored event).
    ///
    /// # Safety
    /// Its pointers (payload, bytes, extended) must be valid for their sizes.
    pub unsafe fn decode_raw(&mut self, record: &sys::etw_record) -> Result<DecodedEvent> {
        let mut out: *const sys::etw_decoded_event = core::ptr::null();
        check(unsafe { sys::etw_decoder_decode(&mut out, self.raw, record) })?;
        // Valid until the next decode on this decoder, which &mut self rules out meanwhile.
        Ok(unsafe { copy_event(&*out) })
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        unsafe { sys::etw_decoder_destroy(self.raw) }
    }
}

impl fmt::Debug for Decoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder").finish_non_exhaustive()
    }
}

// A decoder is used by one thread at a time (decode.h); moving it is fine.
unsafe impl Send for Decoder {}

thread_local! {
    // The thread's decoder and how many default sources (schemas.rs) it has.
    static DECODER: RefCell<Option<(Decoder, usize)>> = const { RefCell::new(None) };
}

impl Record<'_> {
    /// Decodes this record with the thread's decoder (see [`Decoder::decode`]),
    /// which has the default sources ([`crate::load_manifest`], [`crate::load_binary`]).
    pub fn decode(&self) -> Result<DecodedEvent> {
        DECODER.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some((Decoder::new()?, 0));
            }
            let (decoder, applied) = slot.as_mut().expect("created above");
            crate::schemas::catch_up(decoder, applied)?;
            decoder.decode(self)
        })
    }
}

impl ClassicEvent<'_> {
    /// Decodes the event's record (see [`Record::decode`]).
    pub fn decode(&self) -> Result<DecodedEvent> {
        self.record().decode()
    }
}

fn text(p: *const core::ffi::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

unsafe fn copy_event(e: &sys::etw_decoded_event) -> DecodedEvent {
    let raw: &[sys::etw_event_property] = if e.properties.is_null() || e.property_count == 0 {
        &[]
    } else {
        core::slice::from_raw_parts(e.properties, e.property_count as usize)
    };
    let properties: Vec<Property> = raw
        .iter()
        .map(|p| Property {
            name: text(p.name),
            formatted: text(p.value),
            parent: (p.parent != sys::ETW_PROPERTY_NO_PARENT).then_some(p.parent as usize),
            child_count: p.child_count,
            kind: p.kind,
            in_type: p.in_type,
            out_type: p.out_type,
        })
        .collect();
    let datas: Vec<&[u8]> = raw
        .iter()
        .map(|p| if p.data.is_null() { &[][..] } else { core::slice::from_raw_parts(p.data, p.data_size as usize) })
        .collect();
    let fields = tree(&properties, &datas);
    DecodedEvent {
        source: match e.source {
            sys::ETW_DECODE_SOURCE_TRACELOGGING => Source::TraceLogging,
            sys::ETW_DECODE_SOURCE_KERNEL => Source::Kernel,
            sys::ETW_DECODE_SOURCE_MANIFEST => Source::Manifest,
            other => Source::Other(other),
        },
        event_name: text(e.event_name),
        provider_name: text(e.provider_name),
        task_name: text(e.task_name),
        opcode_name: text(e.opcode_name),
        level_name: text(e.level_name),
        keywords_name: text(e.keywords_name),
        payload_used: e.payload_used,
        properties,
        fields,
    }
}

// Nests the flat array: each property joins its parent, built from the end
// so children are complete before their parent takes them.
fn tree(props: &[Property], datas: &[&[u8]]) -> Vec<(String, Value)> {
    let mut slots: Vec<Option<Value>> = props
        .iter()
        .zip(datas)
        .map(|(p, d)| {
            Some(match p.kind {
                sys::ETW_PROPERTY_KIND_ARRAY => Value::Array(Vec::new()),
                sys::ETW_PROPERTY_KIND_STRUCT => Value::Struct(Vec::new()),
                _ => convert(p, d),
            })
        })
        .collect();
    let mut top = Vec::new();
    for i in (0..props.len()).rev() {
        let value = slots[i].take().expect("each property is placed once");
        match props[i].parent {
            Some(parent) if parent < i => match slots[parent].as_mut() {
                Some(Value::Array(items)) => items.insert(0, value),
                Some(Value::Struct(members)) => members.insert(0, (props[i].name.clone(), value)),
                _ => top.insert(0, (props[i].name.clone(), value)),
            },
            _ => top.insert(0, (props[i].name.clone(), value)),
        }
    }
    top
}

const OUT_STRING: u16 = 1;
const OUT_BOOLEAN: u16 = 13;
const OUT_TEXT: [u16; 6] = [23, 24, 25, 28, 34, 35]; // IPv4, IPv6, socket address, XML, JSON, UTF-8

fn le<const N: usize>(d: &[u8]) -> Option<[u8; N]> {
    d.try_into().ok()
}

pub(crate) fn filetime(ticks: i64) -> SystemTime {
    // 100 ns since 1601-01-01 UTC; 11644473600 s before the Unix epoch.
    const EPOCH_DIFF: i64 = 11_644_473_600 * 10_000_000;
    let since_unix = ticks - EPOCH_DIFF;
    if since_unix >= 0 {
        UNIX_EPOCH + Duration::from_nanos(since_unix as u64 * 100)
    } else {
        UNIX_EPOCH - Duration::from_nanos(since_unix.unsigned_abs() * 100)
    }
}

// Days from 1970-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn systemtime(d: &[u8]) -> Option<SystemTime> {
    let w: Vec<i64> = d.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]) as i64).collect();
    let (y, mo, day, h, mi, s, ms) = (w[0], w[1], w[3], w[4], w[5], w[6], w[7]);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&day) || h > 23 || mi > 59 || s > 59 || ms > 999 {
        return None;
    }
    let secs = days_from_civil(y, mo, day) * 86_400 + h * 3600 + mi * 60 + s;
    let t = if secs >= 0 {
        UNIX_EPOCH + Duration::from_secs(secs as u64)
    } else {
        UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs())
    };
    Some(t + Duration::from_millis(ms as u64))
}

fn convert(p: &Property, d: &[u8]) -> Value {
    let text = || p.formatted.clone();
    match p.in_type {
        1 | 2 | 22 | 23 | 300..=307 => return Value::String(text()),
        _ => {}
    }
    if p.out_type == OUT_STRING {
        return Value::String(text()); // a character array shown as one string
    }
    if OUT_TEXT.contains(&p.out_type) {
        return Value::Text(text());
    }
    let value = match p.in_type {
        0 => Some(Value::Null),
        3 => le::<1>(d).map(|b| Value::I8(b[0] as i8)),
        4 if p.out_type == OUT_BOOLEAN => le::<1>(d).map(|b| Value::Bool(b[0] != 0)),
        4 => le::<1>(d).map(|b| Value::U8(b[0])),
        5 => le::<2>(d).map(|b| Value::I16(i16::from_le_bytes(b))),
        6 => le::<2>(d).map(|b| Value::U16(u16::from_le_bytes(b))),
        7 => le::<4>(d).map(|b| Value::I32(i32::from_le_bytes(b))),
        8 | 20 if p.out_type == OUT_BOOLEAN => le::<4>(d).map(|b| Value::Bool(u32::from_le_bytes(b) != 0)),
        8 | 20 => le::<4>(d).map(|b| Value::U32(u32::from_le_bytes(b))),
        9 => le::<8>(d).map(|b| Value::I64(i64::from_le_bytes(b))),
        10 | 21 => le::<8>(d).map(|b| Value::U64(u64::from_le_bytes(b))),
        11 => le::<4>(d).map(|b| Value::F32(f32::from_le_bytes(b))),
        12 => le::<8>(d).map(|b| Value::F64(f64::from_le_bytes(b))),
        13 => le::<4>(d).map(|b| Value::Bool(u32::from_le_bytes(b) != 0)),
        14 | 25 | 309 => Some(Value::Binary(d.to_vec())),
        15 => le::<16>(d).map(|b| {
            Value::Guid(Guid {
                data1: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                data2: u16::from_le_bytes([b[4], b[5]]),
                data3: u16::from_le_bytes([b[6], b[7]]),
                data4: [b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]],
            })
        }),
        16 | 308 => match d.len() {
            4 => le::<4>(d).map(|b| Value::Pointer(u32::from_le_bytes(b) as u64)),
            8 => le::<8>(d).map(|b| Value::Pointer(u64::from_le_bytes(b))),
            _ => None,
        },
        17 => le::<8>(d).map(|b| Value::Time(filetime(i64::from_le_bytes(b)))),
        18 if d.len() == 16 => systemtime(d).map(Value::Time),
        19 | 310 => Some(Value::Sid(text())),
        _ => None,
    };
    // Anything without a closer Rust type keeps the library's text.
    value.unwrap_or_else(|| Value::Text(text()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prop(in_type: u16, out_type: u16, formatted: &str) -> Property {
        Property { name: "F".into(), formatted: formatted.into(), parent: None, child_count: 0, kind: 0, in_type, out_type }
    }

    #[test]
    fn times_convert_to_system_time() {
        // 2020-07-14T12:04:43.2816874Z = 1594728283.2816874 s after the Unix epoch.
        let ft = 132392018832816874i64.to_le_bytes();
        let want = UNIX_EPOCH + Duration::from_nanos(1_594_728_283_281_687_400);
        assert_eq!(convert(&prop(17, 0, ""), &ft), Value::Time(want));
        // SYSTEMTIME 2024-02-29 (a Thursday) 23:59:58.123.
        let st: Vec<u8> = [2024u16, 2, 4, 29, 23, 59, 58, 123].iter().flat_map(|w| w.to_le_bytes()).collect();
        let want = UNIX_EPOCH + Duration::from_millis(1_709_251_198_123);
        assert_eq!(convert(&prop(18, 0, ""), &st), Value::Time(want));
        // Not a date: the library's text.
        assert_eq!(convert(&prop(18, 0, "0000-00-00"), &[0u8; 16]), Value::Text("0000-00-00".into()));
    }

    #[test]
    fn widths_booleans_and_fallbacks() {
        assert_eq!(convert(&prop(4, 13, "true"), &[1]), Value::Bool(true)); // TraceLogging BOOL8
        assert_eq!(convert(&prop(13, 0, "false"), &[0, 0, 0, 0]), Value::Bool(false));
        assert_eq!(convert(&prop(5, 0, ""), &(-2i16).to_le_bytes()), Value::I16(-2));
        assert_eq!(convert(&prop(21, 0, ""), &7u64.to_le_bytes()), Value::U64(7));
        assert_eq!(convert(&prop(12, 0, ""), &1.5f64.to_le_bytes()), Value::F64(1.5));
        assert_eq!(convert(&prop(16, 0, ""), &[1, 0, 0, 0]), Value::Pointer(1));
        assert_eq!(convert(&prop(14, 0, ""), &[9, 8]), Value::Binary(vec![9, 8]));
        assert_eq!(convert(&prop(8, 23, "10.0.0.1"), &[10, 0, 0, 1]), Value::Text("10.0.0.1".into()));
        assert_eq!(convert(&prop(19, 0, "S-1-5-18"), &[]), Value::Sid("S-1-5-18".into()));
        assert_eq!(convert(&prop(8, 0, "?"), &[1, 2]), Value::Text("?".into())); // wrong size
    }
}
