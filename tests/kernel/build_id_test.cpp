// Build ids (docs/KERNEL_LOGGER.md, "Build ids"): the ELF note reader on
// real programs (linked with a known --build-id, and any file readelf
// reads) and on cut and broken input; the DbgID_RSDS record byte by byte
// in both pointer sizes, and decoded by name; the live source putting the
// kernel's id, else the file's, after each Image/Load; and the rundown's
// ids of mapped files.
#include "kernel_etl.hpp"
#include "perf_records.hpp"

#include "format/elf_build_id.hpp"
#include "format/etl_layout.hpp"
#include "kernel/image_build_id.hpp"
#include "kernel/image_id_records.hpp"
#include "kernel/perf_process_source.hpp"
#include "kernel/rundown.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace openetw::kernel;
using openetw::format::elf_build_id;
using openetw::format::ElfBuildId;
using Result = openetw::format::ElfBuildId::Result;

namespace {

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

Bytes file_bytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The id a meson target was linked with (-Wl,--build-id=0x...), as hex.
std::string linked_id(const char *variable)
{
    std::string v = env(variable);
    return v.rfind("0x", 0) == 0 ? v.substr(2) : v;
}

std::string hex(const Bytes &b) { return openetw::format::build_id_hex(b); }

// What `readelf -n` says the build id is ("" when it says none or is missing).
std::string readelf_id(const std::string &path)
{
    std::string out;
    if (std::FILE *p = ::popen(("readelf -n '" + path + "' 2>/dev/null").c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;)
            out.append(buf, n);
        ::pclose(p);
    }
    const std::size_t at = out.find("Build ID: ");
    if (at == std::string::npos)
        return "";
    const std::size_t from = at + 10;
    return out.substr(from, out.find_first_of(" \n", from) - from);
}

// A reader over bytes that fails the test if asked for anything past them.
ElfBuildId parse_checked(const Bytes &file)
{
    return elf_build_id(file.size(), [&](std::uint64_t offset, std::span<std::uint8_t> out) {
        EXPECT_LE(offset, file.size());
        EXPECT_LE(out.size(), file.size() - std::min<std::uint64_t>(offset, file.size())) << "read past the end";
        if (offset > file.size() || out.size() > file.size() - offset)
            return false;
        if (!out.empty()) // an empty span's data() may be null, which memcpy may not take
            std::memcpy(out.data(), file.data() + offset, out.size());
        return true;
    });
}

void put(Bytes &b, std::size_t at, std::uint64_t v, unsigned n, bool big = false)
{
    for (unsigned i = 0; i < n; ++i)
        b[at + i] = std::uint8_t(v >> (8 * (big ? n - 1 - i : i)));
}

// A minimal 32-bit big-endian ELF file: its header, one PT_NOTE program
// header, and a note area holding a build id of id_size bytes.
Bytes elf32_be(std::size_t id_size)
{
    Bytes f(52 + 32 + 16 + ((id_size + 3) & ~std::size_t(3)), 0);
    const std::uint8_t ident[] = {0x7f, 'E', 'L', 'F', 1, 2, 1};
    std::memcpy(f.data(), ident, sizeof ident);
    put(f, 0x1C, 52, 4, true); // e_phoff
    put(f, 0x2A, 32, 2, true); // e_phentsize
    put(f, 0x2C, 1, 2, true);  // e_phnum
    put(f, 52, 4, 4, true);    // PT_NOTE
    put(f, 56, 84, 4, true);   // p_offset
    put(f, 68, f.size() - 84, 4, true);
    put(f, 80, 4, 4, true); // p_align
    put(f, 84, 4, 4, true); // namesz
    put(f, 88, id_size, 4, true);
    put(f, 92, 3, 4, true); // NT_GNU_BUILD_ID
    std::memcpy(f.data() + 96, "GNU", 4);
    for (std::size_t i = 0; i < id_size; ++i)
        f[100 + i] = std::uint8_t(0xA0 + i);
    return f;
}

} // namespace

