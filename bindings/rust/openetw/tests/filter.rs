//! Filters at the source, enable properties and the provider listing (issue #31).
mod common;

use std::collections::BTreeMap;

use common::*;
use openetw::{
    extended_item_sid, extended_item_stack, list_providers, query_provider, sys, tracelogging, Activity, Consumer,
    ControlFlow, EnableOptions, EnableProperty, EventDescriptor, Filter, Guid, Properties, Provider, ProviderProcess,
    Session, SessionOptions, Status,
};

/// What one EVENT_HEADER event read back carries.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    id: u16,
    name: String,
    pid: u32,
    stack: bool,
    sid: Option<String>,
    start_key: bool,
    event_key: bool,
}

// A file session enabling the provider with `opts`, `write` run, the events read back.
fn run(test: &str, p: &Provider, opts: &EnableOptions, session_filters: &[Filter], write: impl FnOnce(&Provider)) -> Vec<Seen> {
    let path = temp_dir(test).join("f.etl");
    let mut props = file_props(&unique(test), &path);
    let lossless = SessionOptions { lossless: true, lossless_timeout_ms: 10_000, ..Default::default() };
    let session = Session::start_with_filters(&mut props, &lossless, session_filters).unwrap();
    session.enable_provider_ex(&p.guid(), 5, 0, 0, opts).unwrap();
    write(p);
    session.stop(None).unwrap();
    let mut seen = Vec::new();
    let mut consumer = Consumer::builder()
        .on_event_record(|e| {
            let mut s = Seen {
                id: e.id(),
                name: e.decode().map(|d| d.event_name).unwrap_or_default(),
                pid: e.process_id(),
                stack: false,
                sid: None,
                start_key: false,
                event_key: false,
            };
            for x in e.extended_data() {
                let u64_of = || unsafe { std::slice::from_raw_parts(x.data, x.data_size as usize) }.len() == 8
                    && unsafe { std::ptr::read_unaligned(x.data as *const u64) } != 0;
                match u32::from(x.ext_type) {
                    sys::ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 | sys::ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32 => {
                        s.stack = !extended_item_stack(x).unwrap().1.is_empty()
                    }
                    sys::ETW_EVENT_HEADER_EXT_TYPE_SID => s.sid = Some(extended_item_sid(x).unwrap()),
                    sys::ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY => s.start_key = u64_of(),
                    sys::ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY => s.event_key = u64_of(),
                    _ => {}
                }
            }
            seen.push(s);
            ControlFlow::Continue(())
        })
        .open_files(&[&path])
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    seen
}

fn write_ids(p: &Provider, ids: &[u16]) {
    for &id in ids {
        for _ in 0..10 {
            p.write_event(&EventDescriptor { id, level: 4, ..Default::default() }, &Activity::default(), &[b"x"]).unwrap();
        }
    }
}

fn by_id(seen: &[Seen]) -> BTreeMap<u16, usize> {
    let mut m = BTreeMap::new();
    for s in seen {
        *m.entry(s.id).or_default() += 1;
    }
    m
}

#[test]
fn event_id_filter_admits_or_excludes_its_ids() {
    let p = Provider::register(guid(200)).unwrap();
    let kept = run("ids_in", &p, &EnableOptions::new().filter(Filter::event_ids(true, &[3])), &[], |p| write_ids(p, &[1, 3, 7]));
    assert_eq!(by_id(&kept), BTreeMap::from([(3, 10)]));
    let others =
        run("ids_out", &p, &EnableOptions::new().filter(Filter::event_ids(false, &[3, 5])), &[], |p| write_ids(p, &[1, 3, 7]));
    assert_eq!(by_id(&others), BTreeMap::from([(1, 10), (7, 10)]));
    assert_eq!(run("ids_none", &p, &EnableOptions::new(), &[], |p| write_ids(p, &[1, 3, 7])).len(), 30);
}

