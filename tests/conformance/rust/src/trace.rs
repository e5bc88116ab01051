//! The scenario's session, provider, event and record verbs (README.md,
//! "Sessions, providers, events and records"), through the safe openetw API.
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use openetw::{
    Activity, Consumer, ConsumerBuilder, ConsumerStats, EnableInfo, EventClass, EventDescriptor, Guid, LogfileInfo,
    Order, Properties, Provider, Session, SessionOptions, SessionRights,
};

use crate::{expect, guid, number, take, Failure, Fields, Value};

mod modern;

/// A record copied while its callback ran.
struct Copied {
    kind: u32,
    guid: Guid,
    opcode: u8,
    level: u8,
    version: u16,
    event_id: u16,
    task: u16,
    channel: u8,
    keyword: u64,
    activity: Guid,
    related: Guid, // the RELATED_ACTIVITYID item's, zero without one
    payload: Vec<u8>,
    process_id: u32,
    timestamp: i64,
    items: modern::Items,           // what the extended data items say
    tl: Option<modern::TlDecoded>, // a TraceLogging event's name and decoded fields
}

/// What a consumer's closures collected.
#[derive(Default)]
struct Collected {
    records: Vec<Copied>,
    record_calls: usize,
    event_callbacks: u64,
    buffer_callbacks: u64,
}

/// What one process (file or live) left: the records, statistics and header.
struct Outcome {
    collected: Collected,
    stats: Option<ConsumerStats>,
    header: Option<LogfileInfo>,
}

type LiveResult = (openetw::Result<()>, Outcome);

#[derive(Default)]
pub struct Trace {
    tmp: Option<PathBuf>,
    session: Option<Session>,
    provider: Option<Provider>,
    enables: Arc<Mutex<Vec<EnableInfo>>>,
    last: Option<Outcome>,
    live: Option<JoinHandle<LiveResult>>,
}

fn opt_number(f: &mut Fields, key: &str, default: u64) -> Result<u64, Failure> {
    f.remove(key).map_or(Ok(default), |v| number(&v))
}

// start flags=: each ETW_SESSION_* start option bit sets its SessionOptions member.
fn start_options(flags: &Value) -> Result<SessionOptions, Failure> {
    let mut left = number(flags)?;
    let mut take = |bit: u32| {
        let set = left & u64::from(bit) != 0;
        left &= !u64::from(bit);
        set
    };
    let options = SessionOptions {
        lossless: take(openetw::sys::ETW_SESSION_LOSSLESS),
        replace_orphan: take(openetw::sys::ETW_SESSION_REPLACE_ORPHAN),
        take_over_orphan: take(openetw::sys::ETW_SESSION_TAKE_OVER_ORPHAN),
        ..Default::default()
    };
    if left != 0 {
        return Err(format!("flags={} has bits that are no start option", flags.text));
    }
    Ok(options)
}

// A record's RELATED_ACTIVITYID item (the zero GUID without one).
fn related_id(items: &[openetw::sys::etw_extended_item]) -> Guid {
    for x in items {
        if u32::from(x.ext_type) == openetw::sys::ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID && x.data_size == 16 {
            let mut g = openetw::sys::etw_guid { Data1: 0, Data2: 0, Data3: 0, Data4: [0; 8] };
            // The library's item: data_size bytes at data, borrowed during the callback.
            unsafe { std::ptr::copy_nonoverlapping(x.data, (&mut g as *mut openetw::sys::etw_guid).cast::<u8>(), 16) };
            return g.into();
        }
    }
    Guid::default()
}