// The programs the build links with a given id: the reader finds exactly it.
TEST(BuildId, TheReaderFindsTheIdTheLinkerWrote)
{
    const std::pair<const char *, const char *> programs[] = {
        {"BUILD_ID_PROGRAM_A", "BUILD_ID_A"},          {"BUILD_ID_PROGRAM_B", "BUILD_ID_B"},
        {"BUILD_ID_PROGRAM_A_STRIPPED", "BUILD_ID_A"}, {"BUILD_ID_DEBUG_A", "BUILD_ID_A"},
        {"BUILD_ID_PROGRAM_C_STRIPPED", "BUILD_ID_C"}, {"BUILD_ID_DEBUG_C", "BUILD_ID_C"}};
    for (const auto &[program, variable] : programs) {
        const std::string path = env(program);
        ASSERT_FALSE(path.empty()) << program << " is not set";
        const std::string want = linked_id(variable);
        ASSERT_EQ(want.size(), 40u);
        const ElfBuildId id = parse_checked(file_bytes(path));
        ASSERT_EQ(id.result, Result::Found) << path << ": " << id.why;
        EXPECT_EQ(hex(id.id), want) << path;
        EXPECT_EQ(hex(read_file_build_id(path)), want) << path; // through the file reader
        if (const std::string r = readelf_id(path); !r.empty()) {
            EXPECT_EQ(r, want) << "readelf -n disagrees about " << path;
        }
    }
}

// Any ELF file readelf reads: this test program and the libraries it runs with.
TEST(BuildId, TheReaderAgreesWithReadelf)
{
    if (readelf_id(env("BUILD_ID_PROGRAM_A")).empty())
        GTEST_SKIP() << "readelf is not installed";
    std::vector<std::string> files = {std::filesystem::read_symlink("/proc/self/exe").string()};
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);)
        if (const std::size_t slash = line.find('/');
            slash != std::string::npos && line.find(" r-xp ") != std::string::npos)
            files.push_back(line.substr(slash));
    std::size_t compared = 0;
    for (const std::string &f : files) {
        const std::string want = readelf_id(f);
        const ElfBuildId got = parse_checked(file_bytes(f));
        if (want.empty()) {
            EXPECT_NE(got.result, Result::Found) << f;
            continue;
        }
        ASSERT_EQ(got.result, Result::Found) << f << ": " << got.why;
        EXPECT_EQ(hex(got.id), want) << f;
        ++compared;
    }
    EXPECT_GE(compared, 2u) << "the program and libc at least";
}

// Cut anywhere, a file never gives a wrong id and is never read past its
// end; cut before its note ends, it gives none.
TEST(BuildId, ACutFileGivesNoWrongIdAndIsNotReadPastItsEnd)
{
    const Bytes whole = file_bytes(env("BUILD_ID_PROGRAM_A"));
    const ElfBuildId full = parse_checked(whole);
    ASSERT_EQ(full.result, Result::Found);
    // Where the note's id ends in the file.
    const auto at = std::search(whole.begin(), whole.end(), full.id.begin(), full.id.end());
    ASSERT_NE(at, whole.end());
    const std::size_t note_end = std::size_t(at - whole.begin()) + full.id.size();
    for (std::size_t n = 0; n <= std::min<std::size_t>(whole.size(), note_end + 4096); ++n) {
        const Bytes cut(whole.begin(), whole.begin() + std::ptrdiff_t(n));
        const ElfBuildId r = parse_checked(cut);
        if (n < note_end) {
            EXPECT_NE(r.result, Result::Found) << n;
        }
        if (r.result == Result::Found) {
            EXPECT_EQ(r.id, full.id) << n;
        }
        if (r.result == Result::Malformed) {
            EXPECT_FALSE(r.why.empty()) << n;
        }
    }
    EXPECT_EQ(parse_checked(Bytes(whole.begin(), whole.begin() + 40)).why,
              "the ELF header is cut short (40 of 64 bytes)");
}

