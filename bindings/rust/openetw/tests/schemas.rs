//! Schema sources (Decoder::load_manifest / load_binary) and the
//! EVENT_RECORD closure (on_event_record) on the shared Windows samples. The
//! HttpService values were read by hand from the payload bytes (the C++ test
//! tests/decode/manifest_test.cpp checks the same ones); header fields are
//! compared with the golden record lists.
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use openetw::{Consumer, DecodedEvent, Decoder, Guid, Order, Source, Status, Value};

fn sample(name: &str) -> PathBuf {
    let dir = std::env::var_os("OPENETW_SAMPLES_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/etl-samples")
    });
    dir.join(name)
}

fn http_manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/decode/manifests/Microsoft-Windows-HttpService.xml")
}

/// The .NET SDK's Web Deploy tracing DLL (tests/decode/provider_binaries.hpp), if installed.
fn web_deploy_dll() -> Option<PathBuf> {
    let roots = [std::env::var("DOTNET_ROOT").unwrap_or_default(), "/usr/share/dotnet".into(), "/usr/lib/dotnet".into(), "/opt/dotnet".into()];
    for root in roots.iter().filter(|r| !r.is_empty()) {
        let Ok(sdks) = std::fs::read_dir(Path::new(root).join("sdk")) else { continue };
        for sdk in sdks.flatten() {
            let dll = sdk.path().join("Sdks/Microsoft.NET.Sdk.Publish/tools/net472/Microsoft.Web.Deployment.Tracing.dll");
            if dll.is_file() {
                return Some(dll);
            }
        }
    }
    None
}

