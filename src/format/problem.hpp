// What the decoders report about damaged input: a status code, where in the
// buffer image it was found, and a sentence. The consumer adds the file name
// and file offsets.
#pragma once

#include <openetw/status.h>

#include <cstdint>
#include <string>
#include <utility>

namespace openetw::format {

struct Problem {
    etw_status code = ETW_OK;
    std::uint32_t at = 0; // offset in the buffer image (or record) where it was found
    std::string detail;

    explicit operator bool() const { return code != ETW_OK; }
    void clear()
    {
        code = ETW_OK;
        at = 0;
        detail.clear();
    }
    void set(etw_status c, std::uint32_t where, std::string text)
    {
        code = c;
        at = where;
        detail = std::move(text);
    }
};

// printf into a std::string (messages are built only on failure paths).
#if defined(__MINGW32__)
// mingw: "printf" means msvcrt's formats (no %zu); libstdc++ builds C++ with
// __USE_MINGW_ANSI_STDIO, so vsnprintf takes the C99 (gnu_printf) formats.
__attribute__((format(gnu_printf, 1, 2)))
#elif defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
std::string
text_printf(const char *fmt, ...);

} // namespace openetw::format
