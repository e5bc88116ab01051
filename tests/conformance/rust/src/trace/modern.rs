//! The scenario's "Modern providers: TraceLogging, filters, properties"
//! verbs (README.md): enable_ex through `EnableOptions` and `Filter`,
//! write_tl through the `tracelogging!` macro's builder (`Field`s of the
//! typed values), expect_tl through the crate's decoder, expect_items.
use openetw::{
    extended_item_sid, extended_item_stack, sys, DecodedEvent, EnableOptions, EnableProperty, Field, Filter, Record,
    TraceLoggingOptions, Value as Decoded,
};
use std::ffi::CString;

use super::{opt_number, Trace};
use crate::{expect, guid, number, take, Failure, Fields, Value};

/// What a record's extended data items say, read while its callback ran.
#[derive(Default)]
pub(super) struct Items {
    stack: bool,         // a STACK_TRACE64/32 item with at least one address
    sid: Option<String>, // a SID item's text
    ts_id: bool,
    process_start_key: Option<u64>,
    event_key: Option<u64>,
}

fn u64_of(x: &sys::etw_extended_item) -> u64 {
    if x.data_size != 8 {
        return 0;
    }
    let mut v = [0u8; 8];
    // The library's item: data_size bytes at data, borrowed during the callback.
    unsafe { std::ptr::copy_nonoverlapping(x.data, v.as_mut_ptr(), 8) };
    u64::from_le_bytes(v)
}

impl Items {
    pub(super) fn of(items: &[sys::etw_extended_item]) -> Items {
        let mut out = Items::default();
        for x in items {
            match u32::from(x.ext_type) {
                sys::ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 | sys::ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32 => {
                    out.stack |= extended_item_stack(x).is_ok_and(|(_, a)| !a.is_empty())
                }
                sys::ETW_EVENT_HEADER_EXT_TYPE_SID => out.sid = extended_item_sid(x).ok(),
                sys::ETW_EVENT_HEADER_EXT_TYPE_TS_ID => out.ts_id = true,
                sys::ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY => out.process_start_key = Some(u64_of(x)),
                sys::ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY => out.event_key = Some(u64_of(x)),
                _ => {}
            }
        }
        out
    }
}

/// One TraceLogging field as the scenario spells it: name, type word and
/// the value as it reads back (f64 through the double it is).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct TlField {
    name: String,
    kind: String,
    value: String,
}

/// A TraceLogging record's name and its top-level fields.
pub(super) struct TlDecoded {
    name: String,
    fields: Vec<TlField>,
}

