//! Value types: GUIDs and the flag sets of constants.h, as newtypes whose
//! constants come from the generated bindings (no crates.io bitflags).
use core::fmt;
use core::ops::{BitAnd, BitOr, BitOrAssign, Not};
use core::str::FromStr;

use openetw_sys as sys;

use crate::error::{Error, Status};

/// A GUID with the Windows layout (Data1..Data3 little-endian in blocks and files).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Guid {
    #[allow(missing_docs)]
    pub data1: u32,
    #[allow(missing_docs)]
    pub data2: u16,
    #[allow(missing_docs)]
    pub data3: u16,
    #[allow(missing_docs)]
    pub data4: [u8; 8],
}

impl Guid {
    /// The all-zero GUID.
    pub const NIL: Guid = Guid { data1: 0, data2: 0, data3: 0, data4: [0; 8] };

    /// The 16 bytes as Windows stores them.
    pub fn to_bytes_le(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&self.data1.to_le_bytes());
        b[4..6].copy_from_slice(&self.data2.to_le_bytes());
        b[6..8].copy_from_slice(&self.data3.to_le_bytes());
        b[8..].copy_from_slice(&self.data4);
        b
    }
}

impl From<sys::etw_guid> for Guid {
    fn from(g: sys::etw_guid) -> Self {
        Guid { data1: g.Data1, data2: g.Data2, data3: g.Data3, data4: g.Data4 }
    }
}

impl From<Guid> for sys::etw_guid {
    fn from(g: Guid) -> Self {
        sys::etw_guid { Data1: g.data1, Data2: g.data2, Data3: g.data3, Data4: g.data4 }
    }
}

impl fmt::Display for Guid {
    /// The registry form without braces: 6f2c1a3e-9b4d-4e21-8c7a-0123456789ab.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.data4;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
            self.data1, self.data2, self.data3, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
        )
    }
}

impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{self}}}")
    }
}

impl FromStr for Guid {
    type Err = Error;

    /// Parses "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", with or without braces.
    fn from_str(s: &str) -> Result<Self, Error> {
        let bad = || Error::new(Status::INVALID_PARAMETER, format!("{s:?} is not a GUID"));
        let inner = s.strip_prefix('{').and_then(|t| t.strip_suffix('}')).unwrap_or(s);
        let groups: Vec<&str> = inner.split('-').collect();
        let lengths = [8, 4, 4, 4, 12];
        if groups.len() != 5
            || groups.iter().zip(lengths).any(|(g, n)| g.len() != n || !g.bytes().all(|c| c.is_ascii_hexdigit()))
        {
            return Err(bad());
        }
        let hex = |t: &str| u64::from_str_radix(t, 16).map_err(|_| bad());
        let tail = format!("{}{}", groups[3], groups[4]);
        let mut data4 = [0u8; 8];
        for (i, byte) in data4.iter_mut().enumerate() {
            *byte = hex(&tail[2 * i..2 * i + 2])? as u8;
        }
        Ok(Guid { data1: hex(groups[0])? as u32, data2: hex(groups[1])? as u16, data3: hex(groups[2])? as u16, data4 })
    }
}

macro_rules! flag_set {
    ($(#[$doc:meta])* $name:ident { $($flag:ident = $value:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            $(#[allow(missing_docs)] pub const $flag: $name = $name(sys::$value);)*

            /// The raw bits.
            pub const fn bits(self) -> u32 { self.0 }
            /// True when every bit of `other` is set.
            pub const fn contains(self, other: $name) -> bool { self.0 & other.0 == other.0 }
        }

        impl BitOr for $name {
            type Output = $name;
            fn bitor(self, rhs: $name) -> $name { $name(self.0 | rhs.0) }
        }
        impl BitOrAssign for $name {
            fn bitor_assign(&mut self, rhs: $name) { self.0 |= rhs.0 }
        }
        impl BitAnd for $name {
            type Output = $name;
            fn bitand(self, rhs: $name) -> $name { $name(self.0 & rhs.0) }
        }
        impl Not for $name {
            type Output = $name;
            fn not(self) -> $name { $name(!self.0) }
        }
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:#x})"), self.0)
            }
        }
    };
}

