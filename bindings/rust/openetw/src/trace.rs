//! A live trace in one object: a real-time session, its providers enabled, and
//! a consumer delivering every classic event to a closure on a thread of its
//! own; stopped when dropped.

use std::ops::ControlFlow;
use std::thread::JoinHandle;

use crate::consumer::{Canceller, Consumer};
use crate::error::Result;
use crate::properties::Properties;
use crate::records::ClassicEvent;
use crate::session::{Session, Statistics};
use crate::types::{level, Guid, LogFileMode};

/// Builds a [`LiveTrace`]: `LiveTrace::new(name).enable(guid, level, any, all)
/// .on_event(|e| ..).start()`.
pub struct LiveTraceBuilder {
    name: String,
    providers: Vec<(Guid, u8, u64, u64)>,
    on_event: Option<Box<dyn FnMut(&ClassicEvent<'_>) + Send + 'static>>,
}

impl LiveTraceBuilder {
    /// Enables a provider with a level (0 = every level) and keywords
    /// (EnableTraceEx2's MatchAnyKeyword, MatchAllKeyword; 0 = all).
    pub fn enable(mut self, guid: Guid, level: u8, match_any_keyword: u64, match_all_keyword: u64) -> Self {
        self.providers.push((guid, level, match_any_keyword, match_all_keyword));
        self
    }

    /// Enables a provider at every level with every keyword.
    pub fn enable_all(self, guid: Guid) -> Self {
        self.enable(guid, level::VERBOSE, 0, 0)
    }

    /// The closure called for every classic event, on the trace's thread.
    pub fn on_event(mut self, f: impl FnMut(&ClassicEvent<'_>) + Send + 'static) -> Self {
        self.on_event = Some(Box::new(f));
        self
    }

    /// Starts the session, enables the providers and starts delivering.
    pub fn start(self) -> Result<LiveTrace> {
        let mut props = Properties::new(&self.name)?;
        props.set_log_file_mode(LogFileMode::REAL_TIME)?;
        let session = Session::start(&mut props)?; // dropped (so stopped) if anything below fails
        for (guid, level, any, all) in &self.providers {
            session.enable_provider(guid, *level, *any, *all)?;
        }
        let mut on_event = self.on_event;
        let consumer = Consumer::builder()
            .on_event(move |e| {
                if let Some(f) = on_event.as_mut() {
                    f(e);
                }
                ControlFlow::Continue(())
            })
            .open_session(&self.name)?;
        let canceller = consumer.canceller();
        let thread = std::thread::Builder::new()
            .name(format!("LiveTrace {}", self.name))
            .spawn(move || {
                let mut consumer = consumer;
                consumer.process()
            })
            .map_err(|e| crate::Error::new(crate::Status::NO_SYSTEM_RESOURCES, format!("cannot start a thread: {e}")))?;
        Ok(LiveTrace { session, thread: Some(thread), canceller, stats: None })
    }
}

/// A running live trace; see [`LiveTrace::new`]. Dropping it stops the
/// session and waits for the delivery thread (errors and a panic of the
/// closure are then lost: call [`stop`](Self::stop) to get them).
pub struct LiveTrace {
    session: Session,
    thread: Option<JoinHandle<Result<()>>>,
    canceller: Canceller,
    stats: Option<Statistics>,
}

impl LiveTrace {
    /// A builder for a live trace named `name`.
    #[allow(clippy::new_ret_no_self)]
    pub fn new(name: &str) -> LiveTraceBuilder {
        LiveTraceBuilder { name: name.to_owned(), providers: Vec::new(), on_event: None }
    }

    /// The session, for control calls (query, flush, enable_provider).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Stops the session and returns once every event it logged was delivered,
    /// with its final statistics. A panic of the closure is resumed here.
    pub fn stop(mut self) -> Result<Statistics> {
        self.finish()
    }

    fn finish(&mut self) -> Result<Statistics> {
        finish_delivery(&self.session, &mut self.thread, &self.canceller, &mut self.stats)
    }
}

/// Stops a live session and joins the thread delivering its events (once:
/// later calls give the statistics kept); a panic of the thread's closures
/// is resumed here. Shared by [`LiveTrace`] and the kernel trace.
pub(crate) fn finish_delivery(
    session: &Session,
    thread: &mut Option<JoinHandle<Result<()>>>,
    canceller: &Canceller,
    stats: &mut Option<Statistics>,
) -> Result<Statistics> {
    let Some(thread) = thread.take() else {
        return Ok(stats.unwrap_or_default());
    };
    let stopped = session.stop(None);
    if stopped.is_err() {
        canceller.cancel(); // the feed would not end by itself
    }
    let delivered = match thread.join() {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    let done = stopped?;
    delivered?;
    *stats = Some(done);
    Ok(done)
}

/// As [`finish_delivery`] when the owner is dropped: nothing to report to.
pub(crate) fn drop_delivery(session: &Session, thread: &mut Option<JoinHandle<Result<()>>>, canceller: &Canceller) {
    if let Some(thread) = thread.take() {
        if session.stop(None).is_err() {
            canceller.cancel();
        }
        let _ = thread.join();
    }
}

impl Drop for LiveTrace {
    fn drop(&mut self) {
        drop_delivery(&self.session, &mut self.thread, &self.canceller);
    }
}
