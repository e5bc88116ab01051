//! TraceLogging events written with the tracelogging! macro, read back and
//! decoded (names, types, values), and shown by etwdump.
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use common::*;
use openetw::{tracelogging, Consumer, ControlFlow, DecodedEvent, Guid, Provider, Session, Source, Status, Value};

/// (level, opcode, keyword, channel) and the decoded event of every record in `path`.
fn read_back(path: &Path) -> Vec<((u8, u8, u64, u8), DecodedEvent)> {
    let mut seen = Vec::new();
    let mut consumer = Consumer::builder()
        .on_event_record(|e| {
            seen.push(((e.level(), e.opcode(), e.keyword(), e.channel()), e.record().decode().unwrap()));
            ControlFlow::Continue(())
        })
        .open_files(&[path])
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    seen
}

fn etwdump(path: &Path) -> String {
    let dir = PathBuf::from(option_env!("OPENETW_TEST_LIB_DIR").expect("built without DEP_OPENETW_LIB_DIR"));
    let exe = dir.join("tools/etwdump/etwdump");
    let out = std::process::Command::new(&exe)
        .args(["--format", "text"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
    assert!(out.status.success(), "etwdump: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `write` with a provider named `name` enabled by a file session (level, keyword).
fn trace(test: &str, name: &str, level: u8, keyword: u64, write: impl FnOnce(&Provider)) -> PathBuf {
    let path = temp_dir(test).join("tl.etl");
    let provider = Provider::register_named(name).unwrap();
    let mut props = file_props(&unique(test), &path);
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&provider.guid(), level, keyword, 0).unwrap();
    write(&provider);
    session.stop(None).unwrap();
    path
}

#[test]
fn the_macro_writes_names_types_and_values() {
    let name = format!("OpenEtw.RsTests.Orders{}", std::process::id());
    let id: Guid = "12345678-9abc-def0-1122-334455667788".parse().unwrap();
    let when = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let customer = String::from("Fabrikam");
    let path = trace("tl_types", &name, 0, 0, |p| {
        tracelogging!(p, "OrderShipped", order_id = 4711i32, customer = "Fabrikam").unwrap();
        tracelogging!(p, "AllTypes",
            i8 = -8i8, u8 = 200u8, i16 = -16000i16, u16 = 60000u16, i32 = -2_000_000_000i32, u32 = 4_000_000_000u32,
            i64 = i64::MIN, u64 = u64::MAX, f32 = 1.5f32, f64 = -2.25f64, flag = true, text = customer,
            "with space" = "Grüße", id = id, when = when, blob = [1u8, 2, 3][..], numbers = vec![1i32, -2, 3],
            ratios = [0.5f64, 0.25], size = 7usize)
        .unwrap();
    });
    let events = read_back(&path);
    assert_eq!(events.len(), 2);
    let (header, e) = &events[0];
    assert_eq!((e.source, e.event_name.as_str(), e.provider_name.as_str()), (Source::TraceLogging, "OrderShipped", name.as_str()));
    assert_eq!(*header, (5, 0, 0, 11)); // TraceLogging's defaults
    assert_eq!(e.names().collect::<Vec<_>>(), ["order_id", "customer"]);
    assert_eq!(e.field("order_id"), Some(&Value::I32(4711)));
    assert_eq!(e.field("customer"), Some(&Value::String("Fabrikam".into())));

    let a = &events[1].1;
    let expect = [
        ("i8", Value::I8(-8)),
        ("u8", Value::U8(200)),
        ("i16", Value::I16(-16000)),
        ("u16", Value::U16(60000)),
        ("i32", Value::I32(-2_000_000_000)),
        ("u32", Value::U32(4_000_000_000)),
        ("i64", Value::I64(i64::MIN)),
        ("u64", Value::U64(u64::MAX)),
        ("f32", Value::F32(1.5)),
        ("f64", Value::F64(-2.25)),
        ("flag", Value::Bool(true)),
        ("text", Value::String("Fabrikam".into())),
        ("with space", Value::String("Grüße".into())),
        ("id", Value::Guid(id)),
        ("when", Value::Time(when)),
        ("blob", Value::Binary(vec![1, 2, 3])),
        ("numbers", Value::Array(vec![Value::I32(1), Value::I32(-2), Value::I32(3)])),
        ("ratios", Value::Array(vec![Value::F64(0.5), Value::F64(0.25)])),
        ("size", Value::U64(7)),
    ];
    assert_eq!(a.names().collect::<Vec<_>>(), expect.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    for (n, v) in &expect {
        assert_eq!(a.field(n), Some(v), "field {n}");
    }
    // The TDH in-types of the decoded properties (the TraceLogging ones, same numbers).
    let in_type = |n: &str| a.properties.iter().find(|p| p.parent.is_none() && p.name == n).unwrap().in_type;
    assert_eq!((in_type("text"), in_type("flag"), in_type("blob"), in_type("when")), (2, 13, 14, 17));

    let dump = etwdump(&path);
    for s in ["OrderShipped", &name, "order_id", "4711", "customer", "Fabrikam", "AllTypes", "18446744073709551615",
              "with space", "Grüße", "12345678-9abc-def0-1122-334455667788", "-16000"] {
        assert!(dump.to_lowercase().contains(&s.to_lowercase()), "etwdump lacks {s}:\n{dump}");
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn options_set_the_descriptor_and_sessions_filter_by_them() {
    let name = format!("OpenEtw.RsTests.Options{}", std::process::id());
    let mut evaluated = 0;
    let path = trace("tl_options", &name, 4, 0x10, |p| {
        // No session takes these: their fields are not evaluated.
        tracelogging!(p, "Filtered", keyword: 0x10, n = { evaluated += 1; 1i32 }).unwrap();
        tracelogging!(p, "Filtered", level: 2, keyword: 0x20, n = { evaluated += 1; 1i32 }).unwrap();
        tracelogging!(p, "Taken", level: 3, keyword: 0x10, n = 1i32, opcode: 1).unwrap();
        tracelogging!(p, "TooVerbose", keyword: 0x10, n = 2i32).unwrap(); // level 5 by default
        tracelogging!(p, "OtherKeyword", level: 2, keyword: 0x20, n = 3i32).unwrap();
        tracelogging!(p, "NoFields", level: 2, keyword: 0x30).unwrap();
    });
    let events = read_back(&path);
    let names: Vec<_> = events.iter().map(|(_, e)| e.event_name.as_str()).collect();
    assert_eq!(names, ["Taken", "NoFields"]);
    assert_eq!(events[0].0, (3, 1, 0x10, 11));
    assert_eq!(events[0].1.get::<i32>("n").unwrap(), 1);
    assert_eq!(events[1].1.fields.len(), 0);
    assert_eq!(evaluated, 0);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_disabled_provider_evaluates_no_field() {
    let p = Provider::register_named(&format!("OpenEtw.RsTests.Off{}", std::process::id())).unwrap();
    let mut evaluated = false;
    tracelogging!(p, "Off", n = { evaluated = true; 1i32 }).unwrap();
    assert!(!evaluated);
}

#[test]
fn bad_values_give_clear_statuses() {
    let name = format!("OpenEtw.RsTests.Bad{}", std::process::id());
    let path = trace("tl_bad", &name, 0, 0, |p| {
        let e = tracelogging!(p, "Nul", text = "a\0b").unwrap_err();
        assert_eq!(e.status(), Status::INVALID_PARAMETER);
        assert!(e.message().contains("text"), "{}", e.message());
        let big = vec![0u8; 70_000];
        let e = tracelogging!(p, "Big", blob = big[..]).unwrap_err();
        assert_eq!(e.status(), Status::INVALID_PARAMETER);
        assert!(e.message().contains("blob"), "{}", e.message());
        let e = p.set_name("Again", None).unwrap_err();
        assert_eq!(e.status(), Status::ALREADY_EXISTS);
    });
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
    assert_eq!(Provider::guid_from_name("a\0b").unwrap_err().status(), Status::INVALID_PARAMETER);
}

#[test]
fn the_name_derived_guid_is_event_sources() {
    let want: Guid = "ce5fa4ea-ab00-5402-8b76-9f76ac858fb5".parse().unwrap();
    assert_eq!(Provider::guid_from_name("MyCompany.MyComponent").unwrap(), want);
    assert_eq!(Provider::register_named("MyCompany.MyComponent").unwrap().guid(), want);
}
