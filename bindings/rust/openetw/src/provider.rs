//! Event providers (provider.h): RegisterTraceGuids / EventRegister, enable
//! notifications, TraceEvent, EventWrite (events that keep their
//! descriptor), activity ids.
use core::ffi::c_void;
use core::ptr::{self, NonNull};

use openetw_sys as sys;

use crate::callbacks::{catch, free_box, park_enable_panic, resume_enable_panic};
use crate::error::{check, check_quiet, Error, Result, Status};
use crate::types::Guid;

/// What an enable callback receives: the provider's state after the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnableInfo {
    /// True while any session enables the provider.
    pub is_enabled: bool,
    /// Highest level any session takes; 0 = every level.
    pub level: u8,
    /// OR of the sessions' flags (all bits when one gave 0).
    pub match_any_keyword: u64,
    /// AND of the sessions' match-all keywords.
    pub match_all_keyword: u64,
    /// The session whose change caused the call (0 at registration).
    pub session_handle: u64,
    /// A capture-state request (is_enabled 2 in C): log your state; the level
    /// and keywords are the request's, the enablement is unchanged.
    pub capture_state: bool,
}

impl EnableInfo {
    fn from_sys(info: &sys::etw_provider_enable_info) -> Self {
        EnableInfo {
            is_enabled: info.is_enabled != 0,
            level: info.level as u8,
            match_any_keyword: info.match_any_keyword,
            match_all_keyword: info.match_all_keyword,
            session_handle: info.session_handle,
            capture_state: info.is_enabled == sys::ETW_CONTROL_CODE_CAPTURE_STATE,
        }
    }
}

/// The class of a classic event: EVENT_TRACE_HEADER's Guid and Class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventClass {
    /// The class GUID (often the provider's GUID).
    pub guid: Guid,
    /// Class.Type, the opcode: ETW_TYPE_* or a user type from 10.
    pub event_type: u8,
    /// Class.Level: ETW_LEVEL_*; sessions filter on it.
    pub level: u8,
    /// Class.Version.
    pub version: u16,
}

impl EventClass {
    /// A class with this GUID, type 0, level 0, version 0.
    pub fn new(guid: Guid) -> Self {
        EventClass { guid, ..Default::default() }
    }
}

/// What an EVENT_HEADER event is: EVENT_DESCRIPTOR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventDescriptor {
    /// The event's id (a manifest's event value).
    pub id: u16,
    /// The event's version.
    pub version: u8,
    /// The channel (a manifest's, or 0).
    pub channel: u8,
    /// ETW_LEVEL_*: sessions take levels up to their own (0: always).
    pub level: u8,
    /// The opcode: ETW_TYPE_* (INFO, START, END...) or a user opcode.
    pub opcode: u8,
    /// The task.
    pub task: u16,
    /// Sessions take it by their MatchAnyKeyword / MatchAllKeyword (0: always).
    pub keyword: u64,
}

/// Optional activity ids of an event (EventWriteTransfer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Activity {
    /// The event's ActivityId; None: the thread's (see [`activity_id_control`]).
    pub id: Option<Guid>,
    /// Stored as a RELATED_ACTIVITYID extended data item.
    pub related: Option<Guid>,
}

/// EventActivityIdControl codes (ETW_ACTIVITY_CTRL_*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivityControl {
    /// Returns the thread's id.
    Get,
    /// Sets the thread's id; returns it.
    Set(Guid),
    /// Returns a new unique id (the thread's unchanged).
    Create,
    /// Sets the thread's id; returns the old one.
    GetSet(Guid),
    /// Sets a new unique id as the thread's; returns the old one.
    CreateSet,
}

/// The calling thread's activity id, as EventActivityIdControl: the id the
/// events it writes without one carry. A thread starts with the zero GUID.
pub fn activity_id_control(control: ActivityControl) -> Guid {
    let (code, given) = match control {
        ActivityControl::Get => (sys::ETW_ACTIVITY_CTRL_GET_ID, Guid::default()),
        ActivityControl::Set(g) => (sys::ETW_ACTIVITY_CTRL_SET_ID, g),
        ActivityControl::Create => (sys::ETW_ACTIVITY_CTRL_CREATE_ID, Guid::default()),
        ActivityControl::GetSet(g) => (sys::ETW_ACTIVITY_CTRL_GET_SET_ID, g),
        ActivityControl::CreateSet => (sys::ETW_ACTIVITY_CTRL_CREATE_SET_ID, Guid::default()),
    };
    let mut id: sys::etw_guid = given.into();
    // Every code here is a valid one and id is not NULL: ETW_OK.
    let status = unsafe { sys::etw_activity_id_control(code, &mut id) };
    debug_assert_eq!(status, sys::ETW_OK);
    id.into()
}

// The closure an enable callback runs. `Fn + Sync`: provider.h lets sessions
// enable a provider from any thread, so notifications may overlap, and a
// callback may call back into the library (re-entering itself).
type EnableFn = dyn Fn(&EnableInfo) + Send + Sync + 'static;

