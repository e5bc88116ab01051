/*
 * openetw/win32/evntprov.h - manifest-style providers: EventRegister,
 * EventEnabled, EventWrite (libopenetw-win32).
 *
 * EventWrite, EventWriteTransfer, EventWriteEx and EventWriteString write
 * EVENT_HEADER records, as Windows does (docs/WIN32.md, "EventWrite"): the
 * whole EVENT_DESCRIPTOR, the provider GUID, the activity id (the caller's,
 * or the thread's: EventActivityIdControl), a related activity id as an
 * extended data item, the data descriptors concatenated. Level and Keyword
 * decide, session by session, which sessions take the event.
 */
#ifndef OPENETW_WIN32_EVNTPROV_H
#define OPENETW_WIN32_EVNTPROV_H

#include "win32base.h"
#include "guiddef.h"
#include <string.h>

#define EVENT_MIN_LEVEL (0)
#define EVENT_MAX_LEVEL (0xff)
#define EVENT_ACTIVITY_CTRL_GET_ID (1)
#define EVENT_ACTIVITY_CTRL_SET_ID (2)
#define EVENT_ACTIVITY_CTRL_CREATE_ID (3)
#define EVENT_ACTIVITY_CTRL_GET_SET_ID (4)
#define EVENT_ACTIVITY_CTRL_CREATE_SET_ID (5)
#define EVENT_FILTER_TYPE_NONE (0x00000000)
#define EVENT_FILTER_TYPE_SCHEMATIZED (0x80000000)
#define EVENT_FILTER_TYPE_SYSTEM_FLAGS (0x80000001)
#define EVENT_FILTER_TYPE_TRACEHANDLE (0x80000002)
#define EVENT_FILTER_TYPE_PID (0x80000004)
#define EVENT_FILTER_TYPE_EXECUTABLE_NAME (0x80000008)
#define EVENT_FILTER_TYPE_PACKAGE_ID (0x80000010)
#define EVENT_FILTER_TYPE_PACKAGE_APP_ID (0x80000020)
#define EVENT_FILTER_TYPE_PAYLOAD (0x80000100)
#define EVENT_FILTER_TYPE_EVENT_ID (0x80000200)
#define EVENT_FILTER_TYPE_EVENT_NAME (0x80000400)
#define EVENT_FILTER_TYPE_STACKWALK (0x80001000)
#define EVENT_FILTER_TYPE_STACKWALK_NAME (0x80002000)
#define EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW (0x80004000)
#define EVENT_FILTER_TYPE_CONTAINER (0x80008000)
#define MAX_EVENT_DATA_DESCRIPTORS (128)
#define MAX_EVENT_FILTER_DATA_SIZE (1024)
#define MAX_EVENT_FILTER_PAYLOAD_SIZE (4096)
#define MAX_EVENT_FILTER_EVENT_NAME_SIZE (4096)
#define MAX_EVENT_FILTERS_COUNT (13)
#define MAX_EVENT_FILTER_PID_COUNT (8)
#define MAX_EVENT_FILTER_EVENT_ID_COUNT (64)

#define EVENT_WRITE_FLAG_NO_FAULTING (0x00000001)
#define EVENT_WRITE_FLAG_INPRIVATE (0x00000002)

#define EVENT_DATA_DESCRIPTOR_TYPE_NONE (0)
#define EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA (1)
#define EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA (2)
#define EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE (3)

OPENETW_WIN32_BEGIN

typedef ULONGLONG REGHANDLE, *PREGHANDLE;

typedef struct _EVENT_DATA_DESCRIPTOR {
    ULONGLONG Ptr;
    ULONG Size;
    __extension__ union {
        ULONG Reserved;
        __extension__ struct {
            UCHAR Type;
            UCHAR Reserved1;
            USHORT Reserved2;
        };
    };
} EVENT_DATA_DESCRIPTOR, *PEVENT_DATA_DESCRIPTOR;

#ifndef EVENT_DESCRIPTOR_DEF
#define EVENT_DESCRIPTOR_DEF
typedef struct _EVENT_DESCRIPTOR {
    USHORT Id;
    UCHAR Version;
    UCHAR Channel;
    UCHAR Level;
    UCHAR Opcode;
    USHORT Task;
    ULONGLONG Keyword;
} EVENT_DESCRIPTOR, *PEVENT_DESCRIPTOR;
typedef const EVENT_DESCRIPTOR *PCEVENT_DESCRIPTOR;
#endif

#ifndef DEFINED_PEVENT_FILTER_DESC
#define DEFINED_PEVENT_FILTER_DESC
typedef struct _EVENT_FILTER_DESCRIPTOR {
    ULONGLONG Ptr;
    ULONG Size;
    ULONG Type;
} EVENT_FILTER_DESCRIPTOR, *PEVENT_FILTER_DESCRIPTOR;
#endif