TEST(BuildId, MalformedFilesAreRefusedSayingWhy)
{
    const Bytes good = file_bytes(env("BUILD_ID_PROGRAM_A"));
    ASSERT_GE(good.size(), 64u);
    auto refused = [](const Bytes &f) {
        const ElfBuildId r = parse_checked(f);
        EXPECT_EQ(r.result, Result::Malformed);
        EXPECT_TRUE(r.id.empty());
        return r.why;
    };
    Bytes f = good;
    f[1] = 'X';
    EXPECT_EQ(refused(f), "not an ELF file (no \\x7fELF magic)");
    f = good;
    f[4] = 3;
    EXPECT_NE(refused(f).find("class or byte order"), std::string::npos);
    EXPECT_NE(refused(Bytes{0x7f, 'E', 'L', 'F'}).find("not an ELF file"), std::string::npos);
    // Program headers beyond the file, or too small to be any: the note
    // sections still give the id; without them, the refusal says why.
    f = good;
    put(f, 0x20, good.size() - 8, 8);
    EXPECT_EQ(parse_checked(f).id, parse_checked(good).id);
    put(f, 0x28, good.size() + 1, 8); // e_shoff
    EXPECT_EQ(refused(f), "the program header table runs past the end of the file");
    f = good;
    put(f, 0x36, 8, 2);
    put(f, 0x28, 0, 8);
    EXPECT_EQ(refused(f), "program headers of 8 bytes are too small");
    f = good;
    put(f, 0x38, 0, 2); // no program headers
    put(f, 0x3A, 16, 2);
    EXPECT_EQ(refused(f), "section headers of 16 bytes are too small");

    // The 32-bit big-endian file: found; then each of its sizes broken.
    Bytes be = elf32_be(20);
    ElfBuildId ok = parse_checked(be);
    ASSERT_EQ(ok.result, Result::Found) << ok.why;
    EXPECT_EQ(hex(ok.id), "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
    f = be;
    put(f, 68, 4096, 4, true); // p_filesz past the end
    EXPECT_EQ(refused(f), "note segment 0 runs past the end of the file");
    f = be;
    put(f, 84, 1000, 4, true); // namesz
    EXPECT_EQ(refused(f), "a note's name (1000 bytes) runs past its area");
    f = be;
    put(f, 88, 1000, 4, true); // descsz
    EXPECT_EQ(refused(f), "a note's descriptor (1000 bytes) runs past its area");
    f = be;
    put(f, 88, 0, 4, true);
    EXPECT_EQ(refused(f), "the build id note is empty");
    // Another note type: none, not a refusal.
    f = be;
    put(f, 92, 1, 4, true);
    EXPECT_EQ(parse_checked(f).result, Result::None);
}

// Random damage to the headers and notes of a real file (a fixed seed):
// every outcome is an id, none, or a refusal saying why, and nothing is read
// past the end (parse_checked fails the test otherwise; the sanitizer
// stages check the parser's own accesses).
TEST(BuildId, RandomDamageIsRefusedOrReadWithinTheFile)
{
    const Bytes good = file_bytes(env("BUILD_ID_PROGRAM_A"));
    ASSERT_GE(good.size(), 4096u);
    std::mt19937 rng(20260530);
    std::size_t found = 0, refused = 0;
    for (int round = 0; round < 3000; ++round) {
        Bytes f(good.begin(), good.begin() + std::ptrdiff_t(64 + rng() % (good.size() - 64)));
        for (int k = 0, n = 1 + int(rng() % 8); k < n; ++k) {
            // Mostly the ELF header, the program headers and the notes (the first KB).
            const std::size_t at = rng() % 4 == 0 ? rng() % f.size() : rng() % std::min<std::size_t>(f.size(), 1024);
            f[at] = std::uint8_t(rng());
        }
        const ElfBuildId r = parse_checked(f);
        if (r.result == Result::Malformed) {
            EXPECT_FALSE(r.why.empty());
            ++refused;
        }
        if (r.result == Result::Found) {
            EXPECT_FALSE(r.id.empty());
            EXPECT_LE(r.id.size(), f.size());
            ++found;
        }
    }
    EXPECT_GT(found, 0u);
    EXPECT_GT(refused, 0u);
}

// DbgID_RSDS, byte by byte: a 20-byte id whole in GuidSig and Age, in
// both pointer sizes.
TEST(BuildId, DbgIdRsdsRecordFieldByField)
{
    Bytes id(20);
    for (std::size_t i = 0; i < id.size(); ++i)
        id[i] = std::uint8_t(0x11 * (i % 15 + 1));
    for (std::uint32_t ptr : {8u, 4u}) {
        HeaderFields h;
        h.thread_id = 0x1234;
        h.process_id = 0x5678;
        h.timestamp = 0x0123456789AB;
        const Bytes r = dbgid_rsds_record(h, dbgid_from_build_id(id, 0x7f0012345000, 0x5678, "/usr/bin/x"), ptr);
        const std::size_t payload = ptr + 4 + 16 + 4 + 11;
        ASSERT_EQ(r.size(), 0x30 + payload);
        using openetw::etl::rd16;
        using openetw::etl::rd32;
        using openetw::etl::rd64;
        EXPECT_EQ(rd16(r.data()), r.size());
        EXPECT_EQ(r[2], ptr == 8 ? 0x14 : 0x0A); // HeaderType: full header, 64- or 32-bit
        EXPECT_EQ(r[3], 0xC0);                   // MarkerFlags
        EXPECT_EQ(r[4], 36);                     // Class.Type: DbgID_RSDS
        EXPECT_EQ(r[5], 0);                      // Class.Level
        EXPECT_EQ(rd16(r.data() + 6), 2);        // Class.Version
        EXPECT_EQ(rd32(r.data() + 8), 0x1234u);
        EXPECT_EQ(rd32(r.data() + 12), 0x5678u);
        EXPECT_EQ(rd64(r.data() + 16), 0x0123456789ABu);
        const std::uint8_t guid[16] = {0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
                                       0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde};
        EXPECT_EQ(std::memcmp(r.data() + 24, guid, 16), 0) << "the ImageID class GUID";
        EXPECT_EQ(rd64(r.data() + 40), 0u); // KernelTime, UserTime
        const std::uint8_t *p = r.data() + 0x30;
        EXPECT_EQ(ptr == 8 ? rd64(p) : rd32(p), ptr == 8 ? 0x7f0012345000u : 0x12345000u);
        p += ptr;
        EXPECT_EQ(rd32(p), 0x5678u);
        EXPECT_EQ(Bytes(p + 4, p + 20), Bytes(id.begin(), id.begin() + 16)) << "GuidSig: the id's first 16 bytes";
        EXPECT_EQ(Bytes(p + 20, p + 24), Bytes(id.begin() + 16, id.end())) << "Age: the next 4";
        EXPECT_EQ(std::string(reinterpret_cast<const char *>(p + 24)), "/usr/bin/x");
        EXPECT_EQ(r.back(), 0);
    }
}

// A shorter id is zero-padded, a longer one cut; a long name is shortened to fit.
TEST(BuildId, OtherIdSizesAndLongNames)
{
    const Bytes md5 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    DbgIdRsdsFields f = dbgid_from_build_id(md5, 0, 0, "");
    EXPECT_EQ(Bytes(f.guid_sig, f.guid_sig + 16), md5);
    EXPECT_EQ(f.age, 0u);
    const Bytes eight = {1, 2, 3, 4, 5, 6, 7, 8};
    f = dbgid_from_build_id(eight, 0, 0, "");
    EXPECT_EQ(Bytes(f.guid_sig, f.guid_sig + 16), (Bytes{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0}));
    Bytes long_id(32, 0xEE);
    long_id[16] = 0x01;
    long_id[19] = 0x04;
    f = dbgid_from_build_id(long_id, 0, 0, "");
    EXPECT_EQ(f.age, 0x04EEEE01u);
    const Bytes rec = dbgid_rsds_record({}, dbgid_from_build_id(md5, 0, 0, std::string(5000, 'x')), 8, 1000);
    ASSERT_FALSE(rec.empty());
    EXPECT_EQ(rec.size(), 1000u);
    EXPECT_EQ(rec.back(), 0);
}

// Read back through the consumer, the records decode by name with every field.
TEST(BuildId, ImageIdRecordsDecodeByName)
{
    Bytes id(20);
    for (std::size_t i = 0; i < id.size(); ++i)
        id[i] = std::uint8_t(i + 1);
    for (std::uint32_t ptr : {8u, 4u}) {
        HeaderFields h;
        h.thread_id = 7;
        h.process_id = 9;
        h.timestamp = 1000;
        // ImageID/Info as TraceEvent reads it: base, size, pid, TimeDateStamp, name.
        Bytes info;
        auto push = [&](std::uint64_t v, unsigned n) {
            for (unsigned i = 0; i < n; ++i)
                info.push_back(std::uint8_t(v >> (8 * i)));
        };
        push(0x400000, ptr);
        push(0x3000, ptr);
        push(9, 4);
        push(0x5f000000, 4);
        for (char16_t c : std::u16string(u"a.dll"))
            push(c, 2);
        push(0, 2);
        const std::vector<Bytes> records = {
            dbgid_rsds_record(h, dbgid_from_build_id(id, 0x400000, 9, "/opt/a"), ptr),
            encode_classic_record(kImageIdGuid, kImageIdTypeInfo, kImageIdVersion, h, ptr, info)};
        const std::vector<kerneltest::Seen> seen = kerneltest::round_trip(records, ptr);
        ASSERT_EQ(seen.size(), 2u);
        EXPECT_EQ(seen[0].event_name, "ImageID/DbgID_RSDS");
        EXPECT_EQ(seen[0].kind, std::uint32_t(ETW_RECORD_KIND_FULL));
        EXPECT_EQ(seen[0].pointer_size, ptr);
        EXPECT_EQ(seen[0].problem, "");
        EXPECT_EQ(seen[0].consumed, seen[0].payload_size);
        EXPECT_EQ(seen[0].values, (kerneltest::Pairs{{"ImageBase", kerneltest::ptr_text(0x400000, ptr)},
                                                     {"ProcessId", "9"},
                                                     {"GuidSig", "{04030201-0605-0807-090A-0B0C0D0E0F10}"},
                                                     {"Age", "336794129"}, // 0x14131211
                                                     {"PdbFileName", "/opt/a"}}));
        EXPECT_EQ(seen[1].event_name, "ImageID/Info");
        EXPECT_EQ(seen[1].consumed, seen[1].payload_size);
        EXPECT_EQ(seen[1].value("OriginalFileName"), "a.dll");
        EXPECT_EQ(seen[1].value("TimeDateStamp"), "0x5F000000");
    }
}

// The live source: the id the kernel put in MMAP2 (misc bit 14), else the
// one read from the file, follows each Image/Load; none without an id or
// with build ids off.
TEST(BuildId, PerfSourceWritesTheKernelsIdElseTheFiles)
{
    const Bytes kernel_id = {0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x01, 0x02, 0x03, 0x04,
                             0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};
    const Bytes file_id = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xA0,
                           0xB0, 0xC0, 0xD0, 0xE0, 0xF0, 0x01, 0x02, 0x03, 0x04, 0x05};
    std::vector<std::string> files_read;
    PerfSourceOptions o;
    o.read_build_id = [&](const std::string &path) {
        files_read.push_back(path);
        return path == "/opt/none" ? Bytes{} : file_id;
    };
    PerfProcessSource source(o, [](std::uint32_t, openetw::platform::ProcProcess *) { return ETW_ERROR_NOT_FOUND; });
    std::vector<Bytes> out;
    auto sink = [&](Bytes &&r) { out.push_back(std::move(r)); };
    const perftest::Ctx c{300, 300, 5000, 0};
    // The kernel's id in place of maj/min/ino/ino_generation (record offsets 40..64).
    Bytes with_id = perftest::mmap2(300, 300, 0x555500001000, 0x2000, 0x1000, 5, "/opt/kernel", c);
    with_id[5] |= 0x40; // misc (offset 4, 16 bits) |= PERF_RECORD_MISC_MMAP_BUILD_ID
    with_id[40] = 20;   // build_id_size
    with_id[41] = with_id[42] = with_id[43] = 0;
    std::copy(kernel_id.begin(), kernel_id.end(), with_id.begin() + 44);
    source.consume(with_id, sink);
    source.consume(perftest::mmap2(300, 300, 0x7f0000001000, 0x2000, 0x1000, 5, "/opt/file", c), sink);
    source.consume(perftest::mmap2(300, 300, 0x7f0000101000, 0x2000, 0x1000, 5, "/opt/file", c), sink); // cached
    source.consume(perftest::mmap2(300, 300, 0x7f0000201000, 0x2000, 0x1000, 5, "/opt/none", c), sink);
    EXPECT_EQ(files_read, (std::vector<std::string>{"/opt/file", "/opt/none"}));
    EXPECT_EQ(source.counts().build_ids, 3u);
    EXPECT_EQ(source.counts().build_ids_read, 2u);
    const std::vector<kerneltest::Seen> seen = kerneltest::round_trip(out, 8);
    std::vector<std::string> names;
    for (const auto &s : seen)
        names.push_back(s.event_name + " " + s.value("PdbFileName") + " " + s.value("GuidSig"));
    EXPECT_EQ(names, (std::vector<std::string>{
                         "Image/Load <absent> <absent>",
                         "ImageID/DbgID_RSDS /opt/kernel {DDCCBBAA-FFEE-0201-0304-05060708090A}",
                         "Image/Load <absent> <absent>",
                         "ImageID/DbgID_RSDS /opt/file {40302010-6050-8070-90A0-B0C0D0E0F001}",
                         "Image/Load <absent> <absent>",
                         "ImageID/DbgID_RSDS /opt/file {40302010-6050-8070-90A0-B0C0D0E0F001}",
                         "Image/Load <absent> <absent>",
                     }));
    // Same time, thread and process as its image's record, and the image's base.
    EXPECT_EQ(seen[1].timestamp_raw, seen[0].timestamp_raw);
    EXPECT_EQ(seen[1].thread_id, 300u);
    EXPECT_EQ(seen[1].value("ImageBase"), seen[0].value("ImageBase"));
    EXPECT_EQ(seen[1].value("Age"), std::to_string(0x0E0D0C0Bu));

    PerfSourceOptions off = o;
    off.build_ids = false;
    PerfProcessSource quiet(off, [](std::uint32_t, openetw::platform::ProcProcess *) { return ETW_ERROR_NOT_FOUND; });
    out.clear();
    quiet.consume(perftest::mmap2(300, 300, 0x7f0000001000, 0x2000, 0x1000, 5, "/opt/file", c), sink);
    EXPECT_EQ(out.size(), 1u);
    EXPECT_FALSE(quiet.spec({}).mmap_build_id);
    EXPECT_TRUE(source.spec({}).mmap_build_id);
}