flag_set! {
    /// EVENT_TRACE_PROPERTIES.LogFileMode ("Logging Mode Constants").
    LogFileMode {
        NONE = ETW_FILE_MODE_NONE,
        SEQUENTIAL = ETW_FILE_MODE_SEQUENTIAL,
        CIRCULAR = ETW_FILE_MODE_CIRCULAR,
        APPEND = ETW_FILE_MODE_APPEND,
        NEWFILE = ETW_FILE_MODE_NEWFILE,
        PREALLOCATE = ETW_FILE_MODE_PREALLOCATE,
        NONSTOPPABLE = ETW_NONSTOPPABLE_MODE,
        SECURE = ETW_SECURE_MODE,
        REAL_TIME = ETW_REAL_TIME_MODE,
        DELAY_OPEN_FILE = ETW_DELAY_OPEN_FILE_MODE,
        BUFFERING = ETW_BUFFERING_MODE,
        PRIVATE_LOGGER = ETW_PRIVATE_LOGGER_MODE,
        ADD_HEADER = ETW_ADD_HEADER_MODE,
        USE_KBYTES_FOR_SIZE = ETW_USE_KBYTES_FOR_SIZE,
        USE_GLOBAL_SEQUENCE = ETW_USE_GLOBAL_SEQUENCE,
        USE_LOCAL_SEQUENCE = ETW_USE_LOCAL_SEQUENCE,
        RELOG = ETW_RELOG_MODE,
        PRIVATE_IN_PROC = ETW_PRIVATE_IN_PROC,
        RESERVED = ETW_MODE_RESERVED,
        STOP_ON_HYBRID_SHUTDOWN = ETW_STOP_ON_HYBRID_SHUTDOWN,
        PERSIST_ON_HYBRID_SHUTDOWN = ETW_PERSIST_ON_HYBRID_SHUTDOWN,
        USE_PAGED_MEMORY = ETW_USE_PAGED_MEMORY,
        SYSTEM_LOGGER = ETW_SYSTEM_LOGGER_MODE,
        COMPRESSED = ETW_COMPRESSED_MODE,
        INDEPENDENT_SESSION = ETW_INDEPENDENT_SESSION_MODE,
        NO_PER_PROCESSOR_BUFFERING = ETW_NO_PER_PROCESSOR_BUFFERING,
        ADDTO_TRIAGE_DUMP = ETW_ADDTO_TRIAGE_DUMP,
    }
}

flag_set! {
    /// EnableFlags of the system (kernel) logger.
    KernelFlags {
        PROCESS = ETW_FLAG_PROCESS,
        THREAD = ETW_FLAG_THREAD,
        IMAGE_LOAD = ETW_FLAG_IMAGE_LOAD,
        PROCESS_COUNTERS = ETW_FLAG_PROCESS_COUNTERS,
        CSWITCH = ETW_FLAG_CSWITCH,
        DPC = ETW_FLAG_DPC,
        INTERRUPT = ETW_FLAG_INTERRUPT,
        SYSTEMCALL = ETW_FLAG_SYSTEMCALL,
        DISK_IO = ETW_FLAG_DISK_IO,
        DISK_FILE_IO = ETW_FLAG_DISK_FILE_IO,
        DISK_IO_INIT = ETW_FLAG_DISK_IO_INIT,
        DISPATCHER = ETW_FLAG_DISPATCHER,
        MEMORY_PAGE_FAULTS = ETW_FLAG_MEMORY_PAGE_FAULTS,
        MEMORY_HARD_FAULTS = ETW_FLAG_MEMORY_HARD_FAULTS,
        VIRTUAL_ALLOC = ETW_FLAG_VIRTUAL_ALLOC,
        VAMAP = ETW_FLAG_VAMAP,
        NETWORK_TCPIP = ETW_FLAG_NETWORK_TCPIP,
        REGISTRY = ETW_FLAG_REGISTRY,
        DBGPRINT = ETW_FLAG_DBGPRINT,
        JOB = ETW_FLAG_JOB,
        ALPC = ETW_FLAG_ALPC,
        SPLIT_IO = ETW_FLAG_SPLIT_IO,
        DEBUG_EVENTS = ETW_FLAG_DEBUG_EVENTS,
        DRIVER = ETW_FLAG_DRIVER,
        PROFILE = ETW_FLAG_PROFILE,
        FILE_IO = ETW_FLAG_FILE_IO,
        FILE_IO_INIT = ETW_FLAG_FILE_IO_INIT,
        NO_SYSCONFIG = ETW_FLAG_NO_SYSCONFIG,
        ENABLE_RESERVE = ETW_FLAG_ENABLE_RESERVE,
        FORWARD_WMI = ETW_FLAG_FORWARD_WMI,
        EXTENSION = ETW_FLAG_EXTENSION,
    }
}