// The closures every consumer of the runner uses; `stop_after` makes the
// record closure ask to stop on its Nth call.
fn builder(sink: &Arc<Mutex<Collected>>, stop_after: Option<usize>) -> ConsumerBuilder<'static> {
    let (records, events, buffers) = (Arc::clone(sink), Arc::clone(sink), Arc::clone(sink));
    Consumer::builder()
        .on_record(move |r| {
            let mut c = records.lock().unwrap();
            c.records.push(Copied {
                kind: r.kind().0,
                guid: r.guid(),
                opcode: r.opcode(),
                level: r.level(),
                version: r.version(),
                event_id: r.event_id(),
                task: r.raw().task,
                channel: r.raw().channel,
                keyword: r.raw().keyword,
                activity: r.raw().activity_id.into(),
                related: related_id(r.extended()),
                payload: r.payload().to_vec(),
                process_id: r.process_id(),
                timestamp: r.timestamp(),
                items: modern::Items::of(r.extended()),
                tl: modern::TlDecoded::of(&r),
            });
            c.record_calls += 1;
            if stop_after == Some(c.record_calls) { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .on_event(move |_| {
            events.lock().unwrap().event_callbacks += 1;
            ControlFlow::Continue(())
        })
        .on_buffer(move |_| {
            buffers.lock().unwrap().buffer_callbacks += 1;
            ControlFlow::Continue(())
        })
}

// Processes a consumer to the end and gathers what it left.
fn run(mut consumer: Consumer<'static>, sink: Arc<Mutex<Collected>>) -> LiveResult {
    let result = consumer.process();
    let stats = consumer.stats().ok();
    let header = consumer.logfile_header(0).ok();
    drop(consumer); // frees the closures, so the sink has one owner again
    let collected = Arc::try_unwrap(sink).ok().expect("closures dropped").into_inner().unwrap();
    (result, Outcome { collected, stats, header })
}

impl Trace {
    /// Replaces {tmp} (created on first use) and {pid} in a value.
    pub fn expand(&mut self, text: &str) -> String {
        let mut text = text.replace("{pid}", &std::process::id().to_string());
        if text.contains("{tmp}") {
            let tmp = self.tmp.get_or_insert_with(|| {
                let dir = std::env::temp_dir().join(format!("openetw-conformance-rs-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).expect("create the run's temp folder");
                dir
            });
            text = text.replace("{tmp}", tmp.to_str().expect("a UTF-8 temp folder"));
        }
        text
    }

    pub fn remove_tmp(&mut self) {
        if let Some(dir) = self.tmp.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// Stops and closes S, ends a live consumer, unregisters R, clears L and V,
    /// ignoring statuses, so a failed case never leaks into the next.
    pub fn reset(&mut self) {
        if let Some(session) = self.session.take() {
            let _ = session.stop(None);
        }
        if let Some(live) = self.live.take() {
            let _ = live.join();
        }
        self.provider = None;
        self.enables.lock().unwrap().clear();
        self.last = None;
    }

    fn session(&self) -> Result<&Session, Failure> {
        self.session.as_ref().ok_or_else(|| "no session".to_owned())
    }

    fn provider(&self) -> Result<&Provider, Failure> {
        self.provider.as_ref().ok_or_else(|| "no provider".to_owned())
    }

    fn last(&self) -> Result<&Outcome, Failure> {
        self.last.as_ref().ok_or_else(|| "nothing was processed".to_owned())
    }

    /// Runs one verb; Ok(false) when the verb is not one of these.
    pub fn step(&mut self, verb: &str, f: &mut Fields, props: Option<&mut Properties>) -> Result<bool, Failure> {
        let props = || props.ok_or_else(|| "no properties object".to_owned());
        match verb {
            "start" => {
                let outcome = match f.remove("flags") {
                    Some(flags) => Session::start_with_options(props()?, &start_options(&flags)?),
                    None => Session::start(props()?),
                };
                if let Some(s) = expect(f, outcome)? {
                    self.session = Some(s);
                }
            }
            "grant" => {
                let uid = number(&take(f, "uid")?)? as u32;
                let rights = SessionRights(number(&take(f, "rights")?)? as u32);
                let outcome = self.session()?.grant(uid, rights);
                expect(f, outcome)?;
            }
            "open" => {
                self.session = None; // the previous handle is closed first
                let name = take(f, "name")?.text;
                self.session = expect(f, Session::open(&name))?;
            }
            "query" => {
                let outcome = self.session()?.query_into(props()?);
                expect(f, outcome)?;
            }
            "flush" => {
                let outcome = self.session()?.flush(Some(props()?));
                expect(f, outcome)?;
            }
            "stop" => {
                let outcome = self.session()?.stop(Some(props()?));
                expect(f, outcome)?;
            }
            "flush_to_file" => {
                let path = take(f, "path")?.text;
                let outcome = self.session()?.flush_to_file(&path, Some(props()?));
                expect(f, outcome)?;
            }
            "register" => {
                let g = guid(&take(f, "guid")?)?;
                let enables = Arc::clone(&self.enables);
                self.provider = None;
                let outcome = Provider::register_with_callback(g, move |info| enables.lock().unwrap().push(*info));
                self.provider = expect(f, outcome)?;
            }
            "enable" => {
                let g = guid(&take(f, "guid")?)?;
                let level = opt_number(f, "level", 0)? as u8;
                let (any, all) = (opt_number(f, "any", 0)?, opt_number(f, "all", 0)?);
                let outcome = self.session()?.enable_provider(&g, level, any, all);
                expect(f, outcome)?;
            }
            "disable" => {
                let g = guid(&take(f, "guid")?)?;
                let outcome = self.session()?.disable_provider(&g);
                expect(f, outcome)?;
            }
            "expect_callback" => self.expect_callback(f)?,
            "is_enabled" => {
                let level = number(&take(f, "level")?)? as u8;
                let flags = number(&take(f, "flags")?)?;
                let want = number(&take(f, "value")?)? != 0;
                let got = self.provider()?.is_enabled(level, flags);
                if got != want {
                    return Err(format!("is_enabled({level}, {flags:#x}) is {got}, expected {want}"));
                }
            }
            "write" => self.write(f)?,
            "write_event" => self.write_event(f)?,
            "unregister" => self.provider = None,
            "write_file" => {
                let path = take(f, "path")?.text;
                let text = take(f, "text")?.text;
                std::fs::write(&path, text).map_err(|e| format!("cannot write {path}: {e}"))?;
            }
            "process" => {
                let file = take(f, "file")?.text;
                let order = match f.remove("order").map(|v| v.text) {
                    None => Order::Time,
                    Some(o) if o == "time" => Order::Time,
                    Some(o) if o == "file" => Order::File,
                    Some(o) => return Err(format!("unknown order {o}")),
                };
                let stop_after = f.remove("stop_after").map(|v| number(&v)).transpose()?.map(|n| n as usize);
                let sink = Arc::new(Mutex::new(Collected::default()));
                self.last = None;
                // `status` applies to the open when it fails, else to the process.
                match builder(&sink, stop_after).order(order).open_file(&file) {
                    Err(e) => {
                        expect::<()>(f, Err(e))?;
                    }
                    Ok(consumer) => {
                        let (result, outcome) = run(consumer, sink);
                        self.last = Some(outcome);
                        expect(f, result)?;
                    }
                }
            }
            "live_start" => {
                let name = take(f, "name")?.text;
                let sink = Arc::new(Mutex::new(Collected::default()));
                if let Some(consumer) = expect(f, builder(&sink, None).open_session(&name))? {
                    self.live = Some(std::thread::spawn(move || run(consumer, sink)));
                }
            }
            "live_join" => {
                let live = self.live.take().ok_or("no live consumer")?;
                let (result, outcome) = live.join().map_err(|_| "the live consumer's thread panicked".to_owned())?;
                self.last = Some(outcome);
                expect(f, result)?;
            }
            "expect_records" => self.expect_records(f)?,
            "expect_ordered" => {
                let records = &self.last()?.collected.records;
                if let Some(i) = (1..records.len()).find(|&i| records[i].timestamp < records[i - 1].timestamp) {
                    return Err(format!("record {i}'s timestamp goes back in time"));
                }
            }
            "expect_stats" => self.expect_stats(f)?,
            "expect_header" => self.expect_header(f)?,
            _ => return self.modern_step(verb, f),
        }
        Ok(true)
    }

    fn expect_callback(&self, f: &mut Fields) -> Result<(), Failure> {
        let count = number(&take(f, "count")?)? as usize;
        let enables = self.enables.lock().unwrap();
        if enables.len() != count {
            return Err(format!("{} enable callbacks, expected {count}", enables.len()));
        }
        let members: Vec<(String, Value)> = f.drain().collect();
        let last = enables.last();
        for (member, v) in members {
            let last = last.ok_or("no callback to check")?;
            let got = match member.as_str() {
                "is_enabled" => u64::from(last.is_enabled),
                "level" => u64::from(last.level),
                "any" => last.match_any_keyword,
                "all" => last.match_all_keyword,
                _ => return Err(format!("unknown field {member}")),
            };
            if got != number(&v)? {
                return Err(format!("the last callback's {member} is {got:#x}, expected {}", v.text));
            }
        }
        Ok(())
    }

    fn write(&self, f: &mut Fields) -> Result<(), Failure> {
        let provider = self.provider()?;
        let count = opt_number(f, "count", 1)?;
        let class = EventClass {
            guid: f.remove("guid").map_or(Ok(provider.guid()), |v| guid(&v))?,
            event_type: opt_number(f, "type", 0)? as u8,
            level: opt_number(f, "level", 0)? as u8,
            version: opt_number(f, "version", 0)? as u16,
        };
        let payload = f.remove("payload").map(|v| v.text).unwrap_or_default();
        let control: Fields = ["status", "message"].iter().filter_map(|k| f.remove(*k).map(|v| (k.to_string(), v))).collect();
        for i in 0..count {
            expect(&mut control.clone(), provider.write(&class, payload.as_bytes())).map_err(|e| format!("event {i}: {e}"))?;
        }
        Ok(())
    }

    fn write_event(&self, f: &mut Fields) -> Result<(), Failure> {
        let provider = self.provider()?;
        let count = opt_number(f, "count", 1)?;
        let d = EventDescriptor {
            id: opt_number(f, "id", 0)? as u16,
            version: opt_number(f, "version", 0)? as u8,
            channel: opt_number(f, "channel", 0)? as u8,
            level: opt_number(f, "level", 0)? as u8,
            opcode: opt_number(f, "opcode", 0)? as u8,
            task: opt_number(f, "task", 0)? as u16,
            keyword: opt_number(f, "keyword", 0)?,
        };
        let activity = Activity {
            id: f.remove("activity").map(|v| guid(&v)).transpose()?,
            related: f.remove("related").map(|v| guid(&v)).transpose()?,
        };
        let payload = f.remove("payload").map(|v| v.text).unwrap_or_default();
        let control: Fields = ["status", "message"].iter().filter_map(|k| f.remove(*k).map(|v| (k.to_string(), v))).collect();
        for i in 0..count {
            expect(&mut control.clone(), provider.write_event(&d, &activity, &[payload.as_bytes()]))
                .map_err(|e| format!("event {i}: {e}"))?;
        }
        Ok(())
    }

    fn expect_records(&self, f: &mut Fields) -> Result<(), Failure> {
        let count = number(&take(f, "count")?)? as usize;
        let kind = f.remove("kind").map(|v| number(&v)).transpose()?;
        let g = f.remove("guid").map(|v| guid(&v)).transpose()?;
        let opcode = f.remove("opcode").map(|v| number(&v)).transpose()?;
        let level = f.remove("level").map(|v| number(&v)).transpose()?;
        let version = f.remove("version").map(|v| number(&v)).transpose()?;
        let event_id = f.remove("event_id").map(|v| number(&v)).transpose()?;
        let task = f.remove("task").map(|v| number(&v)).transpose()?;
        let channel = f.remove("channel").map(|v| number(&v)).transpose()?;
        let keyword = f.remove("keyword").map(|v| number(&v)).transpose()?;
        let activity = f.remove("activity").map(|v| guid(&v)).transpose()?;
        let related = f.remove("related").map(|v| guid(&v)).transpose()?;
        let payload = f.remove("payload").map(|v| v.text.into_bytes());
        let pid = match f.remove("process_id") {
            Some(v) if v.text == "self" => Some(u64::from(std::process::id())),
            Some(v) => Some(number(&v)?),
            None => None,
        };
        let matches = |r: &&Copied| {
            kind.is_none_or(|k| u64::from(r.kind) == k)
                && g.is_none_or(|g| r.guid == g)
                && opcode.is_none_or(|o| u64::from(r.opcode) == o)
                && level.is_none_or(|l| u64::from(r.level) == l)
                && version.is_none_or(|v| u64::from(r.version) == v)
                && event_id.is_none_or(|v| u64::from(r.event_id) == v)
                && task.is_none_or(|v| u64::from(r.task) == v)
                && channel.is_none_or(|v| u64::from(r.channel) == v)
                && keyword.is_none_or(|v| r.keyword == v)
                && activity.is_none_or(|g| r.activity == g)
                && related.is_none_or(|g| r.related == g)
                && payload.as_ref().is_none_or(|p| &r.payload == p)
                && pid.is_none_or(|p| u64::from(r.process_id) == p)
        };
        let got = self.last()?.collected.records.iter().filter(matches).count();
        if got != count {
            return Err(format!("{got} records match, expected {count}"));
        }
        Ok(())
    }

    fn expect_stats(&self, f: &mut Fields) -> Result<(), Failure> {
        let last = self.last()?;
        let stats = last.stats.as_ref().ok_or("the consumer gave no statistics")?;
        let members: Vec<(String, Value)> = f.drain().collect();
        for (member, v) in members {
            let got = match member.as_str() {
                "records" => stats.records,
                "buffers" => stats.buffers,
                "corrupt_records" => stats.corrupt_records,
                "corrupt_buffers" => stats.corrupt_buffers,
                "events_lost" => stats.events_lost,
                "event_callbacks" => last.collected.event_callbacks,
                "buffer_callbacks" => last.collected.buffer_callbacks,
                _ => return Err(format!("unknown field {member}")),
            };
            if got != number(&v)? {
                return Err(format!("{member} is {got}, expected {}", v.text));
            }
        }
        Ok(())
    }

    fn expect_header(&self, f: &mut Fields) -> Result<(), Failure> {
        let header = self.last()?.header.as_ref().ok_or("the consumer gave no logfile header")?;
        let members: Vec<(String, Value)> = f.drain().collect();
        for (member, v) in members {
            let (got, want) = match member.as_str() {
                "logger_name" => (header.logger_name.clone(), v.text.clone()),
                "log_file_name" => (header.log_file_name.clone(), v.text.clone()),
                _ => {
                    let h = &header.header;
                    let got = match member.as_str() {
                        "events_lost" => h.EventsLost,
                        "buffers_written" => h.BuffersWritten,
                        "buffer_size" => h.BufferSize,
                        "log_file_mode" => h.LogFileMode,
                        "pointer_size" => h.PointerSize,
                        _ => return Err(format!("unknown field {member}")),
                    };
                    (got.to_string(), number(&v)?.to_string())
                }
            };
            if got != want {
                return Err(format!("header {member} is {got:?}, expected {want:?}"));
            }
        }
        Ok(())
    }
}
