//! The tracelogging! macro allocates nothing once a session enables the
//! provider: a counting allocator (this test binary's only) counts this
//! thread's allocations around the writes.
mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, UNIX_EPOCH};

use common::*;
use openetw::{tracelogging, Consumer, ControlFlow, Guid, Provider, Session};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

#[test]
fn a_write_allocates_nothing() {
    let path = temp_dir("tl_alloc").join("tl.etl");
    let provider = Provider::register_named(&format!("OpenEtw.RsTests.Alloc{}", std::process::id())).unwrap();
    let mut props = file_props(&unique("TlAlloc"), &path);
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&provider.guid(), 0, 0, 0).unwrap();
    let id = Guid { data1: 1, data2: 2, data3: 3, data4: [4; 8] };
    let items = vec![1i32, 2, 3];
    let customer = String::from("Fabrikam");
    let when = UNIX_EPOCH + Duration::from_secs(1);
    let before = ALLOCATIONS.with(Cell::get);
    for i in 0..1000u32 {
        tracelogging!(provider, "Steady", level: 4, keyword: 1, n = i, customer = customer, id = id,
                      items = items, when = when, flag = true, blob = b"xyz"[..])
        .unwrap();
    }
    let allocated = ALLOCATIONS.with(Cell::get) - before;
    session.stop(None).unwrap();
    assert_eq!(allocated, 0);

    let mut count = 0;
    let mut consumer = Consumer::builder()
        .on_event_record(|e| {
            let d = e.record().decode().unwrap();
            assert_eq!(d.get::<u32>("n").unwrap(), count);
            count += 1;
            ControlFlow::Continue(())
        })
        .open_files(&[&path])
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    assert_eq!(count, 1000);
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
