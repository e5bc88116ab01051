//! Borrowed views of what a consumer's callbacks receive (consumer.h). The
//! library owns the data only until the callback returns, so every view
//! borrows for the callback's duration: copy what you keep.
use core::slice;
use std::ffi::CStr;

use openetw_sys as sys;

use crate::error::{check, Result, Status};
use crate::types::Guid;

/// A record's header kind (`etw_record.kind`, ETW_RECORD_KIND_*).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecordKind(pub u32);

impl RecordKind {
    /// SYSTEM_TRACE_HEADER.
    pub const SYSTEM: RecordKind = RecordKind(sys::ETW_RECORD_KIND_SYSTEM);
    /// Compact SYSTEM_TRACE_HEADER.
    pub const COMPACT: RecordKind = RecordKind(sys::ETW_RECORD_KIND_COMPACT);
    /// PERFINFO_TRACE_HEADER.
    pub const PERFINFO: RecordKind = RecordKind(sys::ETW_RECORD_KIND_PERFINFO);
    /// EVENT_TRACE_HEADER (classic TraceEvent).
    pub const FULL: RecordKind = RecordKind(sys::ETW_RECORD_KIND_FULL);
    /// EVENT_INSTANCE_GUID_HEADER.
    pub const INSTANCE: RecordKind = RecordKind(sys::ETW_RECORD_KIND_INSTANCE);
    /// EVENT_HEADER (manifest, TraceLogging).
    pub const EVENT: RecordKind = RecordKind(sys::ETW_RECORD_KIND_EVENT);
    /// MESSAGE_TRACE_HEADER (WPP).
    pub const MESSAGE: RecordKind = RecordKind(sys::ETW_RECORD_KIND_MESSAGE);
    /// TRACE_HEADER_TYPE_ERROR: raw bytes only.
    pub const ERROR: RecordKind = RecordKind(sys::ETW_RECORD_KIND_ERROR);

    /// The canonical name ("full", "event", ...; "unknown" otherwise).
    pub fn name(self) -> &'static str {
        let text = unsafe { CStr::from_ptr(sys::etw_record_kind_name(self.0)) };
        text.to_str().unwrap_or("unknown")
    }
}

impl core::fmt::Debug for RecordKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

// A borrowed C array; NULL (with length 0) is the empty slice.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        unsafe { slice::from_raw_parts(ptr, len) }
    }
}

/// One record of any kind, borrowed for the callback (`etw_record`).
/// Members a kind does not carry are 0; [`present`](Self::present) says which
/// optional members hold data. [`raw`](Self::raw) gives every member.
#[derive(Clone, Copy)]
pub struct Record<'a> {
    raw: &'a sys::etw_record,
}

impl<'a> Record<'a> {
    /// Safety: `raw` is a record the library passed to a callback, borrowed for 'a.
    pub(crate) unsafe fn new(raw: &'a sys::etw_record) -> Self {
        Record { raw }
    }

