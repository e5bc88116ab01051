// The EnableFlags table: names to masks and back, unknown names refused
// with their message, every ETW_FLAG_* of <openetw/constants.h> in the
// table, and docs/KERNEL_LOGGER.md holding the table row for row.
#include "kernel/kernel_flags.hpp"

#include <openetw/constants.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace openetw::kernel;

namespace {

std::string read_text(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::uint32_t parse_ok(const char *text)
{
    std::uint32_t mask = 0xDEADBEEF;
    const openetw::Status s = parse_kernel_flags(text, &mask);
    EXPECT_TRUE(s.is_ok()) << text << ": " << s.message;
    return mask;
}

std::string doc_row(const KernelFlag &f)
{
    char value[16];
    std::snprintf(value, sizeof value, "0x%08X", f.value);
    return std::string("| `") + f.doc_name + "` | " + value + " | `" + f.name + "` | " + f.xperf_name + " | " +
           f.linux_source + " | " + f.windows_class + " |";
}

} // namespace

TEST(KernelFlags, NamesBecomeMasks)
{
    EXPECT_EQ(parse_ok("process,thread,image_load"), ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD);
    EXPECT_EQ(parse_ok(" Disk_IO + file_io | CSWITCH "), ETW_FLAG_DISK_IO | ETW_FLAG_FILE_IO | ETW_FLAG_CSWITCH);
    EXPECT_EQ(parse_ok("EVENT_TRACE_FLAG_NETWORK_TCPIP,profile"), ETW_FLAG_NETWORK_TCPIP | ETW_FLAG_PROFILE);
    // xperf groups: PROC_THREAD is two flags, LOADER the image loads.
    EXPECT_EQ(parse_ok("PROC_THREAD,LOADER"), ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD);
    EXPECT_EQ(parse_ok("NetworkTrace"), ETW_FLAG_NETWORK_TCPIP);
    // Numbers are masks as they are, alone or with names.
    EXPECT_EQ(parse_ok("0x7"), 7u);
    EXPECT_EQ(parse_ok("16,process"), ETW_FLAG_CSWITCH | ETW_FLAG_PROCESS);
    EXPECT_EQ(parse_ok("0"), 0u);
}

TEST(KernelFlags, UnknownNamesAreRefusedByName)
{
    std::uint32_t mask = 123;
    openetw::Status s = parse_kernel_flags("process,proces", &mask);
    EXPECT_EQ(s.code, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(s.message.rfind("unknown kernel flag \"proces\": use a name of docs/KERNEL_LOGGER.md (process, "
                              "thread, image_load,",
                              0),
              0u)
        << s.message;
    EXPECT_EQ(mask, 123u) << "a refused list leaves the mask alone";

    s = parse_kernel_flags("0x1G", &mask);
    EXPECT_EQ(s.code, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(s.message.find("\"0x1G\""), std::string::npos) << s.message;

    s = parse_kernel_flags("process,,thread", &mask);
    EXPECT_EQ(s.code, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(s.message, "kernel flags \"process,,thread\" have an empty name between separators");
    s = parse_kernel_flags("process,", &mask);
    EXPECT_EQ(s.code, ETW_ERROR_INVALID_PARAMETER);

    s = parse_kernel_flags("  ", &mask);
    EXPECT_EQ(s.code, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(s.message, "kernel flags are empty: give names such as process,thread,image_load or a number");
    EXPECT_EQ(mask, 123u);
}

TEST(KernelFlags, MasksBecomeNames)
{
    EXPECT_EQ(format_kernel_flags(ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD),
              "process,thread,image_load");
    EXPECT_EQ(format_kernel_flags(0), "0");
    EXPECT_EQ(format_kernel_flags(ETW_FLAG_DISK_IO | 0x08000000u), "disk_io,0x8000000");
    // Every row's name gives its value back.
    for (const KernelFlag &f : kernel_flags()) {
        EXPECT_EQ(parse_ok(f.name), f.value) << f.name;
        EXPECT_EQ(parse_ok(f.doc_name), f.value) << f.doc_name;
        EXPECT_EQ(format_kernel_flags(f.value), f.name);
    }
    const std::uint32_t all = parse_ok(format_kernel_flags(0xFFFFFFFFu).c_str());
    EXPECT_EQ(all, 0xFFFFFFFFu);
}

// The table holds each ETW_FLAG_* the public header defines, once, with
// its documented name, in value order.
TEST(KernelFlags, EveryDocumentedFlagIsInTheTable)
{
    const std::string header = read_text(std::string(OPENETW_SOURCE_DIR) + "/include/openetw/constants.h");
    ASSERT_FALSE(header.empty());
    const std::regex define(R"(#define ETW_FLAG_([A-Z0-9_]+)\s+0x([0-9A-Fa-f]+)u)");
    std::set<std::uint32_t> defined;
    for (auto it = std::sregex_iterator(header.begin(), header.end(), define); it != std::sregex_iterator(); ++it) {
        const std::uint32_t value = std::uint32_t(std::stoul((*it)[2].str(), nullptr, 16));
        defined.insert(value);
        const KernelFlag *f = find_kernel_flag(value);
        ASSERT_NE(f, nullptr) << "ETW_FLAG_" << (*it)[1] << " is not in the table";
        EXPECT_EQ(std::string(f->doc_name), "EVENT_TRACE_FLAG_" + (*it)[1].str());
    }
    EXPECT_EQ(defined.size(), 31u);
    EXPECT_EQ(kernel_flags().size(), defined.size());
    for (std::size_t i = 1; i < kernel_flags().size(); ++i)
        EXPECT_LT(kernel_flags()[i - 1].value, kernel_flags()[i].value);
    for (const KernelFlag &f : kernel_flags())
        EXPECT_NE(std::string(f.linux_source), "") << f.name;
}

// docs/KERNEL_LOGGER.md is the table's human form: each row as the code has it, and no other.
TEST(KernelFlags, TheDocHoldsTheTable)
{
    const std::string doc = read_text(std::string(OPENETW_SOURCE_DIR) + "/docs/KERNEL_LOGGER.md");
    ASSERT_FALSE(doc.empty());
    for (const KernelFlag &f : kernel_flags())
        EXPECT_NE(doc.find(doc_row(f) + "\n"), std::string::npos) << "docs/KERNEL_LOGGER.md lacks the row\n"
                                                                  << doc_row(f);
    std::size_t rows = 0;
    for (std::size_t at = doc.find("\n| `EVENT_TRACE_FLAG_"); at != std::string::npos;
         at = doc.find("\n| `EVENT_TRACE_FLAG_", at + 1))
        ++rows;
    EXPECT_EQ(rows, kernel_flags().size());
}
