/*
 * openetw/version.h - library version.
 */
#ifndef OPENETW_VERSION_H
#define OPENETW_VERSION_H

#include "export.h"

ETW_BEGIN_DECLS

#define OPENETW_VERSION_MAJOR 0
#define OPENETW_VERSION_MINOR 1
#define OPENETW_VERSION_PATCH 0
/** The ABI number in the SONAME (libopenetw.so.1) and DLL name (openetw-1.dll). */
#define OPENETW_ABI_VERSION 1

/** "MAJOR.MINOR.PATCH" of the library actually loaded. Static text. */
ETW_API const char *etw_version_string(void);

ETW_END_DECLS

#endif /* OPENETW_VERSION_H */