    /// Every decoded member, as the C struct holds it (pointers borrowed like `self`).
    pub fn raw(&self) -> &'a sys::etw_record {
        self.raw
    }
    /// The header kind.
    pub fn kind(&self) -> RecordKind {
        RecordKind(self.raw.kind)
    }
    /// ETW_RECORD_HAS_* bits.
    pub fn present(&self) -> u32 {
        self.raw.present
    }
    /// Class GUID, ProviderId or message GUID.
    pub fn guid(&self) -> Guid {
        self.raw.guid.into()
    }
    /// EVENT_DESCRIPTOR.Opcode or Class.Type.
    pub fn opcode(&self) -> u8 {
        self.raw.opcode
    }
    /// The level.
    pub fn level(&self) -> u8 {
        self.raw.level
    }
    /// EVENT_DESCRIPTOR.Version or Class.Version.
    pub fn version(&self) -> u16 {
        self.raw.version
    }
    /// EVENT_DESCRIPTOR.Id.
    pub fn event_id(&self) -> u16 {
        self.raw.event_id
    }
    /// The writing thread.
    pub fn thread_id(&self) -> u32 {
        self.raw.thread_id
    }
    /// The writing process.
    pub fn process_id(&self) -> u32 {
        self.raw.process_id
    }
    /// FILETIME, or the raw clock value with raw timestamps.
    pub fn timestamp(&self) -> i64 {
        self.raw.timestamp
    }
    /// The raw session-clock value as stored.
    pub fn timestamp_raw(&self) -> i64 {
        self.raw.timestamp_raw
    }
    /// KernelTime (with user_time: ProcessorTime in private sessions).
    pub fn kernel_time(&self) -> u32 {
        self.raw.kernel_time
    }
    /// UserTime.
    pub fn user_time(&self) -> u32 {
        self.raw.user_time
    }
    /// Which file of the consumer (order of opening).
    pub fn file_index(&self) -> u32 {
        self.raw.file_index
    }
    /// The buffer in its file (0 = the header buffer).
    pub fn buffer_index(&self) -> u32 {
        self.raw.buffer_index
    }
    /// Processor of the buffer.
    pub fn processor(&self) -> u32 {
        self.raw.processor
    }
    /// The user data / MOF data / message arguments.
    pub fn payload(&self) -> &'a [u8] {
        unsafe { bytes(self.raw.payload, self.raw.payload_size as usize) }
    }
    /// The whole record, `size` bytes.
    pub fn bytes(&self) -> &'a [u8] {
        unsafe { bytes(self.raw.bytes, self.raw.size as usize) }
    }
    /// EVENT_HEADER extended data items.
    pub fn extended(&self) -> &'a [sys::etw_extended_item] {
        if self.raw.extended.is_null() {
            return &[];
        }
        unsafe { slice::from_raw_parts(self.raw.extended, self.raw.extended_count as usize) }
    }
}

impl core::fmt::Debug for Record<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Record")
            .field("kind", &self.kind())
            .field("guid", &self.guid())
            .field("opcode", &self.opcode())
            .field("level", &self.level())
            .field("timestamp", &self.timestamp())
            .field("payload_size", &self.raw.payload_size)
            .finish_non_exhaustive()
    }
}

/// A classic event (EVENT_TRACE_HEADER or EVENT_INSTANCE_GUID_HEADER record)
/// as ProcessTrace's EventCallback sees it, borrowed for the callback.
#[derive(Clone, Copy)]
pub struct ClassicEvent<'a> {
    raw: &'a sys::etw_classic_event,
}

impl<'a> ClassicEvent<'a> {
    /// Safety: `raw` is an event the library passed to a callback, borrowed for 'a.
    pub(crate) unsafe fn new(raw: &'a sys::etw_classic_event) -> Self {
        ClassicEvent { raw }
    }

    /// The Windows-layout header (TimeStamp as the record's timestamp;
    /// ClientContext/Flags hold KernelTime/UserTime as stored).
    pub fn header(&self) -> &'a sys::etw_event_trace_header {
        &self.raw.header
    }
    /// The class GUID.
    pub fn guid(&self) -> Guid {
        self.raw.header.Guid.into()
    }
    /// Class.Type.
    pub fn event_type(&self) -> u8 {
        self.raw.header.Class.Type
    }
    /// Class.Level.
    pub fn level(&self) -> u8 {
        self.raw.header.Class.Level
    }
    /// Class.Version.
    pub fn version(&self) -> u16 {
        self.raw.header.Class.Version
    }
    /// The timestamp (FILETIME, or raw with raw timestamps).
    pub fn timestamp(&self) -> i64 {
        self.raw.header.TimeStamp
    }
    /// Instance records: InstanceId; else 0.
    pub fn instance_id(&self) -> u32 {
        self.raw.instance_id
    }
    /// Instance records: ParentInstanceId; else 0.
    pub fn parent_instance_id(&self) -> u32 {
        self.raw.parent_instance_id
    }
    /// Instance records: ParentGuid.
    pub fn parent_guid(&self) -> Guid {
        self.raw.parent_guid.into()
    }
    /// The payload (MOF data).
    pub fn payload(&self) -> &'a [u8] {
        unsafe { bytes(self.raw.payload, self.raw.payload_size as usize) }
    }
    /// Every decoded fact of the same record.
    pub fn record(&self) -> Record<'a> {
        unsafe { Record::new(&*self.raw.record) }
    }
}

