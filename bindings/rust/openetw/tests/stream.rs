//! Sessions exported to a real nats-server (JetStream on temporary storage,
//! a user and password), the stream read back with each record's machine
//! and session, and collected into files equal to the sessions' own.
mod common;

use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{file_props, guid, temp_dir, unique};
use openetw::{level, Canceller, CollectOutcome, Consumer, EventClass, NatsStream, Order, Provider, Session, Status};

/// A nats-server asking for a password, stopped when dropped. A missing
/// nats-server fails the test: scripts/bindings-tests.sh installs it.
struct NatsServer {
    child: Child,
    url: String,
    credentials: PathBuf,
}

impl NatsServer {
    fn start(dir: &Path) -> NatsServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let log = dir.join("nats.log");
        let server = ["nats-server", "/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .into_iter()
            .find(|p| Command::new(p).arg("--version").stdout(Stdio::null()).status().is_ok())
            .expect("nats-server is not installed (scripts/deps.sh bindings installs it)");
        let child = Command::new(server)
            .args(["-js", "-sd", dir.join("js").to_str().unwrap(), "-a", "127.0.0.1", "-p", &port.to_string()])
            .args(["--user", "openetw", "--pass", "rs-secret", "-l", log.to_str().unwrap()])
            .spawn()
            .unwrap();
        for _ in 0..400 {
            let mut text = String::new();
            if let Ok(mut f) = std::fs::File::open(&log) {
                f.read_to_string(&mut text).unwrap();
            }
            if text.contains("Server is ready") {
                let credentials = dir.join("nats.conf");
                std::fs::write(&credentials, "user = openetw\npassword = rs-secret\n").unwrap();
                return NatsServer { child, url: format!("nats://127.0.0.1:{port}"), credentials };
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("nats-server did not get ready: {}", std::fs::read_to_string(&log).unwrap_or_default());
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// Once for the tests of this binary, which run in parallel: a variable set
// while another test's library reads the environment would race it.
fn set_environment() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::env::set_var("OPENETW_SPOOL_DIR", temp_dir("stream-spool").join("spool"));
        std::env::remove_var("OPENETW_NATS_CREDENTIALS"); // only the file each call is given
    });
}

fn export(stream: &NatsStream, path: &Path, name: &str, n: u16, count: u32) -> openetw::Result<Session> {
    let mut props = file_props(name, path);
    stream.export(&mut props)?;
    let session = Session::start(&mut props)?;
    let g = guid(n);
    session.enable_provider(&g, level::VERBOSE, 0, 0)?;
    let provider = Provider::register(g)?;
    let class = EventClass { guid: g, event_type: 10, level: level::INFORMATION, version: 0 };
    for i in 0..count {
        provider.write(&class, &i.to_le_bytes())?;
    }
    drop(provider);
    Ok(session)
}

#[test]
fn an_exported_session_reads_back_and_collects_as_its_file() {
    set_environment();
    let dir = temp_dir("stream-export");
    let srv = NatsServer::start(&dir);
    let stream = NatsStream::new(format!("{}/RSEXPORT", srv.url)).with_credentials(&srv.credentials);
    let name = unique("Stream");
    let local = dir.join("local.etl");
    let session = export(&stream, &local, &name, 40, 2000).unwrap();
    let stats = session.stop(None).unwrap();
    assert_eq!(stats.real_time_buffers_lost, 0);

    let mut seen = Vec::new();
    let mut consumer = stream
        .open(Consumer::builder().order(Order::File).on_event(|e| {
            seen.push((e.record().file_index(), u32::from_le_bytes(e.payload()[..4].try_into().unwrap())));
            ControlFlow::Continue(())
        }))
        .unwrap();
    consumer.process().unwrap();
    assert_eq!(consumer.file_count(), 1);
    let source = consumer.stream_source(0).expect("a file of the stream");
    assert_eq!(source.session, name);
    assert!(!source.machine.is_empty());
    drop(consumer);
    assert!(seen.iter().all(|(f, _)| *f == 0));
    assert_eq!(seen.iter().map(|(_, v)| *v).collect::<Vec<_>>(), (0..2000).collect::<Vec<_>>());
    let since = stream.open_since("2000-01-01T00:00:00Z", Consumer::builder()).unwrap();
    assert_eq!(since.stream_source(0), Some(source.clone()));
    let later = stream.open_since("2100-01-01T00:00:00Z", Consumer::builder()).unwrap_err();
    assert_eq!(later.status(), Status::HANDLE_EOF); // nothing that recent

    let out = dir.join("collected");
    std::fs::create_dir_all(&out).unwrap();
    let report = stream.collect(&out).run().unwrap();
    assert_eq!(report.skipped, 0);
    let f = &report.files[0];
    assert_eq!(report.files.len(), 1);
    assert_eq!((f.outcome, f.complete, f.missing.is_empty()), (CollectOutcome::Written, true, true));
    assert_eq!((&f.machine, &f.session, f.start_time), (&source.machine, &name, source.start_time));
    assert!(f.data_buffers > 0);
    assert!(f.path.to_str().unwrap().ends_with(&format!(".{}.etl", f.start_utc)), "{:?}", f.path);
    assert_eq!(std::fs::read(&f.path).unwrap(), std::fs::read(&local).unwrap());
    let again = stream.collect(&out).session(&name.to_uppercase()).run().unwrap();
    assert_eq!(again.files[0].outcome, CollectOutcome::Unchanged);

    // Other contents are kept unless overwrite; a machine that never exported matches nothing.
    std::fs::write(&f.path, b"mine").unwrap();
    let kept = stream.collect(&out).run().unwrap_err();
    assert_eq!(kept.error.status(), Status::ALREADY_EXISTS);
    assert_eq!(kept.report.files[0].outcome, CollectOutcome::Kept);
    assert_eq!(std::fs::read(&f.path).unwrap(), b"mine");
    assert_eq!(stream.collect(&out).overwrite(true).run().unwrap().files[0].outcome, CollectOutcome::Replaced);
    let none = stream.collect(&out).machine("no-such-machine").run().unwrap_err();
    assert_eq!(none.error.status(), Status::NO_MORE_ITEMS);
    assert!(none.report.files.is_empty()); // the server filters by subject: nothing to skip

    // A wrong password: the start and the collect fail with the server's refusal.
    let wrong = dir.join("wrong.conf");
    std::fs::write(&wrong, "user = openetw\npassword = nope\n").unwrap();
    let bad = NatsStream::new(stream.url()).with_credentials(&wrong);
    assert_eq!(bad.collect(&out).run().unwrap_err().error.status(), Status::ACCESS_DENIED);
    assert_eq!(bad.open(Consumer::builder()).unwrap_err().status(), Status::ACCESS_DENIED);
    let none = NatsStream::new(stream.url()); // no file here or in the environment
    assert_eq!(none.open(Consumer::builder()).unwrap_err().status(), Status::ACCESS_DENIED);
    let e = export(&bad, &dir.join("w.etl"), &unique("Wrong"), 41, 0).unwrap_err();
    assert_eq!(e.status(), Status::ACCESS_DENIED);
}

// Cancels when dropped: a failed assertion does not leave the follower running.
struct CancelOnDrop(Canceller);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[test]
fn a_followed_stream_gives_what_it_holds_then_what_comes_until_cancelled() {
    set_environment();
    let dir = temp_dir("stream-follow");
    let srv = NatsServer::start(&dir);
    let stream = NatsStream::new(format!("{}/RSFOLLOW", srv.url)).with_credentials(&srv.credentials);
    let name = unique("Follow");
    let local = dir.join("local.etl");
    let mut props = file_props(&name, &local);
    stream.export(&mut props).unwrap();
    let session = Session::start(&mut props).unwrap();
    let g = guid(42);
    session.enable_provider(&g, level::VERBOSE, 0, 0).unwrap();
    let provider = Provider::register(g).unwrap();
    let class = EventClass { guid: g, event_type: 10, level: level::INFORMATION, version: 0 };
    let write = |values: std::ops::Range<u32>| {
        for i in values {
            provider.write(&class, &i.to_le_bytes()).unwrap();
        }
        session.flush(None).unwrap(); // published now, not when the buffer fills
    };
    write(0..300);

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    // File order: delivered as they arrive, no 3 s window to wait out.
    let builder = Consumer::builder().follow(true).order(Order::File).on_event(move |e| {
        let value = u32::from_le_bytes(e.payload()[..4].try_into().unwrap());
        sink.lock().unwrap().push((e.record().file_index(), value));
        ControlFlow::Continue(())
    });
    let mut consumer = stream.open(builder).unwrap();
    let guard = CancelOnDrop(consumer.canceller());
    let follower = std::thread::spawn(move || (consumer.process(), consumer));
    let count = || seen.lock().unwrap().len();
    let wait_for = |n: usize| {
        let start = Instant::now();
        while count() < n && start.elapsed() < Duration::from_secs(4) {
            std::thread::sleep(Duration::from_millis(20));
        }
        count() >= n
    };
    assert!(wait_for(300), "{} of the 300 stored events", count());
    write(300..500);
    assert!(wait_for(500), "{} of the 500 events", count());
    std::thread::sleep(Duration::from_millis(300)); // an event delivered twice would come now
    drop(guard); // cancels
    let start = Instant::now();
    while !follower.is_finished() && start.elapsed() < Duration::from_secs(4) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(follower.is_finished(), "cancel ends the follow");
    let (outcome, consumer) = follower.join().unwrap();
    assert_eq!(outcome.unwrap_err().status(), Status::CANCELLED);

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.iter().map(|(_, v)| *v).collect::<Vec<_>>(), (0..500).collect::<Vec<_>>()); // each once, in order
    assert!(seen.iter().all(|(f, _)| *f == 0));
    assert_eq!(consumer.file_count(), 1);
    let source = consumer.stream_source(0).expect("a file of the stream");
    assert_eq!(source.session, name);
    assert!(!source.machine.is_empty());

    let missing = NatsStream::new(format!("{}/RSNOSUCH", srv.url)).with_credentials(&srv.credentials);
    assert_eq!(missing.open(Consumer::builder().follow(true)).unwrap_err().status(), Status::FILE_NOT_FOUND);
    let file = Consumer::builder().follow(true).open_file(&local).unwrap_err();
    assert_eq!(file.status(), Status::INVALID_PARAMETER); // only a stream is followed
}
