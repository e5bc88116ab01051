//! Start a file session, write classic events, stop, and read them back.
//! Run: cargo run --offline --example quickstart (libopenetw on the loader path).
use std::ops::ControlFlow;

use openetw::{level, Consumer, EventClass, Guid, LogFileMode, Properties, Provider, Session};

fn main() -> openetw::Result<()> {
    let guid: Guid = "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab".parse()?;
    let path = std::env::temp_dir().join("quickstart.etl");

    let mut props = Properties::new("Quickstart")?;
    props.set_log_file_name(Some(path.to_str().unwrap()))?;
    props.set_log_file_mode(LogFileMode::SEQUENTIAL)?;
    let provider = Provider::register_with_callback(guid, |info| {
        println!("enabled={} level={} keywords={:#x}", info.is_enabled, info.level, info.match_any_keyword);
    })?;
    let session = Session::start(&mut props)?;
    session.enable_provider(&guid, level::INFORMATION, 0, 0)?;

    let class = EventClass { guid, event_type: 10, level: level::INFORMATION, version: 1 };
    for i in 0..3 {
        provider.write(&class, format!("hello #{i}").as_bytes())?;
    }
    provider.write(&EventClass { level: level::VERBOSE, ..class }, b"filtered out")?;
    let stats = session.stop(None)?;
    println!("stopped: {} buffers written, {} events lost", stats.buffers_written, stats.events_lost);

    let mut consumer = Consumer::builder()
        .on_event(|e| {
            println!("type {} level {} v{}: {}", e.event_type(), e.level(), e.version(), String::from_utf8_lossy(e.payload()));
            ControlFlow::Continue(())
        })
        .open_file(&path)?;
    consumer.process()?;
    let header = consumer.logfile_header(0)?;
    println!("{}: {} records from {:?}", header.logger_name, consumer.stats()?.records, header.log_file_name);
    Ok(())
}
