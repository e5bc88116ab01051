//! KernelTrace: the system logger live (runs as root, as CI): a child's
//! Process/Start and End arrive decoded through the closures; dropping the
//! trace stops the session; failures come back with the status.
mod common;

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::{Arc, Mutex};

use common::*;
use openetw::{KernelEvent, KernelFlags, KernelTrace, Session, Status};

/// Runs /bin/true; returns its pid.
fn run_true() -> u32 {
    let mut child = Command::new("/bin/true").spawn().unwrap();
    let pid = child.id();
    assert!(child.wait().unwrap().success());
    pid
}

type Seen = Arc<Mutex<Vec<KernelEvent>>>;

fn collector() -> (Seen, impl FnMut(&KernelEvent) + Send + 'static) {
    let seen: Seen = Arc::default();
    let sink = Arc::clone(&seen);
    (seen, move |e: &KernelEvent| sink.lock().unwrap().push(e.clone()))
}

fn names(seen: &Seen) -> Vec<String> {
    seen.lock().unwrap().iter().map(|e| e.event_name().to_owned()).collect()
}

#[test]
fn a_child_process_arrives_decoded_through_the_filtered_closures() {
    let name = unique("Kernel");
    let (starts, on_start) = collector();
    let (ends, on_end) = collector();
    let (processes, on_process) = collector();
    let (every, on_every) = collector();
    let trace = KernelTrace::new(KernelFlags::PROCESS)
        .name(&name)
        .on("process/start", on_start) // names compare case-insensitively
        .on(("Process", 2), on_end) // Class.Type 2: End
        .on("Process", on_process)
        .on_event(on_every)
        .start()
        .unwrap();
    assert_eq!(Session::open(&name).unwrap().query().unwrap().enable_flags(), KernelFlags::PROCESS);
    let pid = run_true();
    let stats = trace.stop().unwrap();
    assert_eq!(stats.events_lost, 0);

    let starts = starts.lock().unwrap();
    let started = starts
        .iter()
        .filter(|e| e.get::<u32>("ProcessId") == Ok(pid))
        // The exec's start (after the fork's) names the new image; real-time
        // delivery goes buffer by buffer, not in time order across processors.
        .max_by_key(|e| e.timestamp())
        .unwrap_or_else(|| panic!("no Process/Start of the child {pid} among {}", starts.len()));
    let naming = (started.event_name(), started.class_name(), started.opcode_name());
    assert_eq!(naming, ("Process/Start", "Process", "Start"));
    assert_eq!(started.opcode(), 1);
    assert_eq!(started.get::<String>("ImageFileName").unwrap(), "true");
    assert_eq!(started.get::<u32>("ParentId").unwrap(), std::process::id());
    assert_eq!((started.process_id(), started.thread_id()), (pid, pid));
    assert!(started.time() > std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000));
    assert!(started.get::<u64>("ImageFileName").is_err()); // a String, not a u64
    assert!(starts.iter().all(|e| e.event_name() == "Process/Start"));

    let ends = ends.lock().unwrap();
    assert!(ends.iter().all(|e| e.event_name() == "Process/End"));
    let ended = ends
        .iter()
        .find(|e| e.get::<u32>("ProcessId") == Ok(pid) && e.get::<String>("ImageFileName").as_deref() == Ok("true"))
        .expect("the child's Process/End");
    assert_eq!(ended.get::<i32>("ExitStatus").unwrap(), 0);

    // The rundowns: what ran at the start (this process), and at the stop.
    let processes = names(&processes);
    assert!(processes.iter().any(|n| n == "Process/DCStart") && processes.iter().any(|n| n == "Process/DCEnd"));
    // Every event is a Process one but the machine's SystemConfig, which ends every kernel trace.
    let every = names(&every);
    assert!(every.iter().any(|n| n == "SystemConfig/CPU"));
    let not_config: Vec<String> = every.into_iter().filter(|n| !n.starts_with("SystemConfig/")).collect();
    assert_eq!(not_config, processes);
}

