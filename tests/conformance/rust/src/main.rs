//! Rust conformance runner: executes tests/conformance/scenario.txt through the
//! openetw crate (format and verbs: tests/conformance/README.md).
mod trace;

use std::collections::HashMap;
use std::mem::{offset_of, size_of, size_of_val};
use std::process::ExitCode;

use openetw::{ClockType, EventTraceProperties, Guid, KernelFlags, LogFileMode, Properties, Status};

use trace::Trace;

static CONSTANTS: &[(&str, u64)] = include!(concat!(env!("OUT_DIR"), "/constants.rs"));

pub(crate) type Failure = String;
type Step = Result<(), Failure>;

#[derive(Clone, Debug)]
pub(crate) struct Value {
    pub(crate) text: String,
    quoted: bool,
}

/// (key, value) pairs; the verb and positional words have an empty key.
fn tokenize(line: &str) -> Result<Vec<(String, Value)>, Failure> {
    let chars: Vec<char> = line.chars().collect();
    let (mut tokens, mut i, n) = (Vec::new(), 0, chars.len());
    while i < n {
        if chars[i].is_whitespace() {
            i += 1;
            continue;
        }
        if chars[i] == '#' {
            break;
        }
        let mut key = String::new();
        let mut j = i;
        while j < n && (chars[j].is_alphanumeric() || chars[j] == '_' || chars[j] == '.') {
            j += 1;
        }
        if j < n && j > i && chars[j] == '=' && (chars[i].is_alphabetic() || chars[i] == '_') {
            key = chars[i..j].iter().collect();
            i = j + 1;
        }
        if i < n && chars[i] == '"' {
            let mut text = String::new();
            i += 1;
            while i < n && chars[i] != '"' {
                if chars[i] == '\\' && i + 1 < n {
                    i += 1;
                }
                text.push(chars[i]);
                i += 1;
            }
            if i >= n {
                return Err("unterminated string".into());
            }
            i += 1;
            if i < n && chars[i] == '*' {
                let start = i + 1;
                i = start;
                while i < n && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let count: usize = chars[start..i].iter().collect::<String>().parse().map_err(|_| "bad repeat count")?;
                text = text.repeat(count);
            }
            tokens.push((key, Value { text, quoted: true }));
        } else {
            let start = i;
            while i < n && !chars[i].is_whitespace() {
                i += 1;
            }
            tokens.push((key, Value { text: chars[start..i].iter().collect(), quoted: false }));
        }
    }
    Ok(tokens)
}

/// An integer, or ETW_* constants joined with '|', resolved through the binding.
pub(crate) fn number(v: &Value) -> Result<u64, Failure> {
    if v.quoted {
        return Err(format!("expected a number, got {:?}", v.text));
    }
    let mut total = 0u64;
    for part in v.text.split('|') {
        total |= if part.starts_with("ETW_") || part.starts_with("OPENETW_") {
            CONSTANTS.iter().find(|(name, _)| *name == part).map(|c| c.1).ok_or(format!("the binding has no constant {part}"))?
        } else if let Some(hex) = part.strip_prefix("0x") {
            u64::from_str_radix(hex, 16).map_err(|e| format!("{part}: {e}"))?
        } else if part.starts_with('-') {
            part.parse::<i64>().map_err(|e| format!("{part}: {e}"))? as u64
        } else {
            part.parse::<u64>().map_err(|e| format!("{part}: {e}"))?
        };
    }
    Ok(total)
}

pub(crate) fn guid(v: &Value) -> Result<Guid, Failure> {
    v.text.parse().map_err(|e: openetw::Error| e.message().to_owned())
}

// The binding's own layout of each record member, by the scenario's dotted name.
fn binding_field(name: &str) -> Option<(usize, usize)> {
    let r = EventTraceProperties { ..unsafe { std::mem::zeroed() } };
    macro_rules! table {
        ($($($part:ident).+),* $(,)?) => {
            [$((stringify!($($part).+).replace(' ', ""), offset_of!(EventTraceProperties, $($part).+), size_of_val(&r.$($part).+))),*]
        };
    }
    let fields = table!(
        Wnode.BufferSize, Wnode.ProviderId, Wnode.HistoricalContext, Wnode.TimeStamp, Wnode.Guid,
        Wnode.ClientContext, Wnode.Flags, BufferSize, MinimumBuffers, MaximumBuffers, MaximumFileSize,
        LogFileMode, FlushTimer, EnableFlags, AgeLimit, NumberOfBuffers, FreeBuffers, EventsLost,
        BuffersWritten, LogBuffersLost, RealTimeBuffersLost, LoggerThreadId, LogFileNameOffset, LoggerNameOffset,
    );
    fields.iter().find(|f| f.0 == name).map(|f| (f.1, f.2))
}