unsafe extern "C" fn enable_trampoline(info: *const sys::etw_provider_enable_info, user_data: *mut c_void) {
    // Safety: user_data is the Box<Box<EnableFn>> given to register, freed
    // only by unregister, after which no callback runs; info is valid now.
    let callback = unsafe { &*(user_data as *const Box<EnableFn>) };
    let info = EnableInfo::from_sys(unsafe { &*info });
    if let Err(payload) = catch(|| callback(&info)) {
        park_enable_panic(payload);
    }
}

unsafe extern "C" fn enable_free(user_data: *mut c_void) {
    unsafe { free_box(user_data as *mut Box<EnableFn>) }
}

/// A registered provider: checks cheaply whether it is enabled and writes
/// classic events to every session that enables its GUID. Dropping it
/// unregisters it (and drops its enable callback, exactly once).
///
/// Enable callbacks run on the thread whose call enables or disables the
/// provider (`Session::enable_provider`, `disable_provider`, `stop`, `start`
/// of a private session) or on the registering thread; never on a hidden
/// thread. A panic in one is caught (it never unwinds into C) and resumed
/// from that call when it returns to Rust. When the enabling call was made
/// through the raw `sys` API, the panic is resumed by the next of those safe
/// calls on the same thread.
pub struct Provider {
    raw: NonNull<sys::etw_provider>,
    guid: Guid,
    // The library's enabled word, fetched once: read inline by enabled_hint.
    enabled: *const u32,
}

// provider.h: "etw_provider_trace_event and etw_provider_is_enabled may be
// called from any number of threads at once" (both take &self here);
// "etw_provider_unregister must not run concurrently with other calls on the
// same provider" (it runs in Drop, which has the provider to itself).
unsafe impl Send for Provider {}
unsafe impl Sync for Provider {}

impl Provider {
    /// Registers a provider for `guid` without an enable callback.
    pub fn register(guid: Guid) -> Result<Provider> {
        Self::register_raw(guid, None, ptr::null_mut())
    }

    /// Registers a provider for `guid`; `callback` is told of every enable
    /// and disable (and at once if a session already enables the GUID).
    pub fn register_with_callback<F>(guid: Guid, callback: F) -> Result<Provider>
    where
        F: Fn(&EnableInfo) + Send + Sync + 'static,
    {
        let boxed: Box<Box<EnableFn>> = Box::new(Box::new(callback));
        Self::register_raw(guid, Some(enable_trampoline), Box::into_raw(boxed).cast())
    }

    fn register_raw(guid: Guid, callback: sys::etw_provider_enable_callback, user_data: *mut c_void) -> Result<Provider> {
        let c_guid: sys::etw_guid = guid.into();
        let mut raw = ptr::null_mut();
        let free: sys::etw_user_data_free = if user_data.is_null() { None } else { Some(enable_free) };
        let status = unsafe { sys::etw_provider_register(&mut raw, &c_guid, callback, user_data, free) };
        if let Err(e) = check(status) {
            // "On failure it does not [own user_data]": free the closure here.
            if !user_data.is_null() {
                unsafe { enable_free(user_data) };
            }
            return Err(e);
        }
        let raw = NonNull::new(raw).expect("libopenetw returned success and NULL");
        // provider.h: the word stays valid until unregister, which only Drop does.
        let enabled = unsafe { sys::etw_provider_enabled_word(raw.as_ptr()) };
        let provider = Provider { raw, guid, enabled };
        // The callback may have run (and panicked) already; unwinding drops
        // `provider`, which unregisters it.
        resume_enable_panic();
        Ok(provider)
    }

    /// The GUID this provider registered.
    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// The raw registration, for calls this crate does not wrap.
    pub fn as_raw(&self) -> *mut sys::etw_provider {
        self.raw.as_ptr()
    }

    /// True if some session enables the provider for `level` (0 = any) and,
    /// when `flags` is not 0, for one of these flags. Lock-free.
    pub fn is_enabled(&self, level: u8, flags: u64) -> bool {
        unsafe { sys::etw_provider_is_enabled(self.raw.as_ptr(), level, flags) != 0 }
    }

    /// True while some session enables the provider: one volatile load of the
    /// provider's enabled word and no call into the library, so a caller can
    /// skip building an event cheaply (a hint that may be a moment late;
    /// `write` checks again, `is_enabled` also filters by level and flags).
    #[inline]
    pub fn enabled_hint(&self) -> bool {
        unsafe { std::ptr::read_volatile(self.enabled) != 0 }
    }

    /// Writes a classic event (TraceEvent) of `class` with `payload` to every
    /// session that enables the provider. Ok also when none does. Does not
    /// allocate but on error (which carries the status's description: the
    /// hot path leaves no message). Header and payload above 0xFFFF bytes are
    /// refused with INVALID_PARAMETER even when no session listens.
    pub fn write(&self, class: &EventClass, payload: &[u8]) -> Result<()> {
        self.write_parts(class, &[payload])
    }

