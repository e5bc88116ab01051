//! EVENT_HEADER events (Provider::write_event) and activity ids.
mod common;

use common::*;
use openetw::{
    activity_id_control, Activity, ActivityControl, Consumer, ControlFlow, EventDescriptor, Guid, Provider, Session,
    Status,
};

#[test]
fn write_event_keeps_its_descriptor_and_activity_ids() {
    let g = guid(90);
    let dir = temp_dir("event_header");
    let path = dir.join("e.etl");
    let provider = Provider::register(g).unwrap();
    let mut props = file_props(&unique("EventHeader"), &path);
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&g, 4, 0x10, 0).unwrap();
    let activity: Guid = "11111111-2222-3333-4444-555555555555".parse().unwrap();
    let related: Guid = "66666666-7777-8888-9999-aaaaaaaaaaaa".parse().unwrap();
    let d = EventDescriptor { id: 4711, version: 2, channel: 0x10, level: 4, opcode: 1, task: 9, keyword: 0x8000_0000_0000_0010 };
    provider.write_event(&d, &Activity { id: Some(activity), related: Some(related) }, &[b"ship", b"", b"ped"]).unwrap();
    // Not taken: a keyword without a MatchAny bit, a level above the session's.
    provider.write_event(&EventDescriptor { id: 1, level: 4, keyword: 0x20, ..Default::default() }, &Activity::default(), &[]).unwrap();
    provider.write_event(&EventDescriptor { id: 2, level: 5, keyword: 0x10, ..Default::default() }, &Activity::default(), &[]).unwrap();
    // Keyword 0 passes; the thread's activity id when none is given.
    let mine = activity_id_control(ActivityControl::Create);
    activity_id_control(ActivityControl::Set(mine));
    provider.write_event(&EventDescriptor { id: 3, level: 4, ..Default::default() }, &Activity::default(), &[b"xyz"]).unwrap();
    // Above 0xFFFF bytes in all.
    let big = vec![0u8; 0x10000];
    let err = provider.write_event(&d, &Activity::default(), &[&big]).unwrap_err();
    assert_eq!(err.status(), Status::ARITHMETIC_OVERFLOW);
    session.stop(None).unwrap();

    let mut seen = Vec::new();
    let mut consumer = Consumer::builder()
        .on_event_record(|e| {
            let related = e.extended_data().iter().map(|x| {
                let bytes = unsafe { std::slice::from_raw_parts(x.data, x.data_size as usize) };
                (x.ext_type, bytes.to_vec())
            });
            seen.push((
                (e.id(), e.version(), e.channel(), e.level(), e.opcode(), e.task(), e.keyword()),
                e.provider_id(),
                e.activity_id(),
                related.collect::<Vec<_>>(),
                e.user_data().to_vec(),
            ));
            ControlFlow::Continue(())
        })
        .open_files(&[&path])
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    assert_eq!(seen.len(), 2);
    let related_bytes = openetw::sys::etw_guid::from(related);
    let related_bytes =
        unsafe { std::slice::from_raw_parts(&related_bytes as *const _ as *const u8, 16) }.to_vec();
    assert_eq!(seen[0], ((4711, 2, 0x10, 4, 1, 9, 0x8000_0000_0000_0010), g, activity, vec![(1, related_bytes)], b"shipped".to_vec()));
    assert_eq!(seen[1], ((3, 0, 0, 4, 0, 0, 0), g, mine, vec![], b"xyz".to_vec()));
}

#[test]
fn activity_id_control_follows_event_activity_id_control() {
    std::thread::spawn(|| {
        assert_eq!(activity_id_control(ActivityControl::Get), Guid::default());
        let a: Guid = "00000000-0000-0000-0000-00000000000a".parse().unwrap();
        let b: Guid = "00000000-0000-0000-0000-00000000000b".parse().unwrap();
        assert_eq!(activity_id_control(ActivityControl::Set(a)), a);
        assert_eq!(activity_id_control(ActivityControl::Get), a);
        assert_eq!(activity_id_control(ActivityControl::GetSet(b)), a);
        assert_eq!(activity_id_control(ActivityControl::CreateSet), b);
        let new = activity_id_control(ActivityControl::Get);
        assert!(new != b && new != Guid::default());
        assert_ne!(activity_id_control(ActivityControl::Create), activity_id_control(ActivityControl::Create));
        assert_eq!(activity_id_control(ActivityControl::Get), new);
    })
    .join()
    .unwrap();
}
