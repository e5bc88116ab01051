// One line per record: JSON Lines with the field names of
// etl-samples/README.md (plus payload_size, and payload with --payload), or
// CSV with the same columns.
#pragma once

#include <openetw/openetw.h>

#include <cstdio>
#include <string>

namespace etwdump {

class RecordWriter {
public:
    enum class Format { Jsonl, Csv };
    RecordWriter(std::FILE *out, Format format, bool payload, bool with_file);
    ~RecordWriter();
    void header();                 // the CSV column line (nothing for JSONL)
    void write(const etw_record &r);
    void flush();

private:
    void field(const char *name, uint64_t value);
    void field(const char *name, const std::string &text, bool quoted);
    void empty(const char *name);

    std::FILE *out_;
    Format format_;
    bool payload_;
    bool with_file_;
    bool first_ = true;
    std::string line_;
    std::string pending_;
};

} // namespace etwdump
