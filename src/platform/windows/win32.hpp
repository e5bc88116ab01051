// The Windows headers as every source of windows/ includes them, first:
// Windows 8 APIs, the lean set, and no min/max macros to break std::min.
#pragma once

#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0602 // Windows 8: GetSystemTimePreciseAsFileTime
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
