//! Export a session to NATS JetStream, read the stream back, collect it into .etl files.
use std::ops::ControlFlow;

use openetw::{level, Consumer, EventClass, Guid, NatsStream, Properties, Provider, Session};

fn main() -> openetw::Result<()> {
    // The nats-server and its credentials file: the test harness names them (never in the URL).
    let url = std::env::var("OPENETW_EXAMPLE_NATS_URL").expect("OPENETW_EXAMPLE_NATS_URL");
    let credentials = std::env::var("OPENETW_EXAMPLE_NATS_CREDENTIALS").expect("OPENETW_EXAMPLE_NATS_CREDENTIALS");
    let stream = NatsStream::new(format!("{url}/FLEETRS")).with_credentials(credentials);
    let guid: Guid = "0a4f3c2e-5d6b-4a7c-9e8f-1b2c3d4e5f62".parse()?;
    let work = std::env::temp_dir().join(format!("fleet-rs-{}", std::process::id()));
    std::fs::create_dir_all(work.join("collected")).expect("a work folder");
    let local = work.join("fleet.etl");

    let mut props = Properties::new("Fleet Rust")?;
    props.set_log_file_name(Some(local.to_str().unwrap()))?;
    stream.export(&mut props)?; // the file, and the stream
    let session = Session::start(&mut props)?;
    session.enable_provider(&guid, level::VERBOSE, 0, 0)?;
    let provider = Provider::register(guid)?;
    let class = EventClass { guid, event_type: 10, level: level::INFORMATION, version: 0 };
    for i in 0..1000u32 {
        provider.write(&class, &i.to_le_bytes())?;
    }
    session.stop(None)?; // returns once the stream acknowledged every buffer

    let mut files = Vec::new(); // read as a file: one per machine's session instance
    let mut consumer = stream.open(Consumer::builder().on_event(|e| {
        files.push(e.record().file_index());
        ControlFlow::Continue(())
    }))?;
    consumer.process()?;
    let sources: Vec<_> = (0..consumer.file_count()).map(|i| consumer.stream_source(i)).collect();
    drop(consumer);
    let mine = files.iter().filter(|&&i| sources[i as usize].as_ref().is_some_and(|s| s.session == "Fleet Rust")).count();

    // MACHINE.SESSION.START.etl, byte for byte
    let report = stream.collect(work.join("collected")).session("Fleet Rust").run()?;
    let f = &report.files[0];
    let same = std::fs::read(&f.path).ok() == std::fs::read(&local).ok();
    println!(
        "Fleet Rust: {mine} events read back, {} file collected ({:?}, complete={}, identical={same})",
        report.files.len(),
        f.outcome,
        f.complete
    );
    Ok(())
}
