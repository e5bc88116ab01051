//! Filters at the source and enable properties (filter.h): what
//! `EnableTraceEx2` takes in ENABLE_TRACE_PARAMETERS, as owned values.
//!
//! ```no_run
//! use openetw::{EnableOptions, EnableProperty, Filter, Guid, Properties, Session};
//! let guid: Guid = "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab".parse()?;
//! let session = Session::start(&mut Properties::new("Filtered")?)?;
//! let opts = EnableOptions::new()
//!     .properties(EnableProperty::STACK_TRACE | EnableProperty::SID)
//!     .filter(Filter::event_ids(true, &[3, 5]))
//!     .filter(Filter::pid(&[std::process::id()]));
//! session.enable_provider_ex(&guid, 5, 0, 0, &opts)?;
//! # Ok::<(), openetw::Error>(())
//! ```
use core::fmt;
use core::ops::{BitAnd, BitOr, BitOrAssign, Not};

use openetw_sys as sys;

use crate::types::Guid;

/// ENABLE_TRACE_PARAMETERS.EnableProperty (`EVENT_ENABLE_PROPERTY_*`): the
/// extended data items a session asks of a provider's EVENT_HEADER events
/// (read back with [`extended_item_stack`](crate::extended_item_stack) and
/// [`extended_item_sid`](crate::extended_item_sid)).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EnableProperty(pub u32);

impl EnableProperty {
    /// No property.
    pub const NONE: EnableProperty = EnableProperty(0);
    /// The writer's user as a SID item (S-1-22-1-uid on POSIX).
    pub const SID: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_SID);
    /// The writer's terminal session id.
    pub const TS_ID: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_TS_ID);
    /// The writing thread's stack.
    pub const STACK_TRACE: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE);
    /// PSM key (accepted).
    pub const PSM_KEY: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_PSM_KEY);
    /// Events of keyword 0 are not written to the session.
    pub const IGNORE_KEYWORD_0: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0);
    /// The GUID is a provider group's.
    pub const PROVIDER_GROUP: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_PROVIDER_GROUP);
    /// Keyword 0 events go to the session even with keywords set.
    pub const ENABLE_KEYWORD_0: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0);
    /// A key unique to the writing process within the boot.
    pub const PROCESS_START_KEY: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_PROCESS_START_KEY);
    /// A key unique to the event within the writing process.
    pub const EVENT_KEY: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY);
    /// Excludes InPrivate processes (accepted).
    pub const EXCLUDE_INPRIVATE: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE);
    /// Enables silos (accepted).
    pub const ENABLE_SILOS: EnableProperty = EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_ENABLE_SILOS);
    /// Source container tracking (accepted).
    pub const SOURCE_CONTAINER_TRACKING: EnableProperty =
        EnableProperty(sys::ETW_EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING);

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }
    /// True when every bit of `other` is set.
    pub const fn contains(self, other: EnableProperty) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for EnableProperty {
    type Output = EnableProperty;
    fn bitor(self, rhs: EnableProperty) -> EnableProperty {
        EnableProperty(self.0 | rhs.0)
    }
}
impl BitOrAssign for EnableProperty {
    fn bitor_assign(&mut self, rhs: EnableProperty) {
        self.0 |= rhs.0
    }
}
impl BitAnd for EnableProperty {
    type Output = EnableProperty;
    fn bitand(self, rhs: EnableProperty) -> EnableProperty {
        EnableProperty(self.0 & rhs.0)
    }
}
impl Not for EnableProperty {
    type Output = EnableProperty;
    fn not(self) -> EnableProperty {
        EnableProperty(!self.0)
    }
}
impl fmt::Debug for EnableProperty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EnableProperty({:#x})", self.0)
    }
}

/// One filter at the source (EVENT_FILTER_DESCRIPTOR and its payload, owned).
///
/// The constructors only encode what they are given: the library checks a
/// filter when the enable call is made, so an empty id list, more than 8
/// pids or two filters of one type come back from
/// [`Session::enable_provider_ex`](crate::Session::enable_provider_ex) as an
/// [`Error`](crate::Error) with the library's status
/// ([`Status::INVALID_PARAMETER`](crate::Status::INVALID_PARAMETER), or
/// `NOT_SUPPORTED` for a type OpenETW does not implement) and its message.
/// docs/FILTERS.md says what each type does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    filter_type: u32,
    payload: Vec<u8>,
}

