//! Record the kernel's process events live: a child's start and end, decoded.
use std::sync::mpsc;

use openetw::{KernelEvent, KernelFlags, KernelTrace};

fn main() -> openetw::Result<()> {
    // Flags as KernelFlags bits or names ("process,thread".parse()?); the name defaults to "NT Kernel Logger".
    let (tx, events) = mpsc::channel::<KernelEvent>();
    let start_tx = tx.clone();
    let trace = KernelTrace::new(KernelFlags::PROCESS)
        .name("Kernel Rust")
        // or "Process" (the class), ("Process", 2), on_event(..) for all; a KernelEvent: fields, pid, tid, time
        .on("Process/Start", move |e| { let _ = start_tx.send(e.clone()); })
        .on("Process/End", move |e| { let _ = tx.send(e.clone()); })
        .start()?; // root or CAP_PERFMON; dropping it stops it too (thread joined)

    let mut child = std::process::Command::new("/bin/true").spawn().expect("/bin/true");
    child.wait().expect("/bin/true ran");
    trace.stop()?; // every event delivered
    let image = |e: &KernelEvent| e.get::<String>("ImageFileName").unwrap_or_default();
    let mine: Vec<KernelEvent> =
        events.try_iter().filter(|e| e.get::<u32>("ProcessId") == Ok(child.id()) && image(e) == "true").collect();
    let start = mine.iter().find(|e| e.event_name() == "Process/Start").expect("the child's start");
    let end = mine.iter().find(|e| e.event_name() == "Process/End").expect("the child's end");
    let parent = start.get::<u32>("ParentId")?;
    let parent = if parent == std::process::id() { "this process".to_owned() } else { parent.to_string() };
    println!("Kernel Rust: {} {} (parent {parent}), {} exit {}", start.event_name(), image(start), end.event_name(),
             end.get::<i32>("ExitStatus")?);
    Ok(())
}
