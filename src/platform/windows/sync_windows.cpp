// Windows part of sync.hpp. wait_on/wake_all use WaitOnAddress/
// WakeByAddressAll, looked up at run time (api-ms-win-core-synch-l1-2-0.dll)
// so that the DLL needs no extra import library; without them, wait_on polls
// every millisecond. They wait within one process only (a shared region
// across processes will need a named event). No lock between processes yet:
// sessions stay in one process here.
#include "platform/windows/win32.hpp"

#include "platform/sync.hpp"

#include <cstdlib>

namespace openetw::platform {

namespace {

using WaitOnAddressFn = BOOL(WINAPI *)(volatile VOID *, PVOID, SIZE_T, DWORD);
using WakeByAddressAllFn = VOID(WINAPI *)(PVOID);

struct SynchApi {
    WaitOnAddressFn wait = nullptr;
    WakeByAddressAllFn wake_all = nullptr;
};

template <typename Fn>
Fn lookup(HMODULE module, const char *name)
{
    // Through void(*)(void): the one function pointer type -Wcast-function-type accepts.
    return reinterpret_cast<Fn>(reinterpret_cast<void (*)(void)>(GetProcAddress(module, name)));
}

const SynchApi &synch_api()
{
    static const SynchApi api = [] {
        SynchApi a;
        HMODULE m = LoadLibraryW(L"api-ms-win-core-synch-l1-2-0.dll");
        if (m == nullptr)
            m = GetModuleHandleW(L"kernelbase.dll");
        if (m != nullptr) {
            a.wait = lookup<WaitOnAddressFn>(m, "WaitOnAddress");
            a.wake_all = lookup<WakeByAddressAllFn>(m, "WakeByAddressAll");
            if (a.wait == nullptr || a.wake_all == nullptr)
                a = SynchApi{};
        }
        return a;
    }();
    return api;
}

} // namespace

void wait_on(std::atomic<std::uint32_t> *word, std::uint32_t expected, std::int64_t timeout_ms) noexcept
{
    const SynchApi &api = synch_api();
    if (api.wait != nullptr) {
        DWORD ms = INFINITE;
        if (timeout_ms >= 0)
            ms = timeout_ms >= std::int64_t(INFINITE) ? INFINITE - 1 : DWORD(timeout_ms);
        api.wait(reinterpret_cast<volatile VOID *>(word), &expected, sizeof expected, ms);
        return;
    }
    std::int64_t waited = 0;
    while (word->load(std::memory_order_acquire) == expected && (timeout_ms < 0 || waited < timeout_ms)) {
        Sleep(1);
        ++waited;
    }
}

void wake_all(std::atomic<std::uint32_t> *word) noexcept
{
    const SynchApi &api = synch_api();
    if (api.wake_all != nullptr)
        api.wake_all(reinterpret_cast<PVOID>(word));
}

void sleep_ms(std::uint32_t ms) noexcept { Sleep(DWORD(ms)); }

void yield() noexcept
{
    if (!SwitchToThread())
        Sleep(0);
}

// Wine (8.0 at least) implements FlushProcessWriteBuffers as a stub that
// returns at once, which would leave writers unfenced: under wine (its
// ntdll exports wine_get_version) callers fence on both sides instead.
bool process_barrier_init() noexcept
{
    static const bool real = [] {
        HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
        return ntdll == nullptr || GetProcAddress(ntdll, "wine_get_version") == nullptr;
    }();
    return real;
}
void process_barrier() noexcept { FlushProcessWriteBuffers(); }

// FlushProcessWriteBuffers reaches the calling process only: writers of
// another process's session fence on their own.
bool remote_barrier_available() noexcept { return false; }
bool remote_barrier_register() noexcept { return false; }
void remote_barrier() noexcept { std::abort(); }

void shared_mutex_init(SharedMutex *) noexcept {}
SharedLock shared_mutex_lock(SharedMutex *, std::int64_t) noexcept { return SharedLock::Failed; }
void shared_mutex_unlock(SharedMutex *) noexcept {}

} // namespace openetw::platform
