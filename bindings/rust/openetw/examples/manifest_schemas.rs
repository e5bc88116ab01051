//! Decode a provider's events with its instrumentation manifest (Decoder::load_manifest_text).
use std::ops::ControlFlow;

use openetw::{Consumer, Decoder, EventClass, Guid, LogFileMode, Properties, Provider, Session};

const MANIFEST: &str = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"><instrumentation><events>
  <provider name="Contoso-Orders" guid="{3c1f6a52-8e0b-4d7e-9a41-5b2e7d9c0f13}" symbol="CONTOSO">
    <opcodes><opcode name="Shipped" value="10"/></opcodes>
    <templates><template tid="Order">
      <data name="OrderId" inType="win:UInt32"/><data name="Customer" inType="win:UnicodeString"/>
    </template></templates>
    <events><event value="1" version="0" opcode="Shipped" level="win:Informational" template="Order"/></events>
  </provider></events></instrumentation></instrumentationManifest>"#;

fn main() -> openetw::Result<()> {
    let guid: Guid = "3c1f6a52-8e0b-4d7e-9a41-5b2e7d9c0f13".parse()?;
    let mut decoder = Decoder::new()?;
    decoder.load_manifest_text(MANIFEST.as_bytes())?; // or load_manifest(path), load_binary(path);
    // openetw::load_manifest(path) gives it to every thread's Record::decode instead
    let path = std::env::temp_dir().join("manifest-rs.etl");
    let mut props = Properties::new("Manifest Rust")?;
    props.set_log_file_name(Some(path.to_str().unwrap()))?;
    props.set_log_file_mode(LogFileMode::SEQUENTIAL)?;
    let provider = Provider::register(guid)?;
    let session = Session::start(&mut props)?;
    session.enable_provider(&guid, 0, 0, 0)?;
    let customer: Vec<u8> = "Fabrikam\0".encode_utf16().flat_map(u16::to_le_bytes).collect();
    provider.write_parts(&EventClass { guid, event_type: 10, level: 4, version: 0 }, &[&4711u32.to_le_bytes(), &customer])?;
    session.stop(None)?;

    let mut consumer = Consumer::builder()
        .on_event(|e| {
            if let Ok(event) = decoder.decode(&e.record()) {
                let id: u32 = event.get("OrderId").expect("a UInt32");
                let customer: String = event.get("Customer").expect("a string");
                println!("Manifest Rust: {}/{} OrderId={id} Customer={customer}", event.provider_name, event.opcode_name);
            }
            ControlFlow::Continue(())
        })
        .open_file(&path)?;
    consumer.process()
}
