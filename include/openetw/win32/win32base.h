/*
 * openetw/win32/win32base.h - the Windows base types, error codes and
 * calling-convention macros the ETW headers need, for code built on Linux
 * against libopenetw-win32 (see docs/WIN32.md).
 *
 * Sizes are Windows' (LLP64): LONG and ULONG are 32 bits on every target,
 * WCHAR is a 16-bit UTF-16 code unit (wchar_t under -fshort-wchar, else
 * char16_t in C++ and uint16_t in C, so u"..." literals fit), HANDLE and
 * pointers have the target's width. Included by every header of this folder;
 * a program normally includes <evntrace.h> (or <windows.h>) instead.
 */
#ifndef OPENETW_WIN32_BASE_H
#define OPENETW_WIN32_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define OPENETW_WIN32_EXTERN_C extern "C"
#define OPENETW_WIN32_BEGIN extern "C" {
#define OPENETW_WIN32_END }
#else
#define OPENETW_WIN32_EXTERN_C extern
#define OPENETW_WIN32_BEGIN
#define OPENETW_WIN32_END
#endif

/* Calling conventions and annotations: the default convention on Linux. */
#ifndef WINAPI
#define WINAPI
#endif
#ifndef WMIAPI
#define WMIAPI
#endif
#ifndef EVNTAPI
#define EVNTAPI
#endif
#ifndef CALLBACK
#define CALLBACK
#endif
#ifndef NTAPI
#define NTAPI
#endif
#ifndef EXTERN_C
#define EXTERN_C OPENETW_WIN32_EXTERN_C
#endif
#ifndef DECLSPEC_IMPORT
#define DECLSPEC_IMPORT
#endif
#ifndef ANYSIZE_ARRAY
#define ANYSIZE_ARRAY 1
#endif
#ifndef FORCEINLINE
#define FORCEINLINE static inline
#endif
#ifndef UNREFERENCED_PARAMETER
#define UNREFERENCED_PARAMETER(p) ((void)(p))
#endif
#ifndef _In_
#define _In_
#define _In_opt_
#define _Out_
#define _Out_opt_
#define _Inout_
#define _Inout_opt_
#define _In_reads_(n)
#define _In_reads_opt_(n)
#define _In_reads_bytes_(n)
#define _Out_writes_(n)
#define _Out_writes_bytes_(n)
#define _Inout_updates_(n)
#endif

#ifndef OPENETW_WIN32_TYPES_DEFINED
#define OPENETW_WIN32_TYPES_DEFINED

#define VOID void
typedef char CHAR;
typedef unsigned char UCHAR, BYTE, BOOLEAN;
typedef int16_t SHORT;
typedef uint16_t USHORT, WORD;
typedef int32_t INT, LONG, BOOL, INT32, LONG32;
typedef uint32_t UINT, ULONG, DWORD, UINT32, ULONG32, DWORD32;
typedef int64_t LONGLONG, INT64, LONG64;
typedef uint64_t ULONGLONG, UINT64, ULONG64, DWORD64, DWORDLONG;
typedef intptr_t INT_PTR, LONG_PTR;
typedef uintptr_t UINT_PTR, ULONG_PTR, DWORD_PTR;
typedef size_t SIZE_T;
typedef void *PVOID, *LPVOID, *HANDLE;
typedef const void *LPCVOID, *PCVOID;
typedef HANDLE *PHANDLE;
typedef int32_t HRESULT;

#if defined(__WCHAR_MAX__) && __WCHAR_MAX__ <= 0xFFFF
typedef wchar_t WCHAR;      /* -fshort-wchar: L"..." literals are UTF-16 */
#elif defined(__cplusplus)
typedef char16_t WCHAR;     /* use u"..." literals */
#else
typedef uint16_t WCHAR;     /* char16_t in C: use u"..." literals */
#endif

typedef CHAR *PCHAR, *LPSTR, *PSTR;
typedef const CHAR *LPCSTR, *PCSTR;
typedef WCHAR *PWCHAR, *LPWSTR, *PWSTR;
typedef const WCHAR *LPCWSTR, *PCWSTR;
typedef UCHAR *PUCHAR, *PBYTE, *LPBYTE, *PBOOLEAN;
typedef USHORT *PUSHORT;
typedef LONG *PLONG;
typedef ULONG *PULONG, *LPDWORD, *PDWORD;
typedef ULONG64 *PULONG64;
typedef ULONGLONG *PULONGLONG;
typedef LONGLONG *PLONGLONG;
typedef ULONG_PTR *PULONG_PTR;
typedef BOOL *PBOOL, *LPBOOL;

#ifdef UNICODE
typedef WCHAR TCHAR;
#else
typedef char TCHAR;
#endif
typedef TCHAR *LPTSTR, *PTSTR;
typedef const TCHAR *LPCTSTR, *PCTSTR;

