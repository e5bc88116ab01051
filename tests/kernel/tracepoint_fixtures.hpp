// Tracepoint formats and samples for the kernel tests: a real format of
// tests/kernel/tracepoints/ (copied from this kernel's tracefs), a syscalls
// format of named 8-byte arguments, and a sample with named fields set.
#pragma once

#include "../format/etl_builder.hpp"

#include "kernel/tracepoint_format.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace kerneltest {

using openetw::kernel::TracepointField;
using openetw::kernel::TracepointFormat;

// tests/kernel/tracepoints/NAME, parsed (a failure is the test's).
inline TracepointFormat load_format(const std::string &name)
{
    const auto bytes = etltest::read_file(std::string(OPENETW_SOURCE_DIR) + "/tests/kernel/tracepoints/" + name);
    TracepointFormat f;
    EXPECT_TRUE(TracepointFormat::parse(std::string(bytes.begin(), bytes.end()), &f)) << name;
    return f;
}

// A syscalls format: the common fields, __syscall_nr, then 8-byte arguments from 16.
inline TracepointFormat syscall_format(const std::string &name, std::uint32_t id, const std::vector<std::string> &args)
{
    std::string text = "name: " + name + "\nID: " + std::to_string(id) +
                       "\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
                       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
                       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
                       "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n";
    for (std::size_t i = 0; i < args.size(); ++i)
        text += "\tfield:long " + args[i] + ";\toffset:" + std::to_string(16 + 8 * i) + ";\tsize:8;\tsigned:1;\n";
    text += "\nprint fmt: \"\"\n";
    TracepointFormat f;
    EXPECT_TRUE(TracepointFormat::parse(text, &f)) << text;
    return f;
}

// A raw sample of format f with the named fields set (little-endian, as the kernel writes them).
inline std::vector<std::uint8_t> raw_sample(const TracepointFormat &f,
                                            std::initializer_list<std::pair<const char *, std::uint64_t>> values)
{
    std::vector<std::uint8_t> raw(f.fixed_size(), 0);
    for (const auto &[name, v] : values) {
        const TracepointField *field = f.find(name);
        EXPECT_NE(field, nullptr) << name;
        if (field)
            for (std::uint32_t i = 0; i < field->size && i < 8; ++i)
                raw[field->offset + i] = std::uint8_t(v >> (8 * i));
    }
    return raw;
}

} // namespace kerneltest
