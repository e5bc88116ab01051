// capture_stack over libgcc's unwinder (platform/stack_capture.hpp says why).
#include "platform/stack_capture.hpp"

#include <unwind.h>

namespace openetw::platform {

namespace {

struct Walk {
    std::uint64_t *frames;
    std::uint32_t capacity;
    std::uint32_t count;
    std::uint32_t skip;
};

_Unwind_Reason_Code step(struct _Unwind_Context *context, void *arg)
{
    auto *w = static_cast<Walk *>(arg);
    const _Unwind_Ptr ip = _Unwind_GetIP(context);
    if (ip == 0)
        return _URC_END_OF_STACK;
    if (w->skip != 0) {
        --w->skip;
        return _URC_NO_REASON;
    }
    if (w->count == w->capacity)
        return _URC_END_OF_STACK;
    w->frames[w->count++] = std::uint64_t(ip);
    return _URC_NO_REASON;
}

} // namespace

// Not inlined: its own frame is the first the unwinder reports, and skipped.
[[gnu::noinline]] std::uint32_t capture_stack(std::uint64_t *frames, std::uint32_t capacity,
                                              std::uint32_t skip) noexcept
{
    if (capacity == 0)
        return 0;
    Walk w{frames, capacity, 0, skip + 1};
    _Unwind_Backtrace(step, &w);
    return w.count;
}

void prepare_stack_capture() noexcept
{
    std::uint64_t frames[4];
    (void)capture_stack(frames, 4, 0);
}

} // namespace openetw::platform
