//! The logman workflow across processes: in a system-wide namespace of its own,
//! one process starts a detached file session and exits; the session host keeps
//! it running until a later process opens it by name and stops it.
mod common;

use std::ops::ControlFlow;
use std::process::{Command, Output};

use common::*;
use openetw::{Consumer, EventClass, HostState, Provider, Session, SessionOptions, Status};

const EVENTS: u32 = 2000;
// The children: this test binary run again with MODE set; `host_child` does nothing otherwise.
const MODE: &str = "OPENETW_RS_HOST_CHILD";
const NAME: &str = "OPENETW_RS_HOST_NAME";
const FILE: &str = "OPENETW_RS_HOST_FILE";

#[test]
fn host_child() {
    let Ok(mode) = std::env::var(MODE) else { return };
    let name = std::env::var(NAME).unwrap();
    let g = guid(40);
    match mode.as_str() {
        "start-detached" | "start-dropped" => {
            let path = std::env::var(FILE).unwrap();
            let mut props = file_props(&name, std::path::Path::new(&path));
            props.set_maximum_buffers(64).unwrap();
            // Writers wait for a free buffer rather than drop: every event must reach the file.
            let lossless = SessionOptions { lossless: true, lossless_timeout_ms: 10_000, ..Default::default() };
            let session = Session::start_with_options(&mut props, &lossless).unwrap();
            if mode == "start-detached" {
                session.detach();
            }
            session.enable_provider(&g, 0, 0, 0).unwrap();
            let provider = Provider::register(g).unwrap();
            let class = EventClass { guid: g, event_type: 7, level: 4, version: 0 };
            for i in 0..EVENTS {
                provider.write(&class, &i.to_le_bytes()).unwrap();
            }
            println!("started by {}", std::process::id());
        } // the handle is dropped here, then the process exits
        "open-and-stop" => {
            let session = Session::open(&name).unwrap();
            let host = session.host_info().unwrap();
            assert_eq!(host.state, HostState::Running);
            println!("hosted by {}", host.process_id);
            assert_eq!(session.query().unwrap().session_name(), name);
            println!("stopped: {} lost", session.stop(None).unwrap().events_lost);
        }
        "open-missing" => {
            println!("open: {}", Session::open(&name).unwrap_err().status().name());
            assert_eq!(Session::open(&name).unwrap_err().status(), Status::WMI_INSTANCE_NOT_FOUND);
        }
        _ => panic!("unknown mode {mode}"),
    }
}

/// A namespace (registry) of this process's own, its files removed on drop.
struct Namespace(String);

impl Namespace {
    fn new(tag: &str) -> Namespace {
        let ns = Namespace(format!("/dev/shm/openetw-bind-host-{}-{tag}.registry", std::process::id()));
        ns.remove();
        ns
    }
    fn remove(&self) {
        let prefix = &self.0["/dev/shm/".len()..];
        for entry in std::fs::read_dir("/dev/shm").unwrap().flatten() {
            if entry.file_name().to_string_lossy().starts_with(prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    /// Runs one child in the namespace; its stdout, after checking it succeeded.
    fn run(&self, mode: &str, name: &str, file: &std::path::Path) -> String {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", "host_child", "--nocapture", "--test-threads=1", "-q"])
            .env(MODE, mode)
            .env(NAME, name)
            .env(FILE, file)
            .env("OPENETW_REGISTRY", &self.0)
            .env_remove("OPENETW_HOST"); // a real session host, not this process
        // scripts/bindings-tests.sh names the host daemon of the build under test;
        // run by hand, the library finds the one beside itself.
        if let Ok(hostd) = std::env::var("OPENETW_HOSTD") {
            command.env("OPENETW_HOSTD", hostd);
        }
        let output: Output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "{mode}: {stdout}{}", String::from_utf8_lossy(&output.stderr));
        stdout
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        self.remove();
    }
}

fn line<'a>(stdout: &'a str, prefix: &str) -> &'a str {
    stdout.lines().find_map(|l| l.strip_prefix(prefix)).unwrap_or_else(|| panic!("no '{prefix}' in {stdout}"))
}

#[test]
fn a_detached_session_outlives_its_starter_until_another_process_stops_it() {
    let ns = Namespace::new("detached");
    let dir = temp_dir("host-detached");
    let path = dir.join("detached.etl");
    let name = unique("HostDetached");
    let started = ns.run("start-detached", &name, &path);
    let starter: u32 = line(&started, "started by ").parse().unwrap();
    let stopped = ns.run("open-and-stop", &name, &path);
    let host: u32 = line(&stopped, "hosted by ").parse().unwrap();
    assert_ne!(host, starter, "the session host, not the process that exited, runs the session");
    assert_eq!(line(&stopped, "stopped: "), "0 lost");
    assert!(std::path::Path::new(&ns.0).exists(), "the children did not use their namespace");
    assert_eq!(line(&ns.run("open-missing", &name, &path), "open: "), "ETW_ERROR_WMI_INSTANCE_NOT_FOUND");

    let mut payloads = Vec::new();
    let mut consumer = Consumer::builder()
        .on_event(|e| {
            if e.event_type() == 7 {
                payloads.push(e.payload().to_vec());
            }
            ControlFlow::Continue(())
        })
        .open_file(&path)
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    assert_eq!(payloads.len(), EVENTS as usize);
    for (i, payload) in payloads.iter().enumerate() {
        assert_eq!(payload, &(i as u32).to_le_bytes());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dropping_a_started_session_stops_it_for_the_next_process() {
    let ns = Namespace::new("dropped");
    let dir = temp_dir("host-dropped");
    let path = dir.join("dropped.etl");
    let name = unique("HostDropped");
    ns.run("start-dropped", &name, &path);
    assert!(std::path::Path::new(&ns.0).exists(), "the child did not use its namespace");
    let missing = ns.run("open-missing", &name, &path);
    assert_eq!(line(&missing, "open: "), "ETW_ERROR_WMI_INSTANCE_NOT_FOUND");
    let _ = std::fs::remove_dir_all(&dir);
}
