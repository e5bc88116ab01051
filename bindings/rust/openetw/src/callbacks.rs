//! What every callback shares: no panic may unwind into C (DESIGN.md,
//! "Bindings"), so each closure runs under `catch_unwind` and its panic is
//! kept until a Rust caller can resume it.
use core::cell::RefCell;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// A caught panic's payload, as `std::panic::resume_unwind` takes it.
pub(crate) type Payload = Box<dyn Any + Send + 'static>;

/// Runs `f`, catching a panic. The closure's state may be half-updated after a
/// panic; it is never called again by a consumer (processing stops) and the
/// panic is resumed in the caller, so no broken invariant is observed silently.
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, Payload> {
    panic::catch_unwind(AssertUnwindSafe(f))
}

/// Drops a box that C hands back through `user_data_free`. A closure whose
/// captures panic while dropping must not unwind into C: that panic is
/// discarded (there is no Rust caller left to hand it to).
pub(crate) unsafe fn free_box<T>(ptr: *mut T) {
    if !ptr.is_null() {
        let boxed = unsafe { Box::from_raw(ptr) };
        if let Err(payload) = catch(move || drop(boxed)) {
            // Dropping the payload could panic again: forget it instead.
            core::mem::forget(payload);
        }
    }
}

// Enable callbacks run on the thread whose call enables or disables a
// provider (provider.h), so a panic in one is parked here, per thread, and
// resumed by that call when it returns to Rust.
thread_local! {
    static ENABLE_PANIC: RefCell<Option<Payload>> = const { RefCell::new(None) };
}

/// Parks an enable callback's panic; only the first of several is kept.
pub(crate) fn park_enable_panic(payload: Payload) {
    let rejected = ENABLE_PANIC.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(payload);
            None
        } else {
            Some(payload)
        }
    });
    if let Some(payload) = rejected {
        core::mem::forget(payload);
    }
}

/// Resumes a panic an enable callback raised on this thread, if any. Called
/// by every safe call that can run enable callbacks, after the C call returns.
pub(crate) fn resume_enable_panic() {
    if let Some(payload) = ENABLE_PANIC.with(|slot| slot.borrow_mut().take()) {
        panic::resume_unwind(payload);
    }
}

/// For Drop: a panic an enable callback left is resumed, unless the thread is
/// already unwinding (a second panic would abort), when it is dropped.
pub(crate) fn resume_enable_panic_unless_unwinding() {
    if std::thread::panicking() {
        drop(ENABLE_PANIC.with(|slot| slot.borrow_mut().take()));
    } else {
        resume_enable_panic();
    }
}
