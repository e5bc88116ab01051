// A buffering session's retained buffers, oldest first: a fixed-capacity
// FIFO of buffer indices (sized once at start: writers that recycle from it
// never allocate). Not synchronized: Session guards it with ring_mutex_.
#pragma once

#include <cstdint>
#include <vector>

namespace openetw::engine {

class BufferRing {
public:
    void reset(std::uint32_t capacity)
    {
        slots_.assign(capacity == 0 ? 1 : capacity, 0);
        head_ = count_ = 0;
    }
    std::uint32_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    // i-th oldest (i < size()).
    std::uint32_t at(std::uint32_t i) const noexcept { return slots_[wrap(head_ + i)]; }
    // False when full (cannot happen: a buffer is in the ring at most once).
    bool push_back(std::uint32_t idx) noexcept
    {
        if (count_ == slots_.size())
            return false;
        slots_[wrap(head_ + count_)] = idx;
        ++count_;
        return true;
    }
    // Removes and returns the i-th oldest, keeping the others in order.
    std::uint32_t take(std::uint32_t i) noexcept
    {
        const std::uint32_t idx = at(i);
        for (std::uint32_t k = i; k > 0; --k) // shift the older ones up by one
            slots_[wrap(head_ + k)] = slots_[wrap(head_ + k - 1)];
        head_ = wrap(head_ + 1);
        --count_;
        return idx;
    }

private:
    std::uint32_t wrap(std::uint32_t i) const noexcept { return i % std::uint32_t(slots_.size()); }
    std::vector<std::uint32_t> slots_ = std::vector<std::uint32_t>(1);
    std::uint32_t head_ = 0;
    std::uint32_t count_ = 0;
};

} // namespace openetw::engine
