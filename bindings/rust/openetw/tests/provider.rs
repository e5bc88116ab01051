//! Providers: enable callbacks, is_enabled, event errors, and dropping.
mod common;

use std::sync::{Arc, Mutex};

use common::*;
use openetw::{EnableInfo, EventClass, LogFileMode, Properties, Provider, Session, Status};

fn real_time(name: &str) -> Properties {
    let mut p = Properties::new(name).unwrap();
    p.set_log_file_mode(LogFileMode::REAL_TIME).unwrap();
    p
}

fn recording_provider(g: openetw::Guid) -> (Provider, Arc<Mutex<Vec<EnableInfo>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let provider = Provider::register_with_callback(g, move |info| log.lock().unwrap().push(*info)).unwrap();
    (provider, seen)
}

#[test]
fn enable_callbacks_follow_the_sessions() {
    let g = guid(10);
    let (provider, seen) = recording_provider(g);
    assert!(seen.lock().unwrap().is_empty());
    assert!(!provider.is_enabled(0, 0));
    assert!(!provider.enabled_hint());
    let mut props = real_time(&unique("Enable"));
    let session = Session::start(&mut props).unwrap();

    session.enable_provider(&g, 4, 0xF0, 0x10).unwrap();
    let last = *seen.lock().unwrap().last().unwrap();
    assert_eq!(
        last,
        EnableInfo { is_enabled: true, level: 4, match_any_keyword: 0xF0, match_all_keyword: 0x10, session_handle: session.handle(), capture_state: false }
    );
    assert!(provider.is_enabled(4, 0x10));
    assert!(provider.enabled_hint());
    assert!(!provider.is_enabled(4, 0x01));
    assert!(!provider.is_enabled(5, 0));

    // Re-enabling changes the level; disabling tells the provider too.
    session.enable_provider(&g, 5, 0, 0).unwrap();
    assert_eq!(seen.lock().unwrap().last().unwrap().level, 5);
    session.disable_provider(&g).unwrap();
    assert_eq!(seen.lock().unwrap().len(), 3);
    assert!(!seen.lock().unwrap()[2].is_enabled);
    assert!(!provider.is_enabled(0, 0));
    assert!(!provider.enabled_hint());

    // A provider registered while a session enables its GUID is told at once.
    session.enable_provider(&g, 2, 0x3, 0x1).unwrap();
    let (late, late_seen) = recording_provider(g);
    assert_eq!(late_seen.lock().unwrap().len(), 1);
    assert_eq!(late_seen.lock().unwrap()[0].level, 2);
    assert_eq!(late_seen.lock().unwrap()[0].session_handle, 0);
    session.stop(None).unwrap();
    assert!(!late_seen.lock().unwrap().last().unwrap().is_enabled, "stop disables");
    drop(late);
    drop(provider);
}

#[test]
fn bad_events_fail_with_the_documented_statuses() {
    let dir = temp_dir("bad-events");
    let g = guid(11);
    let provider = Provider::register(g).unwrap();
    let mut props = file_props(&unique("Bad Events"), &dir.join("bad.etl"));
    props.set_buffer_size(8).unwrap();
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&g, 0, 0, 0).unwrap();
    let class = EventClass::new(g);
    // Not smaller than the buffer minus 72 bytes.
    let e = provider.write(&class, &[b'y'; 8100]).unwrap_err();
    assert_eq!(e.status(), Status::MORE_DATA);
    assert!(!e.message().is_empty());
    // Header and payload above 0xFFFF.
    assert_eq!(provider.write(&class, &[b'z'; 65500]).unwrap_err().status(), Status::INVALID_PARAMETER);
    assert_eq!(provider.write_parts(&class, &[&b"x"[..]; 17]).unwrap_err().status(), Status::INVALID_PARAMETER);
    let e = provider.write_parts(&class, &[&[0u8; 40_000][..], &[0u8; 40_000][..]]).unwrap_err();
    assert_eq!(e.status(), Status::INVALID_PARAMETER);
    assert!(e.message().contains("80048 bytes"), "{e}");
    provider.write(&class, b"fine").unwrap();
    let stats = session.stop(None).unwrap();
    assert_eq!(stats.events_lost, 0);
    assert_eq!(session.enable_provider(&g, 0, 0, 0).unwrap_err().status(), Status::WMI_INSTANCE_NOT_FOUND);
}

#[test]
fn unregistered_closures_are_dropped_once_and_disabled_writes_succeed() {
    let counter = DropCounter::default();
    let probe = counter.probe();
    let provider = Provider::register_with_callback(guid(12), move |_| {
        let _keep = &probe;
    })
    .unwrap();
    assert_eq!(provider.guid(), guid(12));
    // Nobody enables it: the write is a no-op, and OK; an event too big to
    // exist is refused all the same.
    provider.write(&EventClass::new(guid(12)), b"nobody listens").unwrap();
    let e = provider.write(&EventClass::new(guid(12)), &[0u8; 65_488]).unwrap_err();
    assert_eq!(e.status(), Status::INVALID_PARAMETER);
    provider.write(&EventClass::new(guid(12)), &[0u8; 65_487]).unwrap();
    assert_eq!(counter.drops(), 0);
    drop(provider);
    assert_eq!(counter.drops(), 1);
}

#[test]
fn provider_is_send_and_sync() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Provider>();
    shareable::<Session>();
    shareable::<openetw::Canceller>();
    let provider = Arc::new(Provider::register(guid(13)).unwrap());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let p = Arc::clone(&provider);
            std::thread::spawn(move || (0..100).all(|_| p.write(&EventClass::new(guid(13)), b"t").is_ok()))
        })
        .collect();
    assert!(threads.into_iter().all(|t| t.join().unwrap()));
}

#[test]
fn capture_state_reaches_the_callback_and_leaves_the_enablement() {
    let g = guid(20);
    let (provider, seen) = recording_provider(g);
    let mut props = real_time(&unique("Capture"));
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&g, 3, 0x5, 0).unwrap();
    session.capture_state(&g, 5, 0xF0, 0).unwrap();
    let last = *seen.lock().unwrap().last().unwrap();
    assert_eq!(
        last,
        EnableInfo { is_enabled: true, level: 5, match_any_keyword: 0xF0, match_all_keyword: 0, session_handle: session.handle(), capture_state: true }
    );
    assert!(provider.is_enabled(3, 0x4));
    assert!(!provider.is_enabled(5, 0));
    assert!(session.capture_state(&guid(21), 0, 0, 0).is_err());
    assert_eq!(seen.lock().unwrap().len(), 2);
}