#[derive(Default)]
struct Runner {
    fields: HashMap<String, (usize, usize)>,
    blocks: HashMap<String, Vec<u8>>,
    props: Option<Properties>,
    original: Option<Properties>,
    block: Vec<u8>,
    case: String,
    /// Sessions, providers, events and records (trace.rs).
    trace: Trace,
}

pub(crate) type Fields = HashMap<String, Value>;

pub(crate) fn take(f: &mut Fields, key: &str) -> Result<Value, Failure> {
    f.remove(key).ok_or(format!("missing field {key}"))
}

/// Checks the status and message a step expects against a call's outcome.
pub(crate) fn expect<T>(f: &mut Fields, outcome: openetw::Result<T>) -> Result<Option<T>, Failure> {
    let want = f.remove("status").map_or("ETW_OK".to_owned(), |v| v.text);
    let want_message = f.remove("message").map(|v| v.text);
    let (got, message, value) = match outcome {
        Ok(v) => ("ETW_OK".to_owned(), String::new(), Some(v)),
        Err(e) => (e.status().name().to_owned(), e.message().to_owned(), None),
    };
    if got != want {
        return Err(format!("status {got} ({message}), expected {want}"));
    }
    if let Some(m) = want_message {
        if !message.contains(&m) {
            return Err(format!("message {message:?} lacks {m:?}"));
        }
    }
    Ok(value)
}

impl Runner {
    fn props(&mut self) -> Result<&mut Properties, Failure> {
        self.props.as_mut().ok_or_else(|| "no properties object".to_owned())
    }

    fn field(&self, name: &str) -> Result<(usize, usize), Failure> {
        self.fields.get(name).copied().ok_or(format!("unknown field {name}"))
    }

    fn range(&self, at: usize, size: usize) -> Result<std::ops::Range<usize>, Failure> {
        if at + size > self.block.len() {
            return Err(format!("offset {at} is past the block ({} bytes)", self.block.len()));
        }
        Ok(at..at + size)
    }

    fn read(&self, at: usize, size: usize) -> Result<u64, Failure> {
        let r = self.range(at, size)?;
        Ok(self.block[r].iter().rev().fold(0u64, |v, b| (v << 8) | u64::from(*b)))
    }

    // A field's bytes as the block stores them: little-endian integers, Windows-layout GUIDs.
    fn field_bytes(&self, name: &str, v: &Value) -> Result<Vec<u8>, Failure> {
        let (_, size) = self.field(name)?;
        if size == 16 {
            return Ok(guid(v)?.to_bytes_le().to_vec());
        }
        Ok(number(v)?.to_le_bytes()[..size].to_vec())
    }

    fn offset(&self, v: &Value) -> Result<usize, Failure> {
        match self.fields.get(&v.text) {
            Some(&(at, size)) => Ok(self.read(at, size)? as usize),
            None => Ok(number(v)? as usize),
        }
    }