#[test]
fn pid_and_executable_name_filters_pick_processes() {
    let p = Provider::register(guid(201)).unwrap();
    let me = std::process::id();
    let mine = run("pid_me", &p, &EnableOptions::new().filter(Filter::pid(&[me])), &[], |p| write_ids(p, &[1]));
    assert_eq!(mine.len(), 10);
    assert!(mine.iter().all(|s| s.pid == me));
    assert!(run("pid_1", &p, &EnableOptions::new().filter(Filter::pid(&[1])), &[], |p| write_ids(p, &[1])).is_empty());
    let exe = std::env::current_exe().unwrap();
    let exe = exe.file_name().unwrap().to_str().unwrap().to_owned();
    let both = format!("no-such-program;{exe}");
    let named = run("exe", &p, &EnableOptions::new().filter(Filter::executable_name(&both)), &[], |p| write_ids(p, &[1]));
    assert_eq!(named.len(), 10);
    let none = EnableOptions::new().filter(Filter::executable_name("no-such-program"));
    assert!(run("exe_none", &p, &none, &[], |p| write_ids(p, &[1])).is_empty());
}

#[test]
fn session_filters_apply_to_every_provider() {
    let p = Provider::register(guid(202)).unwrap();
    assert!(run("sf_other", &p, &EnableOptions::new(), &[Filter::pid(&[1])], |p| write_ids(p, &[1])).is_empty());
    let me = [Filter::pid(&[std::process::id()])];
    assert_eq!(run("sf_me", &p, &EnableOptions::new(), &me, |p| write_ids(p, &[1])).len(), 10);
    let mut props = Properties::new(&unique("SessionFilter")).unwrap();
    props.set_log_file_mode(openetw::LogFileMode::REAL_TIME).unwrap();
    let err = Session::start_with_filters(&mut props, &SessionOptions::default(), &[Filter::event_ids(true, &[3])]).unwrap_err();
    assert_eq!(err.status(), Status::NOT_SUPPORTED);
    assert!(err.message().contains("PID and EXECUTABLE_NAME only"), "{}", err.message());
}

#[test]
fn event_name_filter_admits_tracelogging_names() {
    let p = Provider::register_named(&format!("OpenEtw.RsTests.EventNames{}", std::process::id())).unwrap();
    let seen = run("names", &p, &EnableOptions::new().filter(Filter::event_names(true, &["Kept"])), &[], |p| {
        for i in 0..4 {
            tracelogging!(p, "Kept", n = i as i32).unwrap();
            tracelogging!(p, "Dropped", n = i as i32).unwrap();
        }
    });
    assert_eq!(seen.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["Kept"; 4]);
    let inverse = run("names_out", &p, &EnableOptions::new().filter(Filter::event_names(false, &["Kept"])), &[], |p| {
        tracelogging!(p, "Kept", n = 1i32).unwrap();
        tracelogging!(p, "Dropped", n = 2i32).unwrap();
    });
    assert_eq!(inverse.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["Dropped"]);
}