#ifndef TEXT
#ifdef UNICODE
#if defined(__WCHAR_MAX__) && __WCHAR_MAX__ <= 0xFFFF
#define OPENETW_WIN32_TEXT(s) L##s
#else
#define OPENETW_WIN32_TEXT(s) u##s
#endif
#else
#define OPENETW_WIN32_TEXT(s) s
#endif
#define TEXT(s) OPENETW_WIN32_TEXT(s)
#define __TEXT(s) OPENETW_WIN32_TEXT(s)
#endif

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#ifndef MAX_PATH
#define MAX_PATH 260
#endif
#define INVALID_HANDLE_VALUE ((HANDLE)(LONG_PTR)-1)

/* LARGE_INTEGER: 8 bytes, 8-aligned, on every target. */
typedef union _LARGE_INTEGER {
    __extension__ struct {
        ULONG LowPart;
        LONG HighPart;
    };
    struct {
        ULONG LowPart;
        LONG HighPart;
    } u;
    LONGLONG QuadPart;
} LARGE_INTEGER, *PLARGE_INTEGER;

typedef union _ULARGE_INTEGER {
    __extension__ struct {
        ULONG LowPart;
        ULONG HighPart;
    };
    struct {
        ULONG LowPart;
        ULONG HighPart;
    } u;
    ULONGLONG QuadPart;
} ULARGE_INTEGER, *PULARGE_INTEGER;

typedef struct _FILETIME {
    DWORD dwLowDateTime;
    DWORD dwHighDateTime;
} FILETIME, *PFILETIME, *LPFILETIME;

typedef struct _SYSTEMTIME {
    WORD wYear;
    WORD wMonth;
    WORD wDayOfWeek;
    WORD wDay;
    WORD wHour;
    WORD wMinute;
    WORD wSecond;
    WORD wMilliseconds;
} SYSTEMTIME, *PSYSTEMTIME, *LPSYSTEMTIME;

typedef struct _TIME_ZONE_INFORMATION {
    LONG Bias;
    WCHAR StandardName[32];
    SYSTEMTIME StandardDate;
    LONG StandardBias;
    WCHAR DaylightName[32];
    SYSTEMTIME DaylightDate;
    LONG DaylightBias;
} TIME_ZONE_INFORMATION, *PTIME_ZONE_INFORMATION, *LPTIME_ZONE_INFORMATION;

#endif /* OPENETW_WIN32_TYPES_DEFINED */

/* ---- Win32 error codes (winerror.h) the ETW functions return ---- */
#ifndef ERROR_SUCCESS
#define ERROR_SUCCESS                 0
#define NO_ERROR                      0
#define ERROR_INVALID_FUNCTION        1
#define ERROR_FILE_NOT_FOUND          2
#define ERROR_PATH_NOT_FOUND          3
#define ERROR_ACCESS_DENIED           5
#define ERROR_INVALID_HANDLE          6
#define ERROR_NOT_ENOUGH_MEMORY       8
#define ERROR_INVALID_DATA            13
#define ERROR_OUTOFMEMORY             14
#define ERROR_BAD_LENGTH              24
#define ERROR_WRITE_FAULT             29
#define ERROR_READ_FAULT              30
#define ERROR_HANDLE_EOF              38
#define ERROR_NOT_SUPPORTED           50
#define ERROR_INVALID_PARAMETER       87
#define ERROR_DISK_FULL               112
#define ERROR_INSUFFICIENT_BUFFER     122
#define ERROR_INVALID_NAME            123
#define ERROR_BAD_PATHNAME            161
#define ERROR_BUSY                    170
#define ERROR_ALREADY_EXISTS          183
#define ERROR_INVALID_FLAG_NUMBER     186
#define ERROR_MORE_DATA               234
#define ERROR_NO_MORE_ITEMS           259
#define ERROR_ARITHMETIC_OVERFLOW     534
#define ERROR_NOACCESS                998
#define ERROR_NO_UNICODE_TRANSLATION  1113
#define ERROR_CANCELLED               1223
#define ERROR_INTERNAL_ERROR          1359
#define ERROR_NO_SYSTEM_RESOURCES     1450
#define ERROR_TIMEOUT                 1460
#define ERROR_LOG_FILE_FULL           1502
#define ERROR_WMI_GUID_NOT_FOUND      4200
#define ERROR_WMI_INSTANCE_NOT_FOUND  4201
#define ERROR_WMI_ALREADY_ENABLED     4206
#define ERROR_CTX_CLOSE_PENDING       7007
#endif

OPENETW_WIN32_BEGIN
/* The calling thread's last error (kernel32's pair), set by OpenTrace,
 * GetTraceLoggerHandle and GetTraceEnableLevel/Flags on failure. */
DWORD WINAPI GetLastError(void);
void WINAPI SetLastError(DWORD error);
OPENETW_WIN32_END

#endif /* OPENETW_WIN32_BASE_H */
