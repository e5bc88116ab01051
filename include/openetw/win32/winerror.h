/* openetw/win32/winerror.h - the Win32 error codes ETW returns (win32base.h). */
#ifndef OPENETW_WIN32_WINERROR_H
#define OPENETW_WIN32_WINERROR_H
#include "win32base.h"
#endif
