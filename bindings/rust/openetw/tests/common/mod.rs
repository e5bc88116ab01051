//! Helpers shared by the integration tests: unique names and a temp folder.
#![allow(dead_code)]
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use openetw::{Guid, LogFileMode, Properties};

/// A session name no other test (or concurrent test run) uses.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("Rs {prefix} {} {}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A fresh folder under the system temp dir, per test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("openetw-rs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A GUID per test, so providers of parallel tests never see each other's sessions.
pub fn guid(n: u16) -> Guid {
    format!("{:08x}-{n:04x}-4000-8000-00000000000{}", std::process::id(), n % 10).parse().unwrap()
}

/// Properties of a sequential file session writing to `path`.
pub fn file_props(name: &str, path: &std::path::Path) -> Properties {
    let mut p = Properties::new(name).unwrap();
    p.set_log_file_name(Some(path.to_str().unwrap())).unwrap();
    p.set_log_file_mode(LogFileMode::SEQUENTIAL).unwrap();
    p.set_buffer_size(16).unwrap();
    p
}

/// Counts drops of the value a closure captures.
#[derive(Clone, Default)]
pub struct DropCounter(pub Arc<AtomicUsize>);

pub struct Probe(Arc<AtomicUsize>);

impl DropCounter {
    pub fn probe(&self) -> Probe {
        Probe(self.0.clone())
    }
    pub fn drops(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Writes `count` events of `payload` (type 1) through a fresh file session into `path`.
pub fn write_trace(path: &std::path::Path, g: Guid, count: usize, payload: &[u8]) {
    use openetw::{EventClass, Provider, Session};
    let provider = Provider::register(g).unwrap();
    let mut props = file_props(&unique("Writer"), path);
    props.set_maximum_buffers(256).unwrap(); // enough to hold a burst: nothing is dropped
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&g, 0, 0, 0).unwrap();
    let class = EventClass { guid: g, event_type: 1, level: 4, version: 0 };
    for _ in 0..count {
        provider.write(&class, payload).unwrap();
    }
    assert_eq!(session.stop(None).unwrap().events_lost, 0);
}