    fn step(&mut self, verb: &str, f: &mut Fields) -> Step {
        match verb {
            "layout" => {
                if number(&take(f, "pointer_size")?)? as usize != size_of::<usize>() {
                    return Err("the scenario describes another pointer size".into());
                }
                if number(&take(f, "record_size")?)? as usize != size_of::<EventTraceProperties>() {
                    return Err("record size differs".into());
                }
            }
            "field" => {
                let name = take(f, "name")?.text;
                let declared = (number(&take(f, "at")?)? as usize, number(&take(f, "size")?)? as usize);
                let actual = binding_field(&name).ok_or(format!("the binding's record has no member {name}"))?;
                if declared != actual {
                    return Err(format!("field {name} is at {actual:?} in the binding, {declared:?} in the scenario"));
                }
                self.fields.insert(name, declared);
            }
            "case" => {
                self.trace.reset();
                self.props = None;
                self.original = None;
                self.block.clear();
            }
            "create" => {
                let name = take(f, "name")?.text;
                if let Some(p) = expect(f, Properties::new(&name))? {
                    self.props = Some(p);
                }
            }
            "set" => {
                let control: Fields = ["status", "message"].iter().filter_map(|k| f.remove(*k).map(|v| (k.to_string(), v))).collect();
                let mut members: Vec<(String, Value)> = f.drain().collect();
                members.sort_by_key(|(k, _)| k.clone()); // order is irrelevant: each is one setter
                for (member, v) in members {
                    let p = self.props()?;
                    let outcome = match member.as_str() {
                        "session_name" => p.set_session_name(&v.text),
                        "log_file_name" => p.set_log_file_name(Some(&v.text)),
                        "buffer_size" => p.set_buffer_size(number(&v)? as u32),
                        "minimum_buffers" => p.set_minimum_buffers(number(&v)? as u32),
                        "maximum_buffers" => p.set_maximum_buffers(number(&v)? as u32),
                        "maximum_file_size" => p.set_maximum_file_size(number(&v)? as u32),
                        "log_file_mode" => p.set_log_file_mode(LogFileMode(number(&v)? as u32)),
                        "flush_timer" => p.set_flush_timer(number(&v)? as u32),
                        "enable_flags" => p.set_enable_flags(KernelFlags(number(&v)? as u32)),
                        "clock_type" => p.set_clock_type(ClockType(number(&v)? as u32)),
                        "flush_threshold" => p.set_flush_threshold(number(&v)? as i32),
                        "guid" => p.set_guid(guid(&v)?),
                        _ => return Err(format!("unknown member {member}")),
                    };
                    expect(&mut control.clone(), outcome)?;
                }
            }
            "get" => {
                let members: Vec<(String, Value)> = f.drain().collect();
                for (member, v) in members {
                    let p = self.props()?;
                    let (got, want) = match member.as_str() {
                        "session_name" => (p.session_name().to_owned(), v.text.clone()),
                        "log_file_name" => (p.log_file_name().unwrap_or("").to_owned(), v.text.clone()),
                        "guid" => (p.guid().to_string(), guid(&v)?.to_string()),
                        _ => {
                            let got: u64 = match member.as_str() {
                                "buffer_size" => p.buffer_size().into(),
                                "minimum_buffers" => p.minimum_buffers().into(),
                                "maximum_buffers" => p.maximum_buffers().into(),
                                "maximum_file_size" => p.maximum_file_size().into(),
                                "log_file_mode" => p.log_file_mode().bits().into(),
                                "flush_timer" => p.flush_timer().into(),
                                "enable_flags" => p.enable_flags().bits().into(),
                                "clock_type" => p.clock_type().0.into(),
                                "flush_threshold" => i64::from(p.flush_threshold()) as u64,
                                "number_of_buffers" => p.number_of_buffers().into(),
                                "free_buffers" => p.free_buffers().into(),
                                "events_lost" => p.events_lost().into(),
                                "buffers_written" => p.buffers_written().into(),
                                "log_buffers_lost" => p.log_buffers_lost().into(),
                                "real_time_buffers_lost" => p.real_time_buffers_lost().into(),
                                "logger_thread_id" => p.logger_thread_id(),
                                "historical_context" => p.historical_context(),
                                _ => return Err(format!("unknown member {member}")),
                            };
                            (got.to_string(), number(&v)?.to_string())
                        }
                    };
                    if got != want {
                        return Err(format!("{member} is {got}, expected {want}"));
                    }
                }
            }
            "clone" => {
                let copy = self.props()?.clone();
                self.original = self.props.replace(copy);
            }
            "original" => self.props = Some(self.original.take().ok_or("no original")?),
            "validate" => {
                let outcome = self.props()?.validate();
                expect(f, outcome)?;
            }
            "export" => {
                let size = number(&take(f, "size")?)? as usize;
                let p = self.props()?;
                if p.block_size() != size {
                    return Err(format!("block size is {}, expected {size}", p.block_size()));
                }
                match p.export_into(&mut vec![0u8; size - 1]) {
                    Err(e) if e.status() == Status::MORE_DATA => {}
                    other => return Err(format!("a buffer one byte short gave {other:?}")),
                }
                let block = p.to_block();
                let record = p.record();
                let record_bytes = unsafe {
                    std::slice::from_raw_parts((&record as *const EventTraceProperties).cast::<u8>(), size_of::<EventTraceProperties>())
                };
                if record_bytes != &block[..record_bytes.len()] {
                    return Err("the block's fixed part differs from record()".into());
                }
                expect(f, Ok(()))?;
                self.blocks.insert(self.case.clone(), block.clone());
                self.block = block;
            }
            "import" => {
                if let Some(p) = expect(f, Properties::from_block(&self.block))? {
                    self.props = Some(p);
                }
            }
            "roundtrip" => {
                let back = Properties::from_block(&self.block).map_err(|e| e.to_string())?;
                if back.to_block() != self.block {
                    return Err("the block changed in an import/export round trip".into());
                }
            }
            "expect" => {
                let name = take(f, "field")?.text;
                let (at, size) = self.field(&name)?;
                let want = self.field_bytes(&name, &take(f, "value")?)?;
                let got = &self.block[self.range(at, size)?];
                if got != want.as_slice() {
                    return Err(format!("field {name} is {got:02x?}, expected {want:02x?} (bytes in block order)"));
                }
            }
            "expect_text" => {
                let at = self.offset(&take(f, "at")?)?;
                let want = take(f, "text")?.text;
                let mut units = Vec::new();
                while self.read(at + 2 * units.len(), 2)? != 0 {
                    units.push(self.read(at + 2 * units.len(), 2)? as u16);
                }
                let got = String::from_utf16(&units).map_err(|e| e.to_string())?;
                if got != want {
                    return Err(format!("text at {at} is {got:?}, expected {want:?}"));
                }
            }
            "block" => self.block = vec![0u8; number(&take(f, "size")?)? as usize],
            "load" => {
                let name = take(f, "block")?.text;
                self.block = self.blocks.get(&name).cloned().ok_or(format!("case {name} exported no block"))?;
            }
            "resize" => {
                let size = number(&take(f, "size")?)? as usize;
                self.block.resize(size, 0);
            }
            "poke" => {
                let name = take(f, "field")?.text;
                let (at, size) = self.field(&name)?;
                let bytes = self.field_bytes(&name, &take(f, "value")?)?;
                let r = self.range(at, size)?;
                self.block[r].copy_from_slice(&bytes);
            }
            "poke_u16" => {
                let at = number(&take(f, "at")?)? as usize;
                let value = number(&take(f, "value")?)? as u16;
                let r = self.range(at, 2)?;
                self.block[r].copy_from_slice(&value.to_le_bytes());
            }
            "poke_text" => {
                let at = number(&take(f, "at")?)? as usize;
                let mut data: Vec<u8> = take(f, "text")?.text.encode_utf16().flat_map(u16::to_le_bytes).collect();
                data.extend([0, 0]);
                let r = self.range(at, data.len())?;
                self.block[r].copy_from_slice(&data);
            }
            _ => {
                let props = self.props.as_mut();
                if !self.trace.step(verb, f, props)? {
                    return Err(format!("unknown verb {verb}"));
                }
            }
        }
        if !f.is_empty() {
            return Err(format!("unknown fields {:?}", f.keys().collect::<Vec<_>>()));
        }
        Ok(())
    }
}