/* EVENT_FILTER_TYPE_EVENT_ID and _STACKWALK: Count ids follow (FilterIn TRUE:
 * only these; FALSE: all but these). */
typedef struct _EVENT_FILTER_EVENT_ID {
    BOOLEAN FilterIn;
    UCHAR Reserved;
    USHORT Count;
    USHORT Events[ANYSIZE_ARRAY];
} EVENT_FILTER_EVENT_ID, *PEVENT_FILTER_EVENT_ID;

/* EVENT_FILTER_TYPE_EVENT_NAME: NameCount NUL-terminated UTF-8 TraceLogging
 * event names follow. */
typedef struct _EVENT_FILTER_EVENT_NAME {
    ULONGLONG MatchAnyKeyword;
    ULONGLONG MatchAllKeyword;
    UCHAR Level;
    BOOLEAN FilterIn;
    USHORT NameCount;
    UCHAR Names[ANYSIZE_ARRAY];
} EVENT_FILTER_EVENT_NAME, *PEVENT_FILTER_EVENT_NAME;

typedef struct _EVENT_FILTER_HEADER {
    USHORT Id;
    UCHAR Version;
    UCHAR Reserved[5];
    ULONGLONG InstanceId;
    ULONG Size;
    ULONG NextOffset;
} EVENT_FILTER_HEADER, *PEVENT_FILTER_HEADER;

/* IsEnabled: EVENT_CONTROL_CODE_ENABLE_PROVIDER (1), _DISABLE_PROVIDER (0),
 * or _CAPTURE_STATE (2: log your state; Level and the keywords are the
 * request's, the enablement is unchanged).
 * Called on the thread that changes the enablement (or OpenETW's
 * notification thread for a session of another process). FilterData: the
 * SCHEMATIZED filter the session that caused the call enabled the provider
 * with (NULL: none); when it holds an EVENT_FILTER_HEADER, its InstanceId is
 * that session's identifier, for EventWriteEx's Filter. */
typedef VOID (NTAPI *PENABLECALLBACK)(LPCGUID SourceId, ULONG IsEnabled, UCHAR Level,
                                      ULONGLONG MatchAnyKeyword, ULONGLONG MatchAllKeyword,
                                      PEVENT_FILTER_DESCRIPTOR FilterData, PVOID CallbackContext);

/* Registers ProviderId; *RegHandle receives the handle. ERROR_INVALID_PARAMETER
 * for a NULL ProviderId or RegHandle, ERROR_OUTOFMEMORY. The callback (may be
 * NULL) runs before this returns when a session already enables the provider. */
ULONG EVNTAPI EventRegister(LPCGUID ProviderId, PENABLECALLBACK EnableCallback, PVOID CallbackContext,
                            PREGHANDLE RegHandle);
/* ERROR_INVALID_HANDLE for a handle EventRegister did not return (or 0). */
ULONG EVNTAPI EventUnregister(REGHANDLE RegHandle);
/* TRUE when some session takes events of this level and keyword: level 0 or
 * at most the session's (enabled at 0: every level); keyword 0, or a bit of
 * its MatchAnyKeyword (0: every bit) and every bit of its MatchAllKeyword. */
BOOLEAN EVNTAPI EventEnabled(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor);
BOOLEAN EVNTAPI EventProviderEnabled(REGHANDLE RegHandle, UCHAR Level, ULONGLONG Keyword);
/* Writes the event (see the top of this header) with the thread's activity
 * id. ERROR_INVALID_HANDLE (bad handle), ERROR_INVALID_PARAMETER (NULL
 * descriptor, more than MAX_EVENT_DATA_DESCRIPTORS, NULL data with a size),
 * ERROR_ARITHMETIC_OVERFLOW (header, items and data above 64 KB),
 * ERROR_MORE_DATA (larger than a session's buffer), ERROR_NOT_ENOUGH_MEMORY
 * (no free buffer: lost, counted). */
ULONG EVNTAPI EventWrite(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor, ULONG UserDataCount,
                         PEVENT_DATA_DESCRIPTOR UserData);
/* EventWrite with ActivityId (NULL: the thread's) and RelatedActivityId
 * (NULL: none; else an EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID item). */
ULONG EVNTAPI EventWriteTransfer(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor, LPCGUID ActivityId,
                                 LPCGUID RelatedActivityId, ULONG UserDataCount, PEVENT_DATA_DESCRIPTOR UserData);
