//! Drop frees every object: the native heap does not grow over 20,000 rounds.
//! (Its own test binary, so no other test allocates while it measures.)
use openetw::{LogFileMode, Properties};

#[repr(C)]
#[derive(Default)]
struct MallInfo2 {
    arena: usize,
    ordblks: usize,
    smblks: usize,
    hblks: usize,
    hblkhd: usize,
    usmblks: usize,
    fsmblks: usize,
    uordblks: usize,
    fordblks: usize,
    keepcost: usize,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    fn mallinfo2() -> MallInfo2;
}

// Bytes malloc has handed out and not had back (glibc).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn heap_bytes() -> usize {
    let info = unsafe { mallinfo2() };
    info.uordblks + info.hblkhd
}

fn churn(rounds: usize, leak: bool) {
    for i in 0..rounds {
        let mut p = Properties::new(&format!("Rs Churn {i}")).unwrap();
        p.set_log_file_name(Some("/tmp/churn.etl")).unwrap();
        p.set_log_file_mode(LogFileMode::SEQUENTIAL).unwrap();
        let mut q = Properties::from_block(&p.to_block()).unwrap();
        assert!(q.set_session_name("").is_err());
        if leak {
            std::mem::forget(p);
            std::mem::forget(q);
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn growth(leak: bool) -> isize {
    churn(2000, leak);
    let before = heap_bytes();
    churn(20_000, leak);
    heap_bytes() as isize - before as isize
}

// Two leaked objects (~700 bytes with names) per round would add ~14 MB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const THRESHOLD: isize = 1 << 20;

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn drop_frees_everything_and_the_measure_sees_leaks() {
    let freed = growth(false);
    assert!(freed < THRESHOLD, "the native heap grew by {freed} bytes");
    let leaked = growth(true);
    assert!(leaked > THRESHOLD, "leaking every object grew the heap by only {leaked} bytes");
}
