/*
 * openetw/win32/guiddef.h - GUID, DEFINE_GUID and IsEqualGUID.
 * DEFINE_GUID defines the variable where INITGUID is defined before the
 * include, and declares it (extern) elsewhere, as on Windows.
 */
#ifndef OPENETW_WIN32_GUIDDEF_H
#define OPENETW_WIN32_GUIDDEF_H

#include "win32base.h"
#include <string.h>

#ifndef GUID_DEFINED
#define GUID_DEFINED
typedef struct _GUID {
    ULONG Data1;
    USHORT Data2;
    USHORT Data3;
    UCHAR Data4[8];
} GUID;
#endif
typedef GUID *LPGUID, *PGUID;
typedef const GUID *LPCGUID, *PCGUID;
typedef GUID IID, CLSID;
#ifdef __cplusplus
#define REFGUID const GUID &
#else
#define REFGUID const GUID *
#endif

#ifdef DEFINE_GUID
#undef DEFINE_GUID
#endif
#if defined(INITGUID) && defined(__cplusplus)
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    extern "C" const GUID name = {l, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}
#elif defined(INITGUID)
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    const GUID name = {l, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}
#else
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    OPENETW_WIN32_EXTERN_C const GUID name
#endif

#ifdef __cplusplus
static inline int IsEqualGUID(const GUID &a, const GUID &b) { return memcmp(&a, &b, sizeof(GUID)) == 0; }
static inline bool operator==(const GUID &a, const GUID &b) { return IsEqualGUID(a, b) != 0; }
static inline bool operator!=(const GUID &a, const GUID &b) { return !(a == b); }
#else
#define IsEqualGUID(a, b) (memcmp((a), (b), sizeof(GUID)) == 0)
#endif
#define InlineIsEqualGUID(a, b) IsEqualGUID(a, b)

#endif /* OPENETW_WIN32_GUIDDEF_H */
