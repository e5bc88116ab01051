#include "core/grace.hpp"

#include "platform/platform.hpp"

namespace openetw::core {

void Grace::synchronize() noexcept
{
    std::lock_guard<std::mutex> lock(sync_mutex_);
    const std::uint64_t old = epoch_.fetch_add(1, std::memory_order_seq_cst);
    const std::uint32_t parity = std::uint32_t(old & 1);
    for (unsigned spins = 0;; ++spins) {
        std::uint64_t sum = 0;
        for (auto &s : slots_[parity])
            sum += s.count.load(std::memory_order_seq_cst);
        if (sum == 0)
            return;
        if (spins < 64)
            platform::yield();
        else
            platform::sleep_ms(1);
    }
}

Grace &Grace::global() noexcept
{
    static Grace g;
    return g;
}

} // namespace openetw::core