impl TlDecoded {
    pub(super) fn of(r: &Record<'_>) -> Option<TlDecoded> {
        let tl = sys::ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL;
        if !r.extended().iter().any(|x| u32::from(x.ext_type) == tl) {
            return None;
        }
        let d: DecodedEvent = r.decode().ok()?;
        let mut fields = Vec::new();
        const OUT_NULL: u16 = 0; // TDH_OUTTYPE_NULL: the in-type's default
        const OUT_BOOLEAN: u16 = 13; // TDH_OUTTYPE_BOOLEAN
        const OUT_UTF8: u16 = 35; // TDH_OUTTYPE_UTF8
        for p in d.properties.iter().filter(|p| p.parent.is_none()) {
            let value = d.fields.iter().find(|(n, _)| *n == p.name).map(|(_, v)| v);
            let value_kind = p.kind == sys::ETW_PROPERTY_KIND_VALUE;
            let (in_type, out) = (u32::from(p.in_type), p.out_type);
            // The integers and f64: one in-type each, the default out-type; bool: BOOL32, or
            // EventSource's UINT8 shown as a boolean; str: UTF-16, or 8-bit strings of UTF-8.
            let typed = match (value_kind, in_type, out, value) {
                (true, sys::ETW_TL_IN_INT32, OUT_NULL, Some(Decoded::I32(v))) => Some(("i32", v.to_string())),
                (true, sys::ETW_TL_IN_UINT32, OUT_NULL, Some(Decoded::U32(v))) => Some(("u32", v.to_string())),
                (true, sys::ETW_TL_IN_INT64, OUT_NULL, Some(Decoded::I64(v))) => Some(("i64", v.to_string())),
                (true, sys::ETW_TL_IN_UINT64, OUT_NULL, Some(Decoded::U64(v))) => Some(("u64", v.to_string())),
                (true, sys::ETW_TL_IN_DOUBLE, OUT_NULL, Some(Decoded::F64(v))) => Some(("f64", format!("{v:?}"))),
                (true, sys::ETW_TL_IN_BOOL32, OUT_NULL, Some(Decoded::Bool(v))) => Some(("bool", u8::from(*v).to_string())),
                (true, sys::ETW_TL_IN_UINT8, OUT_BOOLEAN, Some(Decoded::Bool(v))) => Some(("bool", u8::from(*v).to_string())),
                (true, sys::ETW_TL_IN_UNICODESTRING | sys::ETW_TL_IN_COUNTEDSTRING, _, Some(Decoded::String(v))) => {
                    Some(("str", v.clone()))
                }
                (true, sys::ETW_TL_IN_ANSISTRING | sys::ETW_TL_IN_COUNTEDANSISTRING, OUT_UTF8, Some(Decoded::String(v))) => {
                    Some(("str", v.clone()))
                }
                _ => None,
            };
            fields.push(match typed {
                Some((kind, value)) => TlField { name: p.name.clone(), kind: kind.to_owned(), value },
                None => TlField {
                    name: p.name.clone(),
                    kind: format!("in-type {in_type} out-type {out} kind {}", p.kind),
                    value: p.formatted.clone(),
                },
            });
        }
        Some(TlDecoded { name: d.event_name, fields })
    }
}

fn parse_number<T: std::str::FromStr>(name: &str, kind: &str, text: &str) -> Result<T, Failure> {
    text.parse().map_err(|_| format!("field {name}: {text:?} is no {kind}"))
}

/// fields="a:i32=1,b:str=x" as (name, type, the value as it reads back).
fn parse_fields(text: &str) -> Result<Vec<TlField>, Failure> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|part| {
            let (name, rest) = part.split_once(':').ok_or_else(|| format!("field {part:?} is not name:type=value"))?;
            let (kind, value) = rest.split_once('=').ok_or_else(|| format!("field {part:?} is not name:type=value"))?;
            let value = match kind {
                "i32" => parse_number::<i32>(name, kind, value)?.to_string(),
                "u32" => parse_number::<u32>(name, kind, value)?.to_string(),
                "i64" => parse_number::<i64>(name, kind, value)?.to_string(),
                "u64" => parse_number::<u64>(name, kind, value)?.to_string(),
                "f64" => format!("{:?}", parse_number::<f64>(name, kind, value)?),
                "bool" if value == "0" || value == "1" => value.to_owned(),
                "bool" => return Err(format!("bool field {name} is {value}, not 0 or 1")),
                "str" => value.to_owned(),
                _ => return Err(format!("unknown TraceLogging field type {kind}")),
            };
            Ok(TlField { name: name.to_owned(), kind: kind.to_owned(), value })
        })
        .collect()
}

/// A field's value in the Rust type whose TraceLogging in-type the scenario names.
enum Typed {
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F64(f64),
    Bool(bool),
    Str(String),
}

impl Typed {
    fn of(f: &TlField) -> Typed {
        // parse_fields checked every value.
        match f.kind.as_str() {
            "i32" => Typed::I32(f.value.parse().unwrap()),
            "u32" => Typed::U32(f.value.parse().unwrap()),
            "i64" => Typed::I64(f.value.parse().unwrap()),
            "u64" => Typed::U64(f.value.parse().unwrap()),
            "f64" => Typed::F64(f.value.parse().unwrap()),
            "bool" => Typed::Bool(f.value == "1"),
            _ => Typed::Str(f.value.clone()),
        }
    }

