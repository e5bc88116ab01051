// --format text: one readable line per record; decoded events show their
// provider, event name and fields, others their payload size. The extended
// items of the enable properties follow on the line (sid=S-1-22-1-1000,
// ts_id, process_start_key, event_key); a stack, one line per frame after
// it, "  stack[i] 0xADDRESS module!function+0xoff", named by the module map
// of the records before it (module_map.hpp).
#pragma once

#include <openetw/openetw.h>

#include "module_map.hpp"

#include <cstdio>
#include <string>

namespace etwdump {

class TextRecordWriter {
public:
    // modules: learns each record (Process and Image records) and names
    // stack frames.
    TextRecordWriter(std::FILE *out, ModuleMap *modules) : out_(out), modules_(modules) {}
    ~TextRecordWriter() { flush(); }
    void write(const etw_record &r, const etw_decoded_event *decoded);
    void flush();

private:
    void event_header_text(const etw_record &r);
    void stack_lines(const etw_record &r);
    std::FILE *out_;
    ModuleMap *modules_;
    std::string pending_;
};

} // namespace etwdump
