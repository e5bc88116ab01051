// One line per record: JSON Lines with the field names of
// etl-samples/README.md (plus payload_size, and payload with --payload), or
// CSV with the same columns.
#pragma once

#include <openetw/openetw.h>

#include "module_map.hpp"

#include <cstddef>
#include <cstdio>
#include <string>

namespace etwdump {

class RecordWriter {
public:
    enum class Format { Jsonl, Csv };
    RecordWriter(std::FILE *out, Format format, bool payload, bool with_file);
    ~RecordWriter();
    void header(); // the CSV column line (nothing for JSONL)
    void write(const etw_record &r, const etw_decoded_event *decoded = nullptr); // decoded: jsonl only
    void flush();
    // JSONL: learns every record's images and names the frames of user
    // stacks ("stack": ["0xADDRESS module!function+0xoff", ...]); null: none.
    void set_modules(ModuleMap *modules) { modules_ = modules; }

private:
    // Each field appends to pending_ directly (no string per field: this
    // runs for every record of files of gigabytes).
    void key(const char *name, std::size_t length);
    template <std::size_t N>
    void key(const char (&name)[N])
    {
        static_assert(N < 48, "key() copies names through a 64-byte buffer");
        key(name, N - 1);
    }
    template <std::size_t N>
    void field(const char (&name)[N], std::uint64_t value)
    {
        key(name);
        number(value);
    }
    template <std::size_t N>
    void signed_field(const char (&name)[N], std::int64_t value)
    {
        key(name);
        signed_number(value);
    }
    template <std::size_t N>
    void text_field(const char (&name)[N], const char *text, std::size_t length)
    {
        key(name);
        text_value(text, length);
    }
    template <std::size_t N>
    void empty(const char (&name)[N])
    {
        if (format_ == Format::Csv)
            key(name);
    }
    void number(std::uint64_t value);
    void signed_number(std::int64_t value);
    void text_value(const char *text, std::size_t length); // quoted in JSON; GUIDs, kinds, hex need no escapes
    void guid(const etw_guid &g);
    void hex(const uint8_t *bytes, uint32_t n);
    // An EVENT_HEADER record's item of that type (null when none).
    static const etw_extended_item *item(const etw_record &r, uint16_t ext_type);
    void hex_field_u64(const char *name, std::size_t length, const etw_extended_item *x);
    void stack_field(const etw_record &r);

    std::FILE *out_;
    Format format_;
    bool payload_;
    bool with_file_;
    bool first_ = true;
    std::string pending_;
    std::string scratch_; // the payload's hex
    ModuleMap *modules_ = nullptr;
};

} // namespace etwdump