    fn field<'a>(&'a self, name: &'a std::ffi::CStr) -> Field<'a> {
        match self {
            Typed::I32(v) => Field::new(name, v),
            Typed::U32(v) => Field::new(name, v),
            Typed::I64(v) => Field::new(name, v),
            Typed::U64(v) => Field::new(name, v),
            Typed::F64(v) => Field::new(name, v),
            Typed::Bool(v) => Field::new(name, v),
            Typed::Str(v) => Field::new(name, v.as_str()),
        }
    }
}

fn ids(v: &Value) -> Result<Vec<u16>, Failure> {
    if v.text.is_empty() {
        return Ok(Vec::new());
    }
    v.text.split(',').map(|t| t.parse().map_err(|_| format!("{t:?} is no event id"))).collect()
}

fn hex(text: &str) -> Result<Vec<u8>, Failure> {
    if text.len() % 2 != 0 {
        return Err(format!("odd hex {text:?}"));
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|_| format!("bad hex {text:?}"))).collect()
}

impl Trace {
    /// Runs one of these verbs; Ok(false) when the verb is not one of them.
    pub(super) fn modern_step(&mut self, verb: &str, f: &mut Fields) -> Result<bool, Failure> {
        match verb {
            "enable_ex" => self.enable_ex(f)?,
            "write_tl" => self.write_tl(f)?,
            "expect_tl" => self.expect_tl(f)?,
            "expect_items" => self.expect_items(f)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn enable_ex(&self, f: &mut Fields) -> Result<(), Failure> {
        let g = guid(&take(f, "guid")?)?;
        let level = opt_number(f, "level", 0)? as u8;
        let (any, all) = (opt_number(f, "any", 0)?, opt_number(f, "all", 0)?);
        let include = opt_number(f, "filter_include", 1)? != 0;
        let mut opts = EnableOptions::new().properties(EnableProperty(opt_number(f, "properties", 0)? as u32));
        if let Some(v) = f.remove("filter_event_ids") {
            opts = opts.filter(Filter::event_ids(include, &ids(&v)?));
        }
        if let Some(v) = f.remove("filter_pid") {
            let pids: Vec<u32> = if !v.quoted && v.text == "self" {
                vec![std::process::id()]
            } else {
                v.text.split(',').map(|t| t.parse().map_err(|_| format!("{t:?} is no pid"))).collect::<Result<_, _>>()?
            };
            opts = opts.filter(Filter::pid(&pids));
        }
        if let Some(v) = f.remove("filter_exe") {
            opts = opts.filter(Filter::executable_name(&v.text));
        }
        if let Some(v) = f.remove("filter_event_names") {
            let names: Vec<&str> = if v.text.is_empty() { Vec::new() } else { v.text.split(',').collect() };
            opts = opts.filter(Filter::event_names(include, &names));
        }
        if let Some(v) = f.remove("filter_stackwalk_ids") {
            opts = opts.filter(Filter::stackwalk(true, &ids(&v)?));
        }
        if let Some(v) = f.remove("filter_raw") {
            let (ty, bytes) = v.text.split_once(':').ok_or_else(|| format!("filter_raw {:?} is not TYPE:HEX", v.text))?;
            let ty = number(&Value { text: ty.to_owned(), quoted: false })? as u32;
            opts = opts.filter(Filter::raw(ty, &hex(bytes)?));
        }
        let outcome = self.session()?.enable_provider_ex(&g, level, any, all, &opts);
        expect(f, outcome)?;
        Ok(())
    }

    fn write_tl(&self, f: &mut Fields) -> Result<(), Failure> {
        let provider = self.provider()?;
        let count = opt_number(f, "count", 1)?;
        let name = CString::new(take(f, "name")?.text).map_err(|_| "the event name holds a NUL".to_owned())?;
        let options = TraceLoggingOptions {
            level: opt_number(f, "level", 0)? as u8,
            keyword: opt_number(f, "keyword", 0)?,
            opcode: opt_number(f, "opcode", 0)? as u8,
            ..Default::default()
        };
        let spelled = f.remove("fields").map(|v| parse_fields(&v.text)).transpose()?.unwrap_or_default();
        let names: Vec<CString> = spelled
            .iter()
            .map(|x| CString::new(x.name.clone()).map_err(|_| format!("field name {:?} holds a NUL", x.name)))
            .collect::<Result<_, _>>()?;
        let values: Vec<Typed> = spelled.iter().map(Typed::of).collect();
        let fields: Vec<Field<'_>> = values.iter().zip(&names).map(|(v, n)| v.field(n)).collect();
        let control: Fields = ["status", "message"].iter().filter_map(|k| f.remove(*k).map(|v| (k.to_string(), v))).collect();
        for i in 0..count {
            // As the tracelogging! macro expands: an event no session takes is not built.
            let outcome = if provider.is_enabled(options.level, options.keyword) {
                provider.write_tracelogging(&name, &options, &fields)
            } else {
                Ok(())
            };
            expect(&mut control.clone(), outcome).map_err(|e| format!("event {i}: {e}"))?;
        }
        Ok(())
    }

    fn expect_tl(&self, f: &mut Fields) -> Result<(), Failure> {
        let count = number(&take(f, "count")?)? as usize;
        let name = take(f, "name")?.text;
        let fields = f.remove("fields").map(|v| parse_fields(&v.text)).transpose()?;
        let records = &self.last()?.collected.records;
        let named = || records.iter().filter_map(|r| r.tl.as_ref()).filter(|t| t.name == name);
        let got = named().filter(|t| fields.as_ref().is_none_or(|want| &t.fields == want)).count();
        if got != count {
            let one = named().next().map(|t| {
                t.fields.iter().map(|x| format!("{}:{}={}", x.name, x.kind, x.value)).collect::<Vec<_>>().join(",")
            });
            return Err(format!("{got} TraceLogging records {name} match, expected {count} (one reads {one:?})"));
        }
        Ok(())
    }

    fn expect_items(&self, f: &mut Fields) -> Result<(), Failure> {
        let count = number(&take(f, "count")?)? as usize;
        let event_id = f.remove("event_id").map(|v| number(&v)).transpose()?;
        let stack = f.remove("stack").map(|v| number(&v)).transpose()?;
        let sid = match f.remove("sid") {
            Some(v) if !v.quoted && v.text == "self" => Some(Some(format!("S-1-22-1-{}", unsafe { geteuid() }))),
            Some(v) if number(&v)? == 0 => Some(None),
            Some(v) => return Err(format!("sid={}: self or 0", v.text)),
            None => None,
        };
        let ts_id = f.remove("ts_id").map(|v| number(&v)).transpose()?;
        let start_key = f.remove("process_start_key").map(|v| number(&v)).transpose()?;
        let event_key = f.remove("event_key").map(|v| number(&v)).transpose()?;
        if let Some(key) = f.keys().next() {
            return Err(format!("unknown field {key}"));
        }
        // want 1: an item holding a nonzero value; want 0: no such item.
        let key_is = |item: Option<u64>, want: u64| if want != 0 { item.is_some_and(|k| k != 0) } else { item.is_none() };
        let got = self
            .last()?
            .collected
            .records
            .iter()
            .filter(|r| {
                let i = &r.items;
                event_id.is_none_or(|v| u64::from(r.event_id) == v)
                    && stack.is_none_or(|v| i.stack == (v != 0))
                    && sid.as_ref().is_none_or(|v| &i.sid == v)
                    && ts_id.is_none_or(|v| i.ts_id == (v != 0))
                    && start_key.is_none_or(|v| key_is(i.process_start_key, v))
                    && event_key.is_none_or(|v| key_is(i.event_key, v))
            })
            .count();
        if got != count {
            return Err(format!("{got} records match, expected {count}"));
        }
        Ok(())
    }
}

extern "C" {
    fn geteuid() -> u32;
}