// EVENT_FILTER_EVENT_ID: FilterIn, Reserved, Count, the ids (also STACKWALK's).
fn event_id_payload(include: bool, ids: &[u16]) -> Vec<u8> {
    let mut p = Vec::with_capacity(4 + 2 * ids.len());
    p.push(include as u8);
    p.push(0);
    // A count that does not fit makes Size and Count disagree: the library says so.
    p.extend_from_slice(&(ids.len().min(u16::MAX as usize) as u16).to_le_bytes());
    for id in ids {
        p.extend_from_slice(&id.to_le_bytes());
    }
    p
}

impl Filter {
    /// EVENT_ID: only these event ids are written (`include`) or all but these.
    pub fn event_ids(include: bool, ids: &[u16]) -> Filter {
        Filter { filter_type: sys::ETW_EVENT_FILTER_TYPE_EVENT_ID, payload: event_id_payload(include, ids) }
    }

    /// STACKWALK: with [`EnableProperty::STACK_TRACE`], only these ids carry
    /// stacks (`include`) or all but these.
    pub fn stackwalk(include: bool, ids: &[u16]) -> Filter {
        Filter { filter_type: sys::ETW_EVENT_FILTER_TYPE_STACKWALK, payload: event_id_payload(include, ids) }
    }

    /// PID: only these processes are enabled (at most 8, MAX_EVENT_FILTER_PID_COUNT).
    pub fn pid(pids: &[u32]) -> Filter {
        let payload = pids.iter().flat_map(|p| p.to_le_bytes()).collect();
        Filter { filter_type: sys::ETW_EVENT_FILTER_TYPE_PID, payload }
    }

    /// EXECUTABLE_NAME: only processes whose executable is named in `names`
    /// (Windows' form: names joined by ';', compared without case).
    pub fn executable_name(names: &str) -> Filter {
        let payload = names.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect();
        Filter { filter_type: sys::ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME, payload }
    }

    /// EVENT_NAME: TraceLogging events named in `names` are written
    /// (`include`) or all but these; every level and keyword.
    pub fn event_names(include: bool, names: &[&str]) -> Filter {
        Self::event_names_at(include, names, 0, 0, 0)
    }

    /// EVENT_NAME applying only to events of level up to `level` (0: every
    /// level) and keywords matching `match_any` / `match_all`; other events
    /// pass as the session's level and keywords decide.
    pub fn event_names_at(include: bool, names: &[&str], level: u8, match_any: u64, match_all: u64) -> Filter {
        let mut p = Vec::with_capacity(20 + names.iter().map(|n| n.len() + 1).sum::<usize>());
        p.extend_from_slice(&match_any.to_le_bytes());
        p.extend_from_slice(&match_all.to_le_bytes());
        p.push(level);
        p.push(include as u8);
        p.extend_from_slice(&(names.len().min(u16::MAX as usize) as u16).to_le_bytes());
        for name in names {
            p.extend_from_slice(name.as_bytes());
            p.push(0);
        }
        Filter { filter_type: sys::ETW_EVENT_FILTER_TYPE_EVENT_NAME, payload: p }
    }

    /// Any type (`ETW_EVENT_FILTER_TYPE_*`) with its payload bytes: a PAYLOAD
    /// filter built by hand, or a type with no constructor here.
    pub fn raw(filter_type: u32, payload: &[u8]) -> Filter {
        Filter { filter_type, payload: payload.to_vec() }
    }

    /// EVENT_FILTER_DESCRIPTOR.Type.
    pub fn filter_type(&self) -> u32 {
        self.filter_type
    }

    /// The payload bytes EVENT_FILTER_DESCRIPTOR.Ptr points to.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The descriptor, pointing into `self`: valid while `self` is borrowed.
    pub(crate) fn descriptor(&self) -> sys::etw_event_filter_descriptor {
        sys::etw_event_filter_descriptor {
            // An empty payload goes as NULL with Size 0: the library names it.
            Ptr: if self.payload.is_empty() { 0 } else { self.payload.as_ptr() as usize as u64 },
            Size: self.payload.len().min(u32::MAX as usize) as u32,
            Type: self.filter_type,
        }
    }
}

