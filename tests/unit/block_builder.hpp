// Builds EVENT_TRACE_PROPERTIES blocks byte by byte, so tests can place
// names and offsets anywhere, including where the rules forbid.
#pragma once

#include <openetw/openetw.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace testutil {

struct BlockBuilder {
    etw_event_trace_properties rec{};
    std::vector<std::uint8_t> bytes;

    explicit BlockBuilder(std::size_t size = 1024) : bytes(size, 0)
    {
        rec.Wnode.BufferSize = static_cast<std::uint32_t>(size);
        rec.Wnode.Flags = ETW_WNODE_FLAG_TRACED_GUID;
        rec.Wnode.ClientContext = ETW_CLOCK_QPC;
        rec.BufferSize = 64;
        rec.LogFileMode = ETW_REAL_TIME_MODE;
        name_at(&rec.LoggerNameOffset, 120, u"Session");
    }

    // Writes a UTF-16LE name (NUL-terminated unless terminate is false) at offset.
    void put(std::size_t offset, const std::u16string &name, bool terminate = true)
    {
        std::u16string s = name;
        if (terminate)
            s.push_back(u'\0');
        for (std::size_t i = 0; i < s.size(); ++i) {
            bytes.at(offset + 2 * i) = static_cast<std::uint8_t>(s[i] & 0xFF);
            bytes.at(offset + 2 * i + 1) = static_cast<std::uint8_t>(s[i] >> 8);
        }
    }

    void name_at(std::uint32_t *offset_field, std::uint32_t offset, const std::u16string &name)
    {
        *offset_field = offset;
        put(offset, name);
    }

    void file(std::uint32_t offset, const std::u16string &name) { name_at(&rec.LogFileNameOffset, offset, name); }

    std::vector<std::uint8_t> build() const
    {
        std::vector<std::uint8_t> out = bytes;
        std::memcpy(out.data(), &rec, sizeof rec);
        return out;
    }
};

} // namespace testutil