impl core::fmt::Debug for ClassicEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ClassicEvent")
            .field("guid", &self.guid())
            .field("event_type", &self.event_type())
            .field("level", &self.level())
            .field("version", &self.version())
            .field("payload_size", &self.raw.payload_size)
            .finish_non_exhaustive()
    }
}

/// One buffer, passed after its last record was delivered, borrowed for the
/// callback. [`raw`](Self::raw) gives every member.
#[derive(Clone, Copy)]
pub struct BufferInfo<'a> {
    raw: &'a sys::etw_buffer_info,
}

impl<'a> BufferInfo<'a> {
    /// Safety: `raw` is a buffer the library passed to a callback, borrowed for 'a.
    pub(crate) unsafe fn new(raw: &'a sys::etw_buffer_info) -> Self {
        BufferInfo { raw }
    }

    /// Every member, as the C struct holds it.
    pub fn raw(&self) -> &'a sys::etw_buffer_info {
        self.raw
    }
    /// Which file.
    pub fn file_index(&self) -> u32 {
        self.raw.file_index
    }
    /// Position in the file (0 = the header buffer).
    pub fn buffer_index(&self) -> u32 {
        self.raw.buffer_index
    }
    /// The buffer's processor.
    pub fn processor(&self) -> u32 {
        self.raw.processor
    }
    /// Records delivered from this buffer.
    pub fn record_count(&self) -> u32 {
        self.raw.record_count
    }
    /// Records skipped or cut off in this buffer.
    pub fn corrupt_records(&self) -> u32 {
        self.raw.corrupt_records
    }
    /// OK, or the first problem found in this buffer.
    pub fn status(&self) -> Status {
        Status(self.raw.status)
    }
    /// The problem, naming file and offsets; "" when the status is OK.
    pub fn message(&self) -> &'a str {
        if self.raw.message.is_null() {
            return "";
        }
        unsafe { CStr::from_ptr(self.raw.message) }.to_str().unwrap_or("")
    }
    /// The bytes as stored.
    pub fn data(&self) -> &'a [u8] {
        unsafe { bytes(self.raw.data, self.raw.stored_size as usize) }
    }
    /// What records are read from (the decompressed image, or `data`).
    pub fn image(&self) -> &'a [u8] {
        unsafe { bytes(self.raw.image, self.raw.image_size as usize) }
    }
}

impl core::fmt::Debug for BufferInfo<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BufferInfo")
            .field("file_index", &self.file_index())
            .field("buffer_index", &self.buffer_index())
            .field("record_count", &self.record_count())
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

/// A live consumer's loss notification: what the session lost since the last one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossInfo {
    /// Growth of the session's EventsLost.
    pub events_lost: u32,
    /// Growth of its RealTimeBuffersLost.
    pub buffers_lost: u32,
}

/// An EVENT_HEADER record (manifest-based, TraceLogging or EventWrite event)
/// as ProcessTrace's EventRecordCallback sees its EVENT_RECORD
/// (`etw_event_record`), borrowed for the callback.
#[derive(Clone, Copy)]
pub struct EventRecord<'a> {
    raw: &'a sys::etw_event_record,
}

impl<'a> EventRecord<'a> {
    /// Safety: `raw` is an event record the library passed to a callback, borrowed for 'a.
    pub(crate) unsafe fn new(raw: &'a sys::etw_event_record) -> Self {
        EventRecord { raw }
    }