impl FromStr for KernelFlags {
    type Err = Error;

    /// Parses flag names joined by ',', '+' or '|' ("process,thread"): short
    /// names, EVENT_TRACE_FLAG_* names, xperf groups ("PROC_THREAD"), or one
    /// number (etw_enable_flags_parse). [`Status::INVALID_PARAMETER`] names an
    /// unknown flag.
    fn from_str(s: &str) -> Result<Self, Error> {
        let text = crate::session::c_string(s, "kernel flags")?;
        let mut mask = 0u32;
        crate::error::check(unsafe { sys::etw_enable_flags_parse(&mut mask, text.as_ptr()) })?;
        Ok(KernelFlags(mask))
    }
}

flag_set! {
    /// Rights over a system-wide session (`ETW_SESSION_RIGHT_*`), set by
    /// [`Session::grant`](crate::Session::grant).
    SessionRights {
        CONTROL = ETW_SESSION_RIGHT_CONTROL,
        LOG = ETW_SESSION_RIGHT_LOG,
        CONSUME = ETW_SESSION_RIGHT_CONSUME,
        ALL = ETW_SESSION_RIGHT_ALL,
    }
}

impl SessionRights {
    /// No right: granting it revokes the user's rights.
    pub const NONE: SessionRights = SessionRights(0);
}

/// Wnode.ClientContext: the clock that timestamps events. A newtype, not an
/// enum, so an imported block's value is always representable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ClockType(pub u32);

impl ClockType {
    /// Same as QPC.
    pub const DEFAULT: ClockType = ClockType(sys::ETW_CLOCK_DEFAULT);
    /// Monotonic high-resolution counter (the default).
    pub const QPC: ClockType = ClockType(sys::ETW_CLOCK_QPC);
    /// FILETIME: 100 ns units since 1601.
    pub const SYSTEM_TIME: ClockType = ClockType(sys::ETW_CLOCK_SYSTEM_TIME);
    /// CPU cycle counter.
    pub const CPU_CYCLE: ClockType = ClockType(sys::ETW_CLOCK_CPU_CYCLE);
}

/// Trace levels (EVENT_TRACE_HEADER.Class.Level, TRACE_LEVEL_*).
pub mod level {
    use openetw_sys as sys;
    /// 0: every level (as a session's filter), or an unleveled event.
    pub const NONE: u8 = sys::ETW_LEVEL_NONE as u8;
    #[allow(missing_docs)]
    pub const CRITICAL: u8 = sys::ETW_LEVEL_CRITICAL as u8;
    #[allow(missing_docs)]
    pub const ERROR: u8 = sys::ETW_LEVEL_ERROR as u8;
    #[allow(missing_docs)]
    pub const WARNING: u8 = sys::ETW_LEVEL_WARNING as u8;
    #[allow(missing_docs)]
    pub const INFORMATION: u8 = sys::ETW_LEVEL_INFORMATION as u8;
    #[allow(missing_docs)]
    pub const VERBOSE: u8 = sys::ETW_LEVEL_VERBOSE as u8;
}
