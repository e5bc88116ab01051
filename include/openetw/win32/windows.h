/*
 * openetw/win32/windows.h - the small part of <windows.h> that ETW programs
 * use, so that code written for Windows compiles unchanged on Linux with
 * `pkg-config --cflags openetw-win32` (which puts this folder on the include
 * path). It is not a Windows SDK: only the base types, the error codes,
 * GetLastError/SetLastError, ZeroMemory and friends, and the ETW headers.
 */
#ifndef OPENETW_WIN32_WINDOWS_H
#define OPENETW_WIN32_WINDOWS_H

#include "win32base.h"
#include "guiddef.h"
#include <string.h>

#ifndef ZeroMemory
#define RtlZeroMemory(d, n) memset((d), 0, (n))
#define ZeroMemory(d, n) memset((d), 0, (n))
#define RtlCopyMemory(d, s, n) memcpy((d), (s), (n))
#define CopyMemory(d, s, n) memcpy((d), (s), (n))
#define RtlMoveMemory(d, s, n) memmove((d), (s), (n))
#define MoveMemory(d, s, n) memmove((d), (s), (n))
#define RtlFillMemory(d, n, f) memset((d), (f), (n))
#define FillMemory(d, n, f) memset((d), (f), (n))
#endif
#ifndef _countof
#define _countof(a) (sizeof(a) / sizeof((a)[0]))
#endif
#ifndef ARRAYSIZE
#define ARRAYSIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif /* OPENETW_WIN32_WINDOWS_H */
