// A tracepoint's sample layout, from the format text tracefs publishes
// (events/<system>/<name>/format, platform/tracefs.hpp): one
// "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line per field,
// including __data_loc strings and fixed arrays. The readers take a raw
// sample (the bytes perf_event_open's PERF_SAMPLE_RAW gives) and refuse a
// field the sample is too short to hold: nothing is read past its end.
// Pure: no I/O.
#pragma once

#include "base/status.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace openetw::kernel {

struct TracepointField {
    std::string name;            // "prev_state", "cmd"
    std::string type;            // "long", "char", "__data_loc char[]", "const void *"
    std::uint32_t offset = 0;    // from the start of the sample (common_type is at 0)
    std::uint32_t size = 0;      // bytes in the sample (4 for a __data_loc word)
    bool is_signed = false;      // signed:1
    std::uint32_t array_len = 0; // N of "name[N]"; 0 for a scalar
    bool data_loc = false;       // __data_loc: a word (length << 16 | offset) locating the data
    bool rel_loc = false;        // __rel_loc: the same with the offset counted from the word's end
};

class TracepointFormat {
public:
    // Parses format text; a malformed text is refused with
    // ETW_ERROR_INVALID_DATA and a sentence naming the line.
    static Status parse(std::string_view text, TracepointFormat *out);

    const std::string &name() const { return name_; }
    std::uint32_t id() const { return id_; }
    const std::vector<TracepointField> &fields() const { return fields_; }
    const TracepointField *find(std::string_view name) const;
    // The bytes a sample needs to hold every fixed field.
    std::uint32_t fixed_size() const { return fixed_size_; }

    // Typed readers; empty when the field is absent (nullptr) or the
    // sample too short. Integers of 1, 2, 4 or 8 bytes, little-endian as
    // the kernel of this machine writes them; signed ones sign-extended.
    static std::optional<std::uint64_t> read_unsigned(std::span<const std::uint8_t> sample, const TracepointField *f);
    static std::optional<std::int64_t> read_signed(std::span<const std::uint8_t> sample, const TracepointField *f);
    // A char array or __data_loc string, up to its first NUL.
    static std::optional<std::string> read_string(std::span<const std::uint8_t> sample, const TracepointField *f);
    // The raw bytes of a field (an array such as saddr[4]), or the data a
    // __data_loc word locates.
    static std::optional<std::span<const std::uint8_t>> read_bytes(std::span<const std::uint8_t> sample,
                                                                   const TracepointField *f);

    // By name: the same readers after find().
    std::optional<std::uint64_t> u(std::span<const std::uint8_t> s, std::string_view field) const
    {
        return read_unsigned(s, find(field));
    }
    std::optional<std::int64_t> i(std::span<const std::uint8_t> s, std::string_view field) const
    {
        return read_signed(s, find(field));
    }
    std::optional<std::string> str(std::span<const std::uint8_t> s, std::string_view field) const
    {
        return read_string(s, find(field));
    }

private:
    std::string name_;
    std::uint32_t id_ = 0;
    std::vector<TracepointField> fields_;
    std::uint32_t fixed_size_ = 0;
};

} // namespace openetw::kernel
