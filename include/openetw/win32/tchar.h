/*
 * openetw/win32/tchar.h - _T/_TEXT and TCHAR for the A/W generic names:
 * char without UNICODE (_UNICODE), WCHAR with it.
 */
#ifndef OPENETW_WIN32_TCHAR_H
#define OPENETW_WIN32_TCHAR_H
#include "win32base.h"
#if defined(_UNICODE) && !defined(UNICODE)
#error "define UNICODE together with _UNICODE"
#endif
#define _T(s) TEXT(s)
#define _TEXT(s) TEXT(s)
typedef TCHAR _TCHAR;
#ifndef UNICODE
/* The narrow forms; with UNICODE, use the W functions explicitly. */
#include <stdio.h>
#include <string.h>
#define _tmain main
#define _tprintf printf
#define _ftprintf fprintf
#define _stprintf sprintf
#define _tcslen strlen
#define _tcscpy strcpy
#define _tcscmp strcmp
#endif
#endif
