// decode/elf_symbols: the function at a file offset of this very program
// (its own symbol table), and the refusals of what is no ELF file.
#include "decode/elf_symbols.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

extern "C" __attribute__((noinline)) int openetw_elf_symbols_test_marker(int x)
{
    asm volatile("" ::: "memory");
    return x * 3 + 1;
}

using openetw::decode::ElfSymbols;

TEST(ElfSymbols, NamesAFunctionOfThisProgramByFileOffset)
{
    ElfSymbols elf;
    std::string why;
    ASSERT_TRUE(elf.load("/proc/self/exe", why)) << why;
    EXPECT_TRUE(elf.has_symbols());
    EXPECT_FALSE(elf.build_id().empty()); // the toolchain's default --build-id
    Dl_info info{};
    const auto *fn = reinterpret_cast<const char *>(&openetw_elf_symbols_test_marker);
    ASSERT_NE(dladdr(reinterpret_cast<void *>(&openetw_elf_symbols_test_marker), &info), 0);
    // The image's base is where its file offset 0 is mapped (what Image records carry).
    const std::uint64_t off = std::uint64_t(fn - static_cast<const char *>(info.dli_fbase));
    std::uint64_t displacement = 99;
    EXPECT_EQ(elf.function_at(off, &displacement), "openetw_elf_symbols_test_marker");
    EXPECT_EQ(displacement, 0u);
    EXPECT_EQ(elf.function_at(off + 2, &displacement), "openetw_elf_symbols_test_marker");
    EXPECT_EQ(displacement, 2u);
}

TEST(ElfSymbols, RefusesWhatIsNoElfFile)
{
    ElfSymbols elf;
    std::string why;
    EXPECT_FALSE(elf.parse(std::vector<std::uint8_t>(64, 'x'), why));
    EXPECT_EQ(why, "not an ELF file");
    std::vector<std::uint8_t> big_endian(64, 0);
    big_endian[0] = 0x7f, big_endian[1] = 'E', big_endian[2] = 'L', big_endian[3] = 'F', big_endian[4] = 2,
    big_endian[5] = 2;
    EXPECT_FALSE(elf.parse(big_endian, why));
    EXPECT_NE(why.find("byte order"), std::string::npos) << why;
    EXPECT_FALSE(elf.load("/nonexistent/openetw-elf-symbols-test", why));
    EXPECT_NE(why.find("/nonexistent/openetw-elf-symbols-test"), std::string::npos) << why;
    EXPECT_EQ(elf.function_at(0), "");
}