    /// As [`write`](Self::write), with the payload gathered from up to
    /// ETW_MAX_MOF_FIELDS (16) pieces (MOF_FIELD entries).
    pub fn write_parts(&self, class: &EventClass, parts: &[&[u8]]) -> Result<()> {
        const MAX: usize = sys::ETW_MAX_MOF_FIELDS as usize;
        const HEADER: usize = core::mem::size_of::<sys::etw_event_trace_header>();
        #[repr(C)]
        struct Gathered {
            header: sys::etw_event_trace_header,
            fields: [sys::etw_mof_field; MAX],
        }
        if parts.len() > MAX {
            return Err(Error::new(Status::INVALID_PARAMETER, format!("a payload has at most {MAX} parts")));
        }
        // EVENT_TRACE_HEADER.Size is 16 bits: such an event can never be
        // written, so it is refused here, even when no session listens, and
        // before the library would see it as too big for a buffer.
        let total = parts.iter().fold(HEADER, |sum, p| sum.saturating_add(p.len()));
        if total > sys::ETW_MAX_EVENT_SIZE as usize {
            return Err(Error::new(
                Status::INVALID_PARAMETER,
                format!("header and payload ({total} bytes) exceed the 16-bit Size ({})", sys::ETW_MAX_EVENT_SIZE),
            ));
        }
        let empty = sys::etw_mof_field { DataPtr: 0, Length: 0, DataType: 0 };
        let mut event = Gathered {
            header: sys::etw_event_trace_header {
                Size: 0,
                HeaderType: 0,
                MarkerFlags: 0,
                Class: sys::etw_event_class { Type: class.event_type, Level: class.level, Version: class.version },
                ThreadId: 0,
                ProcessId: 0,
                TimeStamp: 0,
                Guid: class.guid.into(),
                ClientContext: 0,
                Flags: sys::ETW_WNODE_FLAG_TRACED_GUID,
            },
            fields: [empty; MAX],
        };
        // Empty pieces are left out: the library refuses a NULL DataPtr, and
        // an empty slice's pointer says nothing.
        let mut count = 0;
        for part in parts.iter().filter(|p| !p.is_empty()) {
            event.fields[count] =
                sys::etw_mof_field { DataPtr: part.as_ptr() as usize as u64, Length: part.len() as u32, DataType: 0 };
            count += 1;
        }
        event.header.Size = (HEADER + count * core::mem::size_of::<sys::etw_mof_field>()) as u16;
        if count > 0 {
            event.header.Flags |= sys::ETW_WNODE_FLAG_USE_MOF_PTR;
        }
        // The header and the MOF array are one block, as TraceEvent reads them:
        // the pointer comes from the whole block, not from the header alone.
        let header = (&mut event as *mut Gathered).cast::<sys::etw_event_trace_header>();
        check_quiet(unsafe { sys::etw_provider_trace_event(self.raw.as_ptr(), header) })
    }

    /// Writes an event that keeps its descriptor (EventWrite /
    /// EventWriteTransfer): an EVENT_HEADER record with `descriptor`, the
    /// activity ids of `activity`, and the `parts` concatenated as its user
    /// data (up to ETW_MAX_EVENT_DATA_DESCRIPTORS pieces, not copied). Each
    /// session takes it by its own level and keywords. Ok also when none
    /// does. ARITHMETIC_OVERFLOW above 0xFFFF bytes in all, MORE_DATA when
    /// a session's buffers are too small, NOT_ENOUGH_MEMORY /
    /// LOG_FILE_FULL when a session dropped it.
    pub fn write_event(&self, descriptor: &EventDescriptor, activity: &Activity, parts: &[&[u8]]) -> Result<()> {
        const MAX: usize = sys::ETW_MAX_EVENT_DATA_DESCRIPTORS as usize;
        if parts.len() > MAX {
            return Err(Error::new(Status::INVALID_PARAMETER, format!("an event has at most {MAX} parts")));
        }
        let empty = sys::etw_event_data_descriptor { Ptr: 0, Size: 0, Reserved: 0 };
        let mut data = [empty; MAX];
        let mut count = 0;
        for part in parts.iter().filter(|p| !p.is_empty()) {
            let size = u32::try_from(part.len()).unwrap_or(u32::MAX);
            data[count] = sys::etw_event_data_descriptor { Ptr: part.as_ptr() as usize as u64, Size: size, Reserved: 0 };
            count += 1;
        }
        let d = sys::etw_event_descriptor {
            Id: descriptor.id,
            Version: descriptor.version,
            Channel: descriptor.channel,
            Level: descriptor.level,
            Opcode: descriptor.opcode,
            Task: descriptor.task,
            Keyword: descriptor.keyword,
        };
        let id = activity.id.map(sys::etw_guid::from);
        let related = activity.related.map(sys::etw_guid::from);
        let ptr = |g: &Option<sys::etw_guid>| g.as_ref().map_or(ptr::null(), |g| g as *const sys::etw_guid);
        check_quiet(unsafe {
            sys::etw_provider_write_event(
                self.raw.as_ptr(),
                &d,
                0,
                ptr(&id),
                ptr(&related),
                count as u32,
                data.as_ptr(),
            )
        })
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        // No callback runs after this returns, and the closure has been freed.
        unsafe { sys::etw_provider_unregister(self.raw.as_ptr()) }
    }
}

impl core::fmt::Debug for Provider {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Provider").field("guid", &self.guid).finish()
    }
}
