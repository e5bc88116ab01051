/*
 * openetw/export.h - the one export macro and the C linkage guards.
 *
 * ETW_API marks every function the library exports. Building the library
 * defines OPENETW_BUILDING; programs that link the static library define
 * OPENETW_STATIC. Nothing here changes the layout of any structure.
 */
#ifndef OPENETW_EXPORT_H
#define OPENETW_EXPORT_H

#if defined(SWIG) || defined(OPENETW_STATIC)
#  define ETW_API
#elif defined(_WIN32) || defined(__CYGWIN__)
#  if defined(OPENETW_BUILDING)
#    define ETW_API __declspec(dllexport)
#  else
#    define ETW_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define ETW_API __attribute__((visibility("default")))
#else
#  define ETW_API
#endif

#ifdef __cplusplus
#  define ETW_BEGIN_DECLS extern "C" {
#  define ETW_END_DECLS }
#else
#  define ETW_BEGIN_DECLS
#  define ETW_END_DECLS
#endif

#endif /* OPENETW_EXPORT_H */
