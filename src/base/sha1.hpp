// SHA-1 (FIPS 180-4), for name-derived GUIDs (TraceLogging / EventSource
// provider ids, RFC 4122 version 5): not for security.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openetw {

class Sha1 {
public:
    void update(const void *data, std::size_t size) noexcept;
    // The 20-byte digest; the object is spent.
    void finish(std::uint8_t out[20]) noexcept;

private:
    void block(const std::uint8_t *p) noexcept;
    std::uint32_t h_[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    std::uint8_t buf_[64] = {};
    std::size_t used_ = 0;
    std::uint64_t total_ = 0;
};

} // namespace openetw