fn main() -> ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| "scenario.txt".into());
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            println!("FAIL (setup): cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut runner = Runner::default();
    let (mut cases, mut failed, mut case_failed) = (0, 0, false);
    let finish = |runner: &Runner, case_failed: bool, cases: &mut i32, failed: &mut i32| {
        if !runner.case.is_empty() {
            *cases += 1;
            if case_failed {
                *failed += 1;
            } else {
                println!("ok {}", runner.case);
            }
        }
    };
    for (index, line) in text.lines().enumerate() {
        let outcome = tokenize(line).and_then(|tokens| {
            let Some(((_, verb), rest)) = tokens.split_first() else { return Ok(()) };
            let mut fields: Fields = rest
                .iter()
                .filter(|(k, _)| !k.is_empty())
                .map(|(k, v)| (k.clone(), Value { text: runner.trace.expand(&v.text), quoted: v.quoted }))
                .collect();
            if verb.text == "case" {
                finish(&runner, case_failed, &mut cases, &mut failed);
                runner.case = rest.iter().find(|(k, _)| k.is_empty()).map(|(_, v)| v.text.clone()).ok_or("case needs a name")?;
                case_failed = false;
            } else if case_failed {
                return Ok(());
            } else if let Some((_, word)) = rest.iter().find(|(k, _)| k.is_empty()) {
                return Err(format!("unexpected word {}", word.text));
            }
            runner.step(&verb.text, &mut fields)
        });
        if let Err(message) = outcome {
            let case = if runner.case.is_empty() { "(setup)" } else { runner.case.as_str() };
            println!("FAIL {case} line {}: {message}", index + 1);
            if runner.case.is_empty() {
                return ExitCode::FAILURE;
            }
            case_failed = true;
        }
    }
    finish(&runner, case_failed, &mut cases, &mut failed);
    runner.trace.reset();
    runner.trace.remove_tmp();
    println!("{} cases passed{}", cases - failed, if failed > 0 { format!(", {failed} FAILED") } else { String::new() });
    if failed > 0 || cases == 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
