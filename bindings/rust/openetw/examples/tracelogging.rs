//! Write a TraceLogging event with the tracelogging! macro and read it back
//! with its names and values (no manifest: the event describes itself).
use std::ops::ControlFlow;

use openetw::{tracelogging, Consumer, LogFileMode, Properties, Provider, Session};

fn main() -> openetw::Result<()> {
    let path = std::env::temp_dir().join(format!("tracelogging-{}.etl", std::process::id()));
    let provider = Provider::register_named("MyCompany.Orders")?;
    let mut props = Properties::new(&format!("TraceLogging Rust {}", std::process::id()))?;
    props.set_log_file_name(Some(path.to_str().expect("a UTF-8 temp path")))?;
    props.set_log_file_mode(LogFileMode::SEQUENTIAL)?;
    let session = Session::start(&mut props)?;
    session.enable_provider(&provider.guid(), 4, 0, 0)?;
    tracelogging!(provider, "OrderShipped", level: 4, order_id = 4711i32, customer = "Fabrikam")?;
    session.stop(None)?;

    let mut line = String::new();
    Consumer::builder()
        .on_event_record(|e| {
            let d = e.record().decode().expect("a TraceLogging event decodes");
            let fields: Vec<String> = d.fields.iter().map(|(n, _)| format!("{n}={}", d.formatted(n).unwrap_or(""))).collect();
            line = format!("{}/{} {}", d.provider_name, d.event_name, fields.join(" "));
            ControlFlow::Continue(())
        })
        .open_files(&[&path])?
        .process()?;
    let _ = std::fs::remove_file(&path);
    println!("TraceLogging Rust: {line}");
    Ok(())
}
