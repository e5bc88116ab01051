// Compiled to assembly (never run) twice per target: once against mingw-w64's
// own <windows.h>/<evntrace.h>/<evntcons.h>, once against ours (the include
// path puts include/openetw/win32 first). Each measurement becomes a line
// "@@name=value@@" in the assembly; check-layout.sh requires the two lists
// to be identical, so every size, offset and constant value matches Windows'.
#include <windows.h>
#include <wmistr.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>
#include <cstddef>

// The value travels as four 16-bit immediates: any 64-bit value, any target.
#define PART(value, k) "i"((int)(((unsigned long long)(value) >> (16 * k)) & 0xFFFF))
#define EMIT(name, value)                                                                                              \
    __asm__ volatile(".ascii \"@@" name "=%c0.%c1.%c2.%c3@@\""                                                         \
                     :                                                                                                 \
                     : PART(value, 3), PART(value, 2), PART(value, 1), PART(value, 0))

void probe()
{
#define T(type) EMIT("sizeof " #type, sizeof(type));
#define S(type)                                                                                                        \
    EMIT("sizeof " #type, sizeof(type));                                                                               \
    EMIT("alignof " #type, alignof(type));
#define F(type, field)                                                                                                 \
    EMIT(#type "." #field, offsetof(type, field));                                                                     \
    EMIT("sizeof " #type "." #field, sizeof(((type *)nullptr)->field));
#define C(name) EMIT(#name, (name));
#include "probe.def"
}
