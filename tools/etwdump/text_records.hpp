// --format text: one readable line per record; decoded events show their
// provider, event name and fields, others their payload size.
#pragma once

#include <openetw/openetw.h>

#include <cstdio>
#include <string>

namespace etwdump {

class TextRecordWriter {
public:
    explicit TextRecordWriter(std::FILE *out) : out_(out) {}
    ~TextRecordWriter() { flush(); }
    void write(const etw_record &r, const etw_decoded_event *decoded);
    void flush();

private:
    void event_header_text(const etw_record &r);
    std::FILE *out_;
    std::string pending_;
};

} // namespace etwdump