/// (event id, payload, decoded) of every EVENT record, decoded with `decoder`.
fn events(decoder: &mut Decoder) -> Vec<(u16, Vec<u8>, Option<DecodedEvent>)> {
    let mut out = Vec::new();
    let mut consumer = Consumer::builder()
        .order(Order::File)
        .on_record(|r| {
            if r.kind() == openetw::RecordKind::EVENT {
                let d = match decoder.decode(r) {
                    Ok(d) => Some(d),
                    Err(e) if e.status() == Status::NOT_FOUND => None,
                    Err(e) => panic!("{e}"),
                };
                out.push((r.event_id(), r.payload().to_vec(), d));
            }
            ControlFlow::Continue(())
        })
        .open_file(sample("tx_HTTP_Server.etl"))
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn http_server_sample_decodes_with_its_manifest() {
    let mut decoder = Decoder::new().unwrap();
    assert!(events(&mut decoder).iter().all(|e| e.2.is_none())); // nothing before the manifest
    decoder.load_manifest(http_manifest()).unwrap();
    let all = events(&mut decoder);
    assert_eq!(all.len(), 2041); // golden: event:2041
    assert!(all.iter().all(|e| e.2.as_ref().is_some_and(|d| d.source == Source::Manifest
        && d.provider_name == "Microsoft-Windows-HttpService"
        && d.payload_used as usize == e.1.len())));
    assert_eq!(all.iter().filter(|e| e.0 == 1).count(), 291);
    assert_eq!(all.iter().filter(|e| e.0 == 12).count(), 289);
    let first = |id: u16, start: &str| all.iter().find(|e| e.0 == id && hex(&e.1).starts_with(start)).unwrap().2.clone().unwrap();
    let parse = first(2, "30457c0380faffff04000000");
    assert_eq!((parse.event_name.as_str(), parse.task_name.as_str(), parse.opcode_name.as_str()),
               ("HTTPRequestTraceTaskParse", "HTTPRequestTraceTask", "Parse"));
    assert_eq!(parse.keywords_name, "HTTP_KEYWORD_REQUEST");
    assert_eq!(parse.field("RequestObj"), Some(&Value::Pointer(0xFFFFFA80037C4530)));
    assert_eq!(parse.get::<u32>("HttpVerb").unwrap(), 4);
    assert_eq!(parse.get::<String>("Url").unwrap(), "http://georgis2:80/windir.txt");
    let resp = first(4, "0d060080000000ff0c060060000000ffc80047455400a5000000");
    assert_eq!(resp.get::<u64>("RequestId").unwrap(), 18374686481819108877);
    assert_eq!(resp.get::<u16>("StatusCode").unwrap(), 200);
    assert_eq!(resp.get::<String>("Verb").unwrap(), "GET");
    assert_eq!(first(51, "00000000280e0080ffffffff").get::<String>("ResType").unwrap(), "CacheMiss");
}

fn utf16(texts: &[&str]) -> Vec<u8> {
    texts.iter().flat_map(|t| t.encode_utf16().chain([0]).flat_map(u16::to_le_bytes)).collect()
}

/// Decodes a Web Deploy event built here, as the C++ test does.
fn decode_web_deploy(decoder: &mut Decoder, id: u16, version: u16, payload: &[u8]) -> openetw::Result<DecodedEvent> {
    let mut raw: openetw::sys::etw_record = unsafe { std::mem::zeroed() };
    raw.struct_size = std::mem::size_of::<openetw::sys::etw_record>() as u32;
    raw.kind = openetw::RecordKind::EVENT.0;
    raw.pointer_size = 8;
    raw.guid = openetw::sys::etw_guid { Data1: 0xab77e98e, Data2: 0x0138, Data3: 0x4c77, Data4: [0x8b, 0xfb, 0xde, 0xcd, 0x33, 0xed, 0xfe, 0x3c] };
    raw.event_id = id;
    raw.version = version;
    raw.payload = payload.as_ptr();
    raw.payload_size = payload.len() as u32;
    unsafe { decoder.decode_raw(&raw) } // payload outlives the call
}

#[test]
fn web_deploy_binary_decodes_with_its_message_table_names() {
    let Some(dll) = web_deploy_dll() else {
        eprintln!("Microsoft.Web.Deployment.Tracing.dll (.NET SDK) is not installed here");
        return;
    };
    for from_image in [false, true] {
        let mut decoder = Decoder::new().unwrap();
        let payload = utf16(&["m", "u", "s"]);
        assert_eq!(decode_web_deploy(&mut decoder, 27004, 0, &payload).unwrap_err().status(), Status::NOT_FOUND);
        if from_image {
            decoder.load_binary_image(&std::fs::read(&dll).unwrap()).unwrap();
        } else {
            decoder.load_binary(&dll).unwrap();
        }
        let mut p = (-5i32).to_le_bytes().to_vec();
        p.extend(utf16(&["boom", "at Main()"]));
        let e = decode_web_deploy(&mut decoder, 27000, 1, &p).unwrap();
        assert_eq!((e.provider_name.as_str(), e.level_name.as_str(), e.task_name.as_str()), ("Microsoft-Windows-WebDeploy", "Error", ""));
        assert_eq!(e.fields, vec![("ErrorCode".into(), Value::I32(-5)), ("Message".into(), Value::String("boom".into())),
                                  ("StackTrace".into(), Value::String("at Main()".into()))]);
        let g = decode_web_deploy(&mut decoder, 27004, 0, &payload).unwrap();
        assert_eq!(g.level_name, "Warning");
        assert_eq!(g.get::<String>("SiteName").unwrap(), "s");
        assert_eq!(decode_web_deploy(&mut decoder, 27000, 0, &[]).unwrap_err().status(), Status::NOT_FOUND);
    }
}

#[test]
fn bad_sources_give_the_status_and_message_and_keep_what_was_loaded() {
    let dir = std::env::temp_dir().join(format!("openetw-rs-schemas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut decoder = Decoder::new().unwrap();
    decoder.load_manifest(http_manifest()).unwrap();
    let e = decoder.load_manifest(dir.join("missing.man")).unwrap_err();
    assert_eq!(e.status(), Status::FILE_NOT_FOUND);
    assert!(e.message().contains("missing.man"), "{e}");
    std::fs::write(dir.join("bad.man"), "<instrumentationManifest>\n<events><provider name='x'>\n</events>").unwrap();
    let e = decoder.load_manifest(dir.join("bad.man")).unwrap_err();
    assert_eq!(e.status(), Status::INVALID_DATA);
    assert!(e.message().contains("bad.man"), "{e}");
    assert!(decoder.load_manifest_text(b"<instrumentationManifest").unwrap_err().message().contains("(memory)"));
    std::fs::write(dir.join("notes.dll"), "just some text, not an MZ image".repeat(8)).unwrap();
    let e = decoder.load_binary(dir.join("notes.dll")).unwrap_err();
    assert_eq!(e.status(), Status::INVALID_DATA);
    assert!(e.message().contains("notes.dll"), "{e}");
    assert_eq!(decoder.load_binary(dir.join("missing.dll")).unwrap_err().status(), Status::FILE_NOT_FOUND);
    assert_eq!(decoder.load_binary_image(b"MZ").unwrap_err().status(), Status::INVALID_DATA);
    if let Some(dll) = web_deploy_dll() {
        // A managed assembly of the SDK: a PE image with no WEVT_TEMPLATE resource.
        let managed = dll.ancestors().nth(5).unwrap().join("dotnet.dll");
        let e = decoder.load_binary(&managed).unwrap_err();
        assert_eq!(e.status(), Status::NOT_FOUND, "{e}");
        assert!(e.message().contains("WEVT_TEMPLATE"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let all = events(&mut decoder);
    assert_eq!(all[0].2.as_ref().unwrap().event_name, "HTTPConnectionTraceTaskConnConnect");
}

// ---- EVENT_RECORD delivery ----

/// A number or string member of a golden line (flat JSON).
fn member(line: &str, key: &str) -> String {
    let at = line.find(&format!("\"{key}\": ")).unwrap_or_else(|| panic!("{key} in {line}")) + key.len() + 4;
    line[at..].split([',', '}']).next().unwrap().trim_matches('"').to_string()
}

#[derive(Debug, PartialEq)]
struct Facts {
    id: u16, version: u16, channel: u8, level: u8, opcode: u8, task: u16, keyword: u64, flags: u16, property: u16,
    tid: u32, pid: u32, timestamp: i64, provider: Guid, activity: Guid, kernel: u32, user: u32, data: Vec<u8>,
    extended: Vec<(u16, u16, Vec<u8>)>,
}

fn check_against_golden(name: &str) -> Vec<(Facts, Option<DecodedEvent>)> {
    let mut decoder = Decoder::new().unwrap();
    if name == "tx_HTTP_Server" {
        decoder.load_manifest(http_manifest()).unwrap();
    }
    let (mut seen, mut records) = (Vec::new(), Vec::new());
    let ext = |items: &[openetw::sys::etw_extended_item]| -> Vec<(u16, u16, Vec<u8>)> {
        items.iter().map(|x| (x.ext_type, x.linkage, unsafe { std::slice::from_raw_parts(x.data, x.data_size as usize) }.to_vec())).collect()
    };
    let mut consumer = Consumer::builder()
        .order(Order::File)
        .on_record(|r| {
            if r.kind() == openetw::RecordKind::EVENT {
                let x = r.raw();
                records.push(Facts { id: x.event_id, version: x.version, channel: x.channel, level: x.level, opcode: x.opcode,
                    task: x.task, keyword: x.keyword, flags: x.event_flags, property: x.event_property, tid: x.thread_id,
                    pid: x.process_id, timestamp: x.timestamp, provider: x.guid.into(), activity: x.activity_id.into(),
                    kernel: x.kernel_time, user: x.user_time, data: r.payload().to_vec(), extended: ext(r.extended()) });
            }
            ControlFlow::Continue(())
        })
        .on_event_record(|e| {
            let facts = Facts { id: e.id(), version: e.version().into(), channel: e.channel(), level: e.level(), opcode: e.opcode(),
                task: e.task(), keyword: e.keyword(), flags: e.flags(), property: e.event_property(), tid: e.thread_id(),
                pid: e.process_id(), timestamp: e.timestamp(), provider: e.provider_id(), activity: e.activity_id(),
                kernel: e.kernel_time(), user: e.user_time(), data: e.user_data().to_vec(), extended: ext(e.extended_data()) };
            seen.push((facts, decoder.decode(&e.record()).ok()));
            ControlFlow::Continue(())
        })
        .open_file(sample(&format!("{name}.etl")))
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    let golden: Vec<String> = std::fs::read_to_string(sample(&format!("golden/{name}.records.jsonl"))).unwrap()
        .lines().filter(|l| l.contains("\"kind\": \"event\"")).map(String::from).collect();
    assert_eq!(seen.len(), golden.len());
    assert_eq!(records.len(), golden.len());
    for ((e, _), (g, r)) in seen.iter().zip(golden.iter().zip(&records)) {
        assert_eq!(e.id.to_string(), member(g, "event_id"));
        assert_eq!(e.version.to_string(), member(g, "version"));
        assert_eq!(e.level.to_string(), member(g, "level"));
        assert_eq!(e.opcode.to_string(), member(g, "opcode"));
        assert_eq!(e.pid.to_string(), member(g, "process_id"));
        assert_eq!(e.tid.to_string(), member(g, "thread_id"));
        assert_eq!(e.timestamp.to_string(), member(g, "timestamp_filetime"));
        assert_eq!(e.provider.to_string().trim_matches(['{', '}']).to_lowercase(), member(g, "guid"));
        assert_eq!(e, r); // every member, against the record closure's facts
    }
    seen
}

#[test]
fn event_records_of_a_tracelogging_sample() {
    let seen = check_against_golden("pv_SelfDescribingSingleEvent"); // its 18 classic records do not come
    assert_eq!(seen.len(), 1);
    let (facts, decoded) = &seen[0];
    assert_eq!(facts.id, 3);
    assert!(!facts.extended.is_empty());
    let d = decoded.as_ref().unwrap();
    assert_eq!((d.event_name.as_str(), d.provider_name.as_str()), ("TestEvent", "MySource"));
    assert_eq!(d.field("a"), Some(&Value::Struct(vec![("b".into(), Value::String("Hello".into())), ("c".into(), Value::String("World!".into()))])));
}

#[test]
fn event_records_of_the_bond_sample() {
    let seen = check_against_golden("tx_BondEtwSample");
    assert!(!seen.is_empty() && seen.iter().all(|s| s.1.is_none())); // manifest-based: no manifest here
}

#[test]
fn event_records_of_the_http_sample_decode() {
    let seen = check_against_golden("tx_HTTP_Server");
    assert_eq!(seen.len(), 2041);
    assert!(seen.iter().all(|s| s.1.as_ref().is_some_and(|d| d.provider_name == "Microsoft-Windows-HttpService")));
    let parse = seen.iter().find(|s| s.0.id == 2 && hex(&s.0.data).starts_with("30457c0380faffff04000000")).unwrap();
    assert_eq!(parse.1.as_ref().unwrap().get::<String>("Url").unwrap(), "http://georgis2:80/windir.txt");
}

#[test]
fn event_record_closure_stops() {
    let mut count = 0;
    let mut consumer = Consumer::builder()
        .on_event_record(|_| {
            count += 1;
            if count == 5 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .open_file(sample("tx_HTTP_Server.etl"))
        .unwrap();
    assert_eq!(consumer.process().unwrap_err().status(), Status::CANCELLED);
    drop(consumer);
    assert_eq!(count, 5);
}