#[test]
fn properties_add_stack_sid_and_keys() {
    let p = Provider::register(guid(203)).unwrap();
    let all = EnableProperty::STACK_TRACE | EnableProperty::SID | EnableProperty::PROCESS_START_KEY | EnableProperty::EVENT_KEY;
    let seen = run("props", &p, &EnableOptions::new().properties(all), &[], |p| write_ids(p, &[1]));
    assert_eq!(seen.len(), 10);
    let sid = format!("S-1-22-1-{}", unsafe { libc_geteuid() });
    for s in &seen {
        assert_eq!((s.stack, s.sid.as_deref(), s.start_key, s.event_key), (true, Some(sid.as_str()), true, true), "{s:?}");
    }
    for s in run("no_props", &p, &EnableOptions::new(), &[], |p| write_ids(p, &[1])) {
        assert_eq!((s.stack, s.sid, s.start_key, s.event_key), (false, None, false, false));
    }
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

#[test]
fn stackwalk_filter_picks_which_ids_carry_stacks() {
    let p = Provider::register(guid(204)).unwrap();
    // STACK_TRACE alone: an event the filter leaves without a stack has no item at all.
    let only = EnableOptions::new().properties(EnableProperty::STACK_TRACE).filter(Filter::stackwalk(true, &[3]));
    let seen = run("stackwalk", &p, &only, &[], |p| write_ids(p, &[3, 4]));
    assert_eq!(seen.len(), 20);
    assert!(seen.iter().all(|s| s.stack == (s.id == 3)), "{seen:?}");
    // With another property, the others keep their items.
    let props = EnableProperty::STACK_TRACE | EnableProperty::SID;
    let inverse = EnableOptions::new().properties(props).filter(Filter::stackwalk(false, &[3]));
    let seen = run("stackwalk_out", &p, &inverse, &[], |p| write_ids(p, &[3, 4]));
    assert_eq!(seen.len(), 20);
    assert!(seen.iter().all(|s| s.stack == (s.id == 4) && s.sid.is_some()), "{seen:?}");
}

#[test]
fn bad_filters_give_the_library_status_and_message() {
    let g = guid(205);
    let mut props = Properties::new(&unique("BadFilters")).unwrap();
    props.set_log_file_mode(openetw::LogFileMode::REAL_TIME).unwrap();
    let session = Session::start(&mut props).unwrap();
    let bad = |filters: Vec<Filter>| {
        let opts = filters.into_iter().fold(EnableOptions::new(), EnableOptions::filter);
        session.enable_provider_ex(&g, 5, 0, 0, &opts).unwrap_err()
    };
    let empty = bad(vec![Filter::event_ids(true, &[])]);
    assert_eq!(empty.status(), Status::INVALID_PARAMETER);
    assert!(empty.message().contains("EVENT_FILTER_TYPE_EVENT_ID"), "{}", empty.message());
    let nine = bad(vec![Filter::pid(&[1, 2, 3, 4, 5, 6, 7, 8, 9])]);
    assert_eq!(nine.status(), Status::INVALID_PARAMETER);
    assert!(nine.message().contains("9 ids"), "{}", nine.message());
    let twice = bad(vec![Filter::pid(&[1]), Filter::event_ids(true, &[1]), Filter::event_ids(false, &[2])]);
    assert_eq!(twice.status(), Status::INVALID_PARAMETER);
    assert!(twice.message().contains("twice") && twice.message().contains("filter 2"), "{}", twice.message());
    assert_eq!(bad(vec![Filter::raw(0x8000_0040, &[0; 4])]).status(), Status::INVALID_PARAMETER);
    assert_eq!(bad(vec![Filter::raw(sys::ETW_EVENT_FILTER_TYPE_PACKAGE_ID, &[0; 4])]).status(), Status::NOT_SUPPORTED);
    assert_eq!(bad(vec![Filter::pid(&[])]).status(), Status::INVALID_PARAMETER);
    // The good ones still work on the same session afterwards.
    session.enable_provider_ex(&g, 5, 0, 0, &EnableOptions::new().filter(Filter::event_ids(true, &[3, 5]))).unwrap();
}

#[test]
fn listing_shows_processes_and_enabling_sessions() {
    let g: Guid = guid(206);
    assert_eq!(query_provider(&g).unwrap_err().status(), Status::WMI_GUID_NOT_FOUND);
    assert!(!list_providers().unwrap().contains(&g));
    let name = unique("Listing");
    let mut props = Properties::new(&name).unwrap();
    props.set_log_file_mode(openetw::LogFileMode::REAL_TIME).unwrap();
    let first = Provider::register(g).unwrap();
    let second = Provider::register(g).unwrap();
    let session = Session::start(&mut props).unwrap();
    let opts = EnableOptions::new()
        .properties(EnableProperty::SID | EnableProperty::STACK_TRACE)
        .filter(Filter::event_ids(true, &[3]))
        .filter(Filter::pid(&[std::process::id()]));
    session.enable_provider_ex(&g, 3, 0x30, 0x10, &opts).unwrap();
    assert!(list_providers().unwrap().contains(&g));
    let info = query_provider(&g).unwrap();
    assert_eq!(info.guid, g);
    assert_eq!(info.processes, [ProviderProcess { process_id: std::process::id(), registrations: 2 }]);
    assert_eq!(info.sessions.len(), 1);
    let s = &info.sessions[0];
    assert_eq!(
        (s.session_handle, s.session_name.as_str(), s.level, s.match_any_keyword, s.match_all_keyword, s.filter_count),
        (session.handle(), name.as_str(), 3, 0x30, 0x10, 2)
    );
    assert_eq!(s.properties, EnableProperty::SID | EnableProperty::STACK_TRACE);
    session.stop(None).unwrap();
    drop(second);
    let after = query_provider(&g).unwrap();
    assert_eq!(after.processes, [ProviderProcess { process_id: std::process::id(), registrations: 1 }]);
    assert!(after.sessions.is_empty());
    drop(first);
}