    /// Every member, as the C struct holds it (pointers borrowed like `self`).
    pub fn raw(&self) -> &'a sys::etw_event_record {
        self.raw
    }
    /// EVENT_HEADER.ProviderId.
    pub fn provider_id(&self) -> Guid {
        self.raw.provider_id.into()
    }
    /// EVENT_DESCRIPTOR.Id.
    pub fn id(&self) -> u16 {
        self.raw.id
    }
    /// EVENT_DESCRIPTOR.Version.
    pub fn version(&self) -> u8 {
        self.raw.version
    }
    /// EVENT_DESCRIPTOR.Channel.
    pub fn channel(&self) -> u8 {
        self.raw.channel
    }
    /// EVENT_DESCRIPTOR.Level.
    pub fn level(&self) -> u8 {
        self.raw.level
    }
    /// EVENT_DESCRIPTOR.Opcode.
    pub fn opcode(&self) -> u8 {
        self.raw.opcode
    }
    /// EVENT_DESCRIPTOR.Task.
    pub fn task(&self) -> u16 {
        self.raw.task
    }
    /// EVENT_DESCRIPTOR.Keyword.
    pub fn keyword(&self) -> u64 {
        self.raw.keyword
    }
    /// EVENT_HEADER.Flags as stored.
    pub fn flags(&self) -> u16 {
        self.raw.flags
    }
    /// EVENT_HEADER.EventProperty.
    pub fn event_property(&self) -> u16 {
        self.raw.event_property
    }
    /// EVENT_HEADER.ThreadId.
    pub fn thread_id(&self) -> u32 {
        self.raw.thread_id
    }
    /// EVENT_HEADER.ProcessId.
    pub fn process_id(&self) -> u32 {
        self.raw.process_id
    }
    /// The timestamp (FILETIME, or raw with raw timestamps).
    pub fn timestamp(&self) -> i64 {
        self.raw.timestamp
    }
    /// EVENT_HEADER.ActivityId.
    pub fn activity_id(&self) -> Guid {
        self.raw.activity_id.into()
    }
    /// KernelTime (with user_time: ProcessorTime in private sessions).
    pub fn kernel_time(&self) -> u32 {
        self.raw.kernel_time
    }
    /// UserTime.
    pub fn user_time(&self) -> u32 {
        self.raw.user_time
    }
    /// The extended data items.
    pub fn extended_data(&self) -> &'a [sys::etw_extended_item] {
        if self.raw.extended_data.is_null() {
            return &[];
        }
        unsafe { slice::from_raw_parts(self.raw.extended_data, self.raw.extended_data_count as usize) }
    }
    /// The user data (payload).
    pub fn user_data(&self) -> &'a [u8] {
        unsafe { bytes(self.raw.user_data, self.raw.user_data_length as usize) }
    }
    /// Every decoded fact of the same record.
    pub fn record(&self) -> Record<'a> {
        unsafe { Record::new(&*self.raw.record) }
    }
    /// Decodes the event's record (see [`Record::decode`]).
    pub fn decode(&self) -> crate::Result<crate::DecodedEvent> {
        self.record().decode()
    }
}

impl core::fmt::Debug for EventRecord<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EventRecord")
            .field("provider_id", &self.provider_id())
            .field("id", &self.id())
            .field("version", &self.version())
            .field("opcode", &self.opcode())
            .field("level", &self.level())
            .field("user_data_len", &self.user_data().len())
            .finish_non_exhaustive()
    }
}

/// The MatchId and addresses, innermost first, of a stack item
/// (ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 or _STACK_TRACE32), as
/// `etw_extended_item_stack` reads them: an error for an item of another
/// type or data that is no stack's.
pub fn extended_item_stack(item: &sys::etw_extended_item) -> Result<(u64, Vec<u64>)> {
    let (mut match_id, mut count) = (0u64, 0u32);
    let st = unsafe { sys::etw_extended_item_stack(item, &mut match_id, core::ptr::null_mut(), 0, &mut count) };
    if st != sys::ETW_ERROR_MORE_DATA {
        check(st)?;
    }
    let mut addresses = vec![0u64; count as usize];
    check(unsafe { sys::etw_extended_item_stack(item, &mut match_id, addresses.as_mut_ptr(), count, &mut count) })?;
    Ok((match_id, addresses))
}

/// The SID of a SID item (ETW_EVENT_HEADER_EXT_TYPE_SID) as text,
/// "S-1-22-1-1000" for a Unix user (`etw_extended_item_sid_string`).
pub fn extended_item_sid(item: &sys::etw_extended_item) -> Result<String> {
    let mut text = [0u8; 192]; // the longest SID's text is 184 characters
    let mut length = 0u32;
    check(unsafe {
        sys::etw_extended_item_sid_string(item, text.as_mut_ptr().cast(), text.len() as u32, &mut length)
    })?;
    Ok(String::from_utf8_lossy(&text[..length as usize]).into_owned())
}
