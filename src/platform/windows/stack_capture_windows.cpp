// capture_stack with RtlCaptureStackBackTrace (platform/stack_capture.hpp).
#include "platform/windows/win32.hpp"

#include "platform/stack_capture.hpp"

namespace openetw::platform {

[[gnu::noinline]] std::uint32_t capture_stack(std::uint64_t *frames, std::uint32_t capacity,
                                              std::uint32_t skip) noexcept
{
    void *got[62]; // the most one call returns on every Windows version
    std::uint32_t count = 0;
    DWORD from = skip + 1; // its own frame too
    while (count < capacity) {
        const DWORD want = DWORD(capacity - count < 62 ? capacity - count : 62);
        const USHORT n = RtlCaptureStackBackTrace(from, want, got, nullptr);
        for (USHORT i = 0; i < n; ++i)
            frames[count++] = std::uint64_t(reinterpret_cast<std::uintptr_t>(got[i]));
        if (n < want)
            break;
        from += n;
    }
    return count;
}

void prepare_stack_capture() noexcept {}

} // namespace openetw::platform
