//! Write an event of a class the decoder knows, then read its fields by name and type.
use std::ops::ControlFlow;

use openetw::{Consumer, EventClass, Guid, LogFileMode, Properties, Provider, Session, Value};

fn main() -> openetw::Result<()> {
    let guid: Guid = "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab".parse()?;
    let file_io: Guid = "90cbdc39-4a3e-11d1-84f4-0000f80464e3".parse()?; // the kernel's FileIo class
    let path = std::env::temp_dir().join("decoded-rs.etl");
    let mut props = Properties::new("Decoded Rust")?;
    props.set_log_file_name(Some(path.to_str().unwrap()))?;
    props.set_log_file_mode(LogFileMode::SEQUENTIAL)?;
    let provider = Provider::register(guid)?;
    let session = Session::start(&mut props)?;
    session.enable_provider(&guid, 0, 0, 0)?;
    let name: Vec<u8> = "\\Device\\HarddiskVolume3\\notes.txt\0".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let class = EventClass { guid: file_io, event_type: 0, level: 4, version: 2 };
    provider.write_parts(&class, &[&0xFFFF8000DEAD0010u64.to_le_bytes(), &name])?;
    session.stop(None)?;

    let mut consumer = Consumer::builder()
        .on_event(|e| {
            let Ok(event) = e.decode() else { return ControlFlow::Continue(()) }; // no schema, or a bad payload
            let file_name: String = event.get("FileName").expect("a FileIo/Name string");
            let Some(Value::Pointer(object)) = event.field("FileObject") else { panic!("FileObject is a pointer") };
            println!("Decoded Rust: {} FileName={file_name} FileObject={object:#X}", event.event_name);
            assert!(event.get::<u32>("FileName").is_err()); // a String, not a u32
            ControlFlow::Continue(())
        })
        .open_file(&path)?;
    consumer.process()
}