// The rundown: a running program's image is followed by its id; once its
// file is deleted (maps says " (deleted)") by none, the file at the path
// being another; and none at all with build ids off.
TEST(BuildId, RundownReadsIdsOfFilesStillMappedOnly)
{
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("openetw-rundown-id-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string program = (dir / "busy").string();
    std::filesystem::copy_file(env("BUILD_ID_PROGRAM_A"), program);
    const pid_t child = ::fork();
    if (child == 0) {
        ::execl(program.c_str(), "busy", "5", static_cast<char *>(nullptr));
        ::_exit(127);
    }
    ASSERT_GT(child, 0);
    // The ids of child's images, in the records of a rundown with these options.
    auto ids_of = [&](RundownOptions o) {
        std::vector<Bytes> records;
        EXPECT_TRUE(rundown(o, [&](Bytes &&r) { records.push_back(std::move(r)); }).is_ok());
        std::map<std::string, std::string> ids; // image file -> GuidSig
        for (const kerneltest::Seen &s : kerneltest::round_trip(records, 8))
            if (s.event_name == "Image/DCStart" && s.value("ProcessId") == std::to_string(child))
                ids[s.value("FileName")] = "";
            else if (s.event_name == "ImageID/DbgID_RSDS" && s.value("ProcessId") == std::to_string(child))
                ids[s.value("PdbFileName")] = s.value("GuidSig");
        return ids;
    };
    // Until the child has exec'ed, its maps show this test program.
    std::map<std::string, std::string> ids;
    for (int i = 0; i < 200 && !ids.contains(program); ++i) {
        ::usleep(10000);
        ids = ids_of({});
    }
    ASSERT_TRUE(ids.contains(program)) << "the child's image was not seen";
    EXPECT_EQ(ids[program], "{9A3E2C5F-1D7B-6E4C-8F0A-2B4C6D8E0F1A}")
        << "the id linked in (" << env("BUILD_ID_A") << ")";
    RundownOptions off;
    off.build_ids = false;
    EXPECT_EQ(ids_of(off)[program], "") << "an id with build ids off";
    std::filesystem::remove(program);
    ids = ids_of({});
    EXPECT_TRUE(ids.contains(program + " (deleted)"));
    EXPECT_EQ(ids[program + " (deleted)"], "") << "an id for a deleted file";
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    std::filesystem::remove_all(dir);
}