/* EventWriteTransfer with Filter and Flags. Flags other than
 * EVENT_WRITE_FLAG_NO_FAULTING and EVENT_WRITE_FLAG_INPRIVATE:
 * ERROR_INVALID_PARAMETER. Filter: the OR of the identifiers of the sessions
 * that must not get the event, each the InstanceId of the EVENT_FILTER_HEADER
 * its enable callback found in FilterData (a SCHEMATIZED filter of at least
 * sizeof(EVENT_FILTER_HEADER) bytes); 0: every session. */
ULONG EVNTAPI EventWriteEx(REGHANDLE RegHandle, PCEVENT_DESCRIPTOR EventDescriptor, ULONG64 Filter, ULONG Flags,
                           LPCGUID ActivityId, LPCGUID RelatedActivityId, ULONG UserDataCount,
                           PEVENT_DATA_DESCRIPTOR UserData);
/* EventSetInformation's classes (EVENT_INFO_CLASS). */
typedef enum _EVENT_INFO_CLASS {
    EventProviderBinaryTrackInfo,
    EventProviderSetReserved1,
    EventProviderSetTraits,
    EventProviderUseDescriptorType,
    MaxEventInfo
} EVENT_INFO_CLASS;
/* EventProviderSetTraits: the traits blob (UINT16 TraitsSize, NUL-terminated
 * UTF-8 name, traits) that every event of the provider then carries as its
 * PROV_TRAITS item (etw_provider_set_traits); set once (a second time:
 * ERROR_ALREADY_EXISTS), ERROR_INVALID_PARAMETER for a malformed blob.
 * EventProviderUseDescriptorType: ERROR_SUCCESS (EVENT_DATA_DESCRIPTOR.Type
 * is always honoured here). Others (EventProviderBinaryTrackInfo included):
 * ERROR_NOT_SUPPORTED. ERROR_INVALID_PARAMETER for a bad handle. */
ULONG EVNTAPI EventSetInformation(REGHANDLE RegHandle, EVENT_INFO_CLASS InformationClass, PVOID EventInformation,
                                  ULONG InformationLength);
/* Writes String (NUL included) as the user data of an event with Level and
 * Keyword (the rest of its descriptor 0) and EVENT_HEADER_FLAG_STRING_ONLY. */
ULONG EVNTAPI EventWriteString(REGHANDLE RegHandle, UCHAR Level, ULONGLONG Keyword, PCWSTR String);
/* The calling thread's activity id: EVENT_ACTIVITY_CTRL_GET_ID, SET_ID,
 * CREATE_ID (a new id, unique on the machine), GET_SET_ID (swap),
 * CREATE_SET_ID (returns the old, sets a new one). ERROR_INVALID_PARAMETER
 * for another code or a NULL ActivityId. */
ULONG EVNTAPI EventActivityIdControl(ULONG ControlCode, LPGUID ActivityId);

FORCEINLINE VOID EventDataDescCreate(PEVENT_DATA_DESCRIPTOR desc, const VOID *data, ULONG size)
{
    desc->Ptr = (ULONGLONG)(ULONG_PTR)data;
    desc->Size = size;
    desc->Reserved = 0;
}

FORCEINLINE VOID EventDescCreate(PEVENT_DESCRIPTOR ev, USHORT Id, UCHAR Version, UCHAR Channel, UCHAR Level,
                                 USHORT Task, UCHAR Opcode, ULONGLONG Keyword)
{
    ev->Id = Id;
    ev->Version = Version;
    ev->Channel = Channel;
    ev->Level = Level;
    ev->Task = Task;
    ev->Opcode = Opcode;
    ev->Keyword = Keyword;
}

FORCEINLINE VOID EventDescZero(PEVENT_DESCRIPTOR ev) { memset(ev, 0, sizeof(EVENT_DESCRIPTOR)); }
FORCEINLINE USHORT EventDescGetId(PCEVENT_DESCRIPTOR ev) { return ev->Id; }
FORCEINLINE UCHAR EventDescGetVersion(PCEVENT_DESCRIPTOR ev) { return ev->Version; }
FORCEINLINE UCHAR EventDescGetChannel(PCEVENT_DESCRIPTOR ev) { return ev->Channel; }
FORCEINLINE UCHAR EventDescGetLevel(PCEVENT_DESCRIPTOR ev) { return ev->Level; }
FORCEINLINE UCHAR EventDescGetOpcode(PCEVENT_DESCRIPTOR ev) { return ev->Opcode; }
FORCEINLINE USHORT EventDescGetTask(PCEVENT_DESCRIPTOR ev) { return ev->Task; }
FORCEINLINE ULONGLONG EventDescGetKeyword(PCEVENT_DESCRIPTOR ev) { return ev->Keyword; }

OPENETW_WIN32_END

#endif /* OPENETW_WIN32_EVNTPROV_H */