#[test]
fn flag_names_parse_and_dropping_the_trace_stops_the_session() {
    let flags: KernelFlags = "process,thread".parse().unwrap();
    assert_eq!(flags, KernelFlags::PROCESS | KernelFlags::THREAD);
    let name = unique("KernelDrop");
    let (seen, sink) = collector();
    let trace = KernelTrace::new(flags).name(&name).on_event(sink).start().unwrap();
    assert_eq!((trace.name(), trace.flags()), (name.as_str(), flags));
    assert_eq!(trace.session().query().unwrap().enable_flags(), flags);
    run_true();
    drop(trace);
    assert_eq!(Session::open(&name).unwrap_err().status(), Status::WMI_INSTANCE_NOT_FOUND);
    let names = names(&seen);
    assert!(names.iter().any(|n| n == "Process/Start") && names.iter().any(|n| n == "Thread/Start"));
    run_true();
    assert_eq!(seen.lock().unwrap().len(), names.len(), "a closure ran after the drop");
}

#[test]
fn two_traces_with_their_own_names_run_at_once() {
    let (a, on_a) = collector();
    let (b, on_b) = collector();
    let first = KernelTrace::new(KernelFlags::PROCESS).name(&unique("KernelA")).on_event(on_a).start().unwrap();
    let second = KernelTrace::new(KernelFlags::PROCESS).name(&unique("KernelB")).on_event(on_b).start().unwrap();
    let pid = run_true();
    first.stop().unwrap();
    second.stop().unwrap();
    for seen in [a, b] {
        let seen = seen.lock().unwrap();
        assert!(seen.iter().any(|e| e.event_name() == "Process/Start" && e.get::<u32>("ProcessId") == Ok(pid)));
    }
}

#[test]
fn an_unknown_flag_name_is_invalid_parameter_naming_it() {
    let e = "process,bogus".parse::<KernelFlags>().unwrap_err();
    assert_eq!(e.status(), Status::INVALID_PARAMETER);
    assert!(e.message().contains("\"bogus\""), "{e}");
}

#[test]
fn a_flag_this_system_does_not_serve_is_not_supported_and_leaves_nothing() {
    let name = unique("KernelRegistry");
    let e = KernelTrace::new(KernelFlags::PROCESS | KernelFlags::REGISTRY).name(&name).start().err().unwrap();
    assert_eq!(e.status(), Status::NOT_SUPPORTED);
    assert!(e.message().contains("registry"), "{e}");
    assert_eq!(Session::open(&name).unwrap_err().status(), Status::WMI_INSTANCE_NOT_FOUND);
}

#[test]
fn a_name_in_use_is_already_exists() {
    let name = unique("KernelTwice");
    let _first = KernelTrace::new(KernelFlags::PROCESS).name(&name).start().unwrap();
    let e = KernelTrace::new(KernelFlags::PROCESS).name(&name).start().err().unwrap();
    assert_eq!(e.status(), Status::ALREADY_EXISTS);
}

#[test]
fn a_panic_in_a_closure_comes_back_from_stop() {
    let name = unique("KernelPanic");
    let trace = KernelTrace::new(KernelFlags::PROCESS)
        .name(&name)
        .on("Process/DCStart", |_| panic!("from the closure"))
        .start()
        .unwrap();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| trace.stop())).unwrap_err();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"from the closure"));
    assert_eq!(Session::open(&name).unwrap_err().status(), Status::WMI_INSTANCE_NOT_FOUND);
}

// The child of the test below: this test binary run again as nobody.
const DENIED_CHILD: &str = "OPENETW_RS_KERNEL_DENIED";

#[test]
fn denied_child() {
    let Ok(name) = std::env::var(DENIED_CHILD) else { return };
    let e = KernelTrace::new(KernelFlags::PROCESS).name(&name).start().err().expect("started as nobody");
    println!("status {}: {}", e.status().0, e.message());
}

#[test]
fn a_user_without_the_right_is_access_denied() {
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid").unwrap();
    let euid = std::fs::metadata("/proc/self").unwrap().uid(); // a process owns its /proc entry
    if euid != 0 || paranoid.trim().parse::<i32>().unwrap() <= 0 {
        eprintln!("skipped: needs root, and kernel.perf_event_paranoid above 0");
        return;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "denied_child", "--nocapture", "--test-threads=1", "-q"])
        .env(DENIED_CHILD, unique("KernelDenied"))
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let line = stdout.lines().find_map(|l| l.strip_prefix("status ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.starts_with(&format!("{}: ", Status::ACCESS_DENIED.0)), "{line}");
    assert!(line.contains("CAP_PERFMON") && line.contains("perf_event_paranoid"), "{line}");
}
