// Test helpers: kernel records written into a whole .etl file (the format
// tests' FileBuilder), read back through the consumer and decoded by the
// decoder's kernel MOF classes, each record flattened to its header facts,
// its class/opcode name and its (field, text) pairs (the ImageID class too).
#pragma once

#include "../decode/decode_helpers.hpp"
#include "../format/etl_builder.hpp"

#include "decode/image_id_classes.hpp"
#include "decode/kernel_classes.hpp"
#include "kernel/kernel_records.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace kerneltest {

// A SYSTEM_TRACE_HEADER's thread, process and time for the record tests.
inline openetw::kernel::HeaderFields header_of(std::uint32_t thread, std::uint32_t process, std::int64_t timestamp)
{
    openetw::kernel::HeaderFields h;
    h.thread_id = thread;
    h.process_id = process;
    h.timestamp = timestamp;
    return h;
}

using dectest::Pairs;

struct Seen {
    std::uint32_t kind = 0, header_type = 0, pointer_size = 0, header_size = 0;
    std::uint16_t hook_id = 0, version_word = 0;
    std::uint32_t thread_id = 0, process_id = 0, kernel_time = 0, user_time = 0;
    std::int64_t timestamp_raw = 0;
    std::string event_name; // "Process/DCStart"; empty when no class describes it
    std::string problem;    // the decoder's complaint, if any
    std::uint32_t consumed = 0, payload_size = 0;
    Pairs values;

    std::string value(const std::string &name) const
    {
        for (const auto &[k, v] : values)
            if (k == name)
                return v;
        return "<absent>";
    }
};

struct Reader {
    openetw::decode::EventDecoder decoder;
    openetw::decode::DecodedEvent event;
    std::vector<Seen> seen;
    Reader()
    {
        decoder.add_source(std::make_shared<openetw::decode::KernelClasses>());
        decoder.add_source(std::make_shared<openetw::decode::ImageIdClasses>());
    }
};

inline int32_t on_record(void *user, const etw_record *r)
{
    auto *c = static_cast<Reader *>(user);
    if (r->kind == ETW_RECORD_KIND_SYSTEM && r->hook_id == 0 && r->buffer_index == 0)
        return 0; // the logfile header
    Seen s;
    s.kind = r->kind;
    s.header_type = r->header_type;
    s.pointer_size = r->pointer_size;
    s.header_size = r->header_size;
    s.hook_id = r->hook_id;
    s.version_word = r->version_word;
    s.thread_id = r->thread_id;
    s.process_id = r->process_id;
    s.kernel_time = r->kernel_time;
    s.user_time = r->user_time;
    s.timestamp_raw = r->timestamp_raw;
    s.payload_size = r->payload_size;
    openetw::format::Problem problem;
    if (c->decoder.decode(*r, c->event, problem))
        s.values = dectest::flatten(*c->event.schema, c->event.nodes, c->event.payload, c->event.pointer_size);
    else
        s.problem = problem.detail.empty() ? "no schema" : problem.detail;
    if (c->event.schema)
        s.event_name = c->event.schema->event_name;
    s.consumed = c->event.consumed;
    c->seen.push_back(std::move(s));
    return 0;
}

// Writes records into a file of 64 KB buffers of a session with this
// pointer size, reads it back in file order, and returns what was decoded.
inline std::vector<Seen> round_trip(const std::vector<openetw::kernel::Bytes> &records, std::uint32_t pointer_size)
{
    etltest::LogfileSpec spec;
    spec.buffer_size = 65536;
    spec.pointer_size = pointer_size;
    spec.logger_name = "NT Kernel Logger";
    etltest::FileBuilder builder(spec);
    etltest::BufferSpec buffer;
    std::size_t used = 0x48;
    std::uint64_t sequence = 1;
    for (const auto &r : records) {
        EXPECT_FALSE(r.empty()) << "an encoder refused a record";
        const std::size_t aligned = (r.size() + 7) & ~std::size_t(7);
        if (used + aligned > spec.buffer_size) {
            buffer.sequence = sequence++;
            builder.add(std::move(buffer));
            buffer = etltest::BufferSpec{};
            used = 0x48;
        }
        buffer.records.push_back(r);
        used += aligned;
    }
    buffer.sequence = sequence;
    builder.add(std::move(buffer));

    const std::string path =
        (std::filesystem::temp_directory_path() / ("openetw-kernel-test-" + std::to_string(::getpid()) + ".etl"))
            .string();
    etltest::write_file(path, builder.build());
    Reader reader;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE | ETW_CONSUMER_RAW_TIMESTAMP;
    o.record = on_record;
    o.user_data = &reader;
    etw_consumer *consumer = nullptr;
    const char *paths[] = {path.c_str()};
    EXPECT_EQ(etw_consumer_open(&consumer, paths, 1, &o), ETW_OK) << etw_last_error_message();
    if (consumer) {
        EXPECT_EQ(etw_consumer_process(consumer), ETW_OK) << etw_last_error_message();
        etw_consumer_close(consumer);
    }
    std::filesystem::remove(path);
    return std::move(reader.seen);
}

// A pointer field's value as the decoder shows it: hex, cut to 32 bits in a 32-bit layout.
inline std::string ptr_text(std::uint64_t v, std::uint32_t ptr)
{
    char s[32];
    std::snprintf(s, sizeof s, "0x%llX", static_cast<unsigned long long>(ptr == 8 ? v : v & 0xFFFFFFFFu));
    return s;
}

// A PERFINFO record's header as read back (HeaderType from the pointer
// size), and a class that decodes every payload byte.
inline void expect_perfinfo(const Seen &s, std::uint16_t hook, std::uint16_t version, std::uint32_t ptr,
                            std::int64_t timestamp)
{
    EXPECT_EQ(s.kind, ETW_RECORD_KIND_PERFINFO);
    EXPECT_EQ(s.header_type, ptr == 8 ? 0x11u : 0x10u);
    EXPECT_EQ(s.pointer_size, ptr);
    EXPECT_EQ(s.header_size, 0x10u);
    EXPECT_EQ(s.hook_id, hook);
    EXPECT_EQ(s.version_word, version);
    EXPECT_EQ(s.timestamp_raw, timestamp);
    EXPECT_EQ(s.problem, "");
    EXPECT_EQ(s.consumed, s.payload_size) << "the class must account for every payload byte";
}

} // namespace kerneltest
