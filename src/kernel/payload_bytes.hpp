// Little-endian payload building for the kernel classes: fixed-width
// fields, pointers of the session's pointer size (4 or 8 bytes), and the
// NUL-terminated strings of MOF payloads.
#pragma once

#include "kernel/kernel_records.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

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
    PayloadBytes &bytes(const Bytes &v) { return raw(v.data(), v.size()); }
    // A NUL-terminated ANSI string (an embedded NUL would end it early for
    // every reader: the string stops there).
    PayloadBytes &ansi(const std::string &s)
    {
        b_.insert(b_.end(), s.begin(), std::find(s.begin(), s.end(), '\0'));
        b_.push_back(0);
        return *this;
    }
    // A NUL-terminated UTF-16LE string (likewise up to an embedded NUL).
    PayloadBytes &utf16(std::u16string_view s)
    {
        for (char16_t c : s.substr(0, s.find(u'\0')))
            put(c, 2);
        return put(0, 2);
    }
    // A fixed array of `chars` UTF-16 units (a MOF char16 array with Max):
    // the string shortened to leave its NUL, never inside a surrogate pair,
    // then zeros to the end.
    PayloadBytes &utf16_fixed(std::u16string_view s, std::size_t chars)
    {
        s = s.substr(0, s.find(u'\0'));
        std::size_t n = std::min(s.size(), chars == 0 ? 0 : chars - 1);
        if (n > 0 && n < s.size() && s[n - 1] >= 0xD800 && s[n - 1] <= 0xDBFF)
            --n;
        for (std::size_t i = 0; i < chars; ++i)
            put(i < n ? s[i] : 0, 2);
        return *this;
    }
    std::size_t size() const { return b_.size(); }
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
