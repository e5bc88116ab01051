// Little-endian payload building for the kernel classes written outside
// kernel_records.cpp (CSwitch, DiskIo, TcpIp...): fixed-width fields and
// pointers of the session's pointer size (4 or 8 bytes).
#pragma once

#include "kernel/kernel_records.hpp"

#include <cstdint>

namespace openetw::kernel {

class PayloadBytes {
public:
    explicit PayloadBytes(std::uint32_t pointer_size) : ptr_(pointer_size == 4 ? 4 : 8) {}
    PayloadBytes &u8(std::uint8_t v)
    {
        b_.push_back(v);
        return *this;
    }
    PayloadBytes &u16(std::uint16_t v) { return put(v, 2); }
    PayloadBytes &u32(std::uint32_t v) { return put(v, 4); }
    PayloadBytes &u64(std::uint64_t v) { return put(v, 8); }
    PayloadBytes &ptr(std::uint64_t v) { return put(v, ptr_); }
    // Bytes as they are (addresses, ports in network order).
    PayloadBytes &raw(const std::uint8_t *p, std::size_t n)
    {
        b_.insert(b_.end(), p, p + n);
        return *this;
    }
    Bytes take() { return std::move(b_); }

private:
    PayloadBytes &put(std::uint64_t v, std::uint32_t n)
    {
        for (std::uint32_t i = 0; i < n; ++i)
            b_.push_back(std::uint8_t(v >> (8 * i)));
        return *this;
    }
    std::uint32_t ptr_;
    Bytes b_;
};

} // namespace openetw::kernel