/// Descriptors for `filters`, borrowing them: the C call must be made while
/// `filters` is still borrowed (the library copies them before returning).
pub(crate) fn descriptors(filters: &[Filter]) -> Vec<sys::etw_event_filter_descriptor> {
    filters.iter().map(Filter::descriptor).collect()
}

/// The enable parameters of [`Session::enable_provider_ex`](crate::Session::enable_provider_ex)
/// (ENABLE_TRACE_PARAMETERS beyond level and keywords): properties and filters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnableOptions {
    properties: EnableProperty,
    filters: Vec<Filter>,
    source_id: Guid,
}

impl EnableOptions {
    /// No property, no filter.
    pub fn new() -> EnableOptions {
        EnableOptions::default()
    }

    /// Sets the properties (replacing earlier ones).
    pub fn properties(mut self, properties: EnableProperty) -> EnableOptions {
        self.properties = properties;
        self
    }

    /// Adds a filter (at most 13, one of each type).
    pub fn filter(mut self, filter: Filter) -> EnableOptions {
        self.filters.push(filter);
        self
    }

    /// ENABLE_TRACE_PARAMETERS.SourceId: accepted, not used.
    pub fn source_id(mut self, source_id: Guid) -> EnableOptions {
        self.source_id = source_id;
        self
    }

    /// The properties set.
    pub fn enable_properties(&self) -> EnableProperty {
        self.properties
    }

    /// The filters, in the order given.
    pub fn filters(&self) -> &[Filter] {
        &self.filters
    }

    /// The parameters, pointing into `descriptors` (from [`descriptors`] of
    /// this object's filters): valid while both are borrowed.
    pub(crate) fn to_sys(
        &self,
        level: u8,
        any: u64,
        all: u64,
        descriptors: &[sys::etw_event_filter_descriptor],
    ) -> sys::etw_enable_parameters {
        sys::etw_enable_parameters {
            struct_size: core::mem::size_of::<sys::etw_enable_parameters>() as u32,
            enable_property: self.properties.bits(),
            match_any_keyword: any,
            match_all_keyword: all,
            level,
            reserved: [0; 3],
            filter_count: descriptors.len().min(u32::MAX as usize) as u32,
            source_id: self.source_id.into(),
            filters: if descriptors.is_empty() { core::ptr::null() } else { descriptors.as_ptr() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_are_windows_layouts() {
        assert_eq!(Filter::event_ids(true, &[3, 5]).payload(), [1, 0, 2, 0, 3, 0, 5, 0]);
        assert_eq!(Filter::stackwalk(false, &[10000]).payload(), [0, 0, 1, 0, 0x10, 0x27]);
        assert_eq!(Filter::pid(&[7, 256]).payload(), [7, 0, 0, 0, 0, 1, 0, 0]);
        assert_eq!(Filter::executable_name("a;b").payload(), [b'a', 0, b';', 0, b'b', 0, 0, 0]);
        let names = Filter::event_names_at(true, &["K", "L"], 3, 0x10, 0);
        assert_eq!(names.payload().len(), 24);
        assert_eq!(&names.payload()[..8], &0x10u64.to_le_bytes());
        assert_eq!(&names.payload()[16..], [3, 1, 2, 0, b'K', 0, b'L', 0]);
        assert_eq!(Filter::event_ids(true, &[3]).filter_type(), 0x8000_0200);
        assert_eq!(Filter::pid(&[]).descriptor().Ptr, 0);
    }

    #[test]
    fn options_reach_the_c_struct() {
        let opts = EnableOptions::new()
            .properties(EnableProperty::STACK_TRACE | EnableProperty::SID)
            .filter(Filter::event_ids(true, &[3]))
            .filter(Filter::pid(&[1]));
        let d = descriptors(opts.filters());
        let p = opts.to_sys(4, 0x30, 0x10, &d);
        assert_eq!((p.enable_property, p.level, p.match_any_keyword, p.match_all_keyword), (0x5, 4, 0x30, 0x10));
        assert_eq!(p.filter_count, 2);
        assert_eq!(p.filters, d.as_ptr());
        assert_eq!(d[0].Ptr, opts.filters()[0].payload().as_ptr() as usize as u64);
        assert!(EnableOptions::new().to_sys(0, 0, 0, &[]).filters.is_null());
    }
}
