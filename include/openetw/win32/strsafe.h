/*
 * openetw/win32/strsafe.h - the string copies ETW samples use to place names
 * in an EVENT_TRACE_PROPERTIES block: StringCbCopy/StringCchCopy (A and W),
 * StringCbLength/StringCchLength. They truncate and return
 * STRSAFE_E_INSUFFICIENT_BUFFER when the source does not fit, as on Windows.
 */
#ifndef OPENETW_WIN32_STRSAFE_H
#define OPENETW_WIN32_STRSAFE_H

#include "win32base.h"

#ifndef S_OK
#define S_OK ((HRESULT)0)
#endif
#ifndef SUCCEEDED
#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr) (((HRESULT)(hr)) < 0)
#endif
#define STRSAFE_E_INSUFFICIENT_BUFFER ((HRESULT)0x8007007AL)
#define STRSAFE_E_INVALID_PARAMETER ((HRESULT)0x80070057L)
#define STRSAFE_MAX_CCH 2147483647

static inline HRESULT StringCchCopyA(LPSTR dest, size_t cch, LPCSTR src)
{
    size_t i = 0;
    if (cch == 0 || cch > STRSAFE_MAX_CCH)
        return STRSAFE_E_INVALID_PARAMETER;
    for (; i + 1 < cch && src[i] != 0; ++i)
        dest[i] = src[i];
    dest[i] = 0;
    return src[i] == 0 ? S_OK : STRSAFE_E_INSUFFICIENT_BUFFER;
}

static inline HRESULT StringCchCopyW(LPWSTR dest, size_t cch, LPCWSTR src)
{
    size_t i = 0;
    if (cch == 0 || cch > STRSAFE_MAX_CCH)
        return STRSAFE_E_INVALID_PARAMETER;
    for (; i + 1 < cch && src[i] != 0; ++i)
        dest[i] = src[i];
    dest[i] = 0;
    return src[i] == 0 ? S_OK : STRSAFE_E_INSUFFICIENT_BUFFER;
}

static inline HRESULT StringCbCopyA(LPSTR dest, size_t cb, LPCSTR src) { return StringCchCopyA(dest, cb, src); }
static inline HRESULT StringCbCopyW(LPWSTR dest, size_t cb, LPCWSTR src)
{
    return StringCchCopyW(dest, cb / sizeof(WCHAR), src);
}

static inline HRESULT StringCchLengthA(LPCSTR s, size_t max, size_t *out)
{
    size_t n = 0;
    if (s == NULL || max > STRSAFE_MAX_CCH)
        return STRSAFE_E_INVALID_PARAMETER;
    while (n < max && s[n] != 0)
        ++n;
    if (n == max)
        return STRSAFE_E_INVALID_PARAMETER;
    if (out != NULL)
        *out = n;
    return S_OK;
}

static inline HRESULT StringCchLengthW(LPCWSTR s, size_t max, size_t *out)
{
    size_t n = 0;
    if (s == NULL || max > STRSAFE_MAX_CCH)
        return STRSAFE_E_INVALID_PARAMETER;
    while (n < max && s[n] != 0)
        ++n;
    if (n == max)
        return STRSAFE_E_INVALID_PARAMETER;
    if (out != NULL)
        *out = n;
    return S_OK;
}

static inline HRESULT StringCbLengthA(LPCSTR s, size_t max, size_t *out) { return StringCchLengthA(s, max, out); }
static inline HRESULT StringCbLengthW(LPCWSTR s, size_t max, size_t *out)
{
    HRESULT hr = StringCchLengthW(s, max / sizeof(WCHAR), out);
    if (SUCCEEDED(hr) && out != NULL)
        *out *= sizeof(WCHAR);
    return hr;
}

#ifdef UNICODE
#define StringCchCopy StringCchCopyW
#define StringCbCopy StringCbCopyW
#define StringCchLength StringCchLengthW
#define StringCbLength StringCbLengthW
#else
#define StringCchCopy StringCchCopyA
#define StringCbCopy StringCbCopyA
#define StringCchLength StringCchLengthA
#define StringCbLength StringCbLengthA
#endif

#endif /* OPENETW_WIN32_STRSAFE_H */
