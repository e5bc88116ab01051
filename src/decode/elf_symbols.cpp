#include "decode/elf_symbols.hpp"

#include "format/elf_build_id.hpp"
#include "platform/file_input.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>

#if defined(__GNUC__)
#include <cxxabi.h>
#endif

namespace openetw::decode {

namespace {

std::uint64_t le(const std::vector<std::uint8_t> &b, std::uint64_t at, unsigned n)
{
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i)
        v |= std::uint64_t(b[at + i]) << (8 * i);
    return v;
}

std::string demangle(const std::string &name)
{
#if defined(__GNUC__)
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
    if (status == 0 && d)
        return d.get();
#endif
    return name;
}

constexpr std::uint32_t kPtLoad = 1, kPfX = 1, kShtSymtab = 2, kShtDynsym = 11;
constexpr unsigned kSttFunc = 2, kSttGnuIfunc = 10;

} // namespace

bool ElfSymbols::parse(const std::vector<std::uint8_t> &f, std::string &why)
{
    segments_.clear();
    symbols_.clear();
    build_id_.clear();
    if (f.size() < 0x34 || f[0] != 0x7f || f[1] != 'E' || f[2] != 'L' || f[3] != 'F') {
        why = "not an ELF file";
        return false;
    }
    const bool is64 = f[4] == 2;
    if ((f[4] != 1 && f[4] != 2) || f[5] != 1 || (is64 && f.size() < 0x40)) {
        why = "an ELF file of a class or byte order this does not read";
        return false;
    }
    auto in = [&](std::uint64_t at, std::uint64_t n) { return at <= f.size() && n <= f.size() - at; };
    const unsigned w = is64 ? 8 : 4; // an address's or offset's width
    const std::uint64_t phoff = le(f, is64 ? 0x20 : 0x1C, w), shoff = le(f, is64 ? 0x28 : 0x20, w);
    const std::uint64_t phentsize = le(f, is64 ? 0x36 : 0x2A, 2), phnum = le(f, is64 ? 0x38 : 0x2C, 2);
    const std::uint64_t shentsize = le(f, is64 ? 0x3A : 0x2E, 2), shnum = le(f, is64 ? 0x3C : 0x30, 2);
    bias_ = 0;
    struct Load {
        std::uint64_t offset, vaddr, filesz, memsz, flags, align;
    };
    std::vector<Load> loads;
    if (phentsize >= (is64 ? 56u : 32u) && in(phoff, phentsize * phnum)) {
        for (std::uint64_t i = 0; i < phnum; ++i) {
            const std::uint64_t p = phoff + i * phentsize;
            if (le(f, p, 4) != kPtLoad)
                continue;
            if (is64)
                loads.push_back({le(f, p + 8, 8), le(f, p + 16, 8), le(f, p + 32, 8), le(f, p + 40, 8), le(f, p + 4, 4),
                                 le(f, p + 48, 8)});
            else
                loads.push_back({le(f, p + 4, 4), le(f, p + 8, 4), le(f, p + 16, 4), le(f, p + 20, 4), le(f, p + 24, 4),
                                 le(f, p + 28, 4)});
        }
    }
    // Code with no bytes in the file: a debug file (objcopy --only-keep-debug),
    // whose segments keep their addresses and sizes but not their offsets.
    const bool emptied = std::any_of(loads.begin(), loads.end(),
                                     [](const Load &l) { return (l.flags & kPfX) && l.filesz == 0 && l.memsz != 0; });
    std::uint64_t end = 0;
    for (const Load &l : loads) {
        Segment seg{l.offset, l.vaddr, l.filesz};
        if (emptied) {
            // Where the linker put it: the first offset after the previous
            // segment that is congruent with its address (p_offset = p_vaddr
            // mod p_align, as ELF requires; GNU ld and lld take the first).
            const std::uint64_t a = l.align != 0 && (l.align & (l.align - 1)) == 0 ? l.align : 1;
            seg = {end + ((l.vaddr % a) + a - end % a) % a, l.vaddr, l.memsz};
            end = seg.offset + seg.size;
        }
        if (&l == &loads.front())
            bias_ = seg.vaddr - seg.offset;
        if (seg.size != 0)
            segments_.push_back(seg);
    }
    if (auto id = openetw::format::elf_build_id(f); id.result == openetw::format::ElfBuildId::Result::Found)
        build_id_ = std::move(id.id);
    if (shentsize < (is64 ? 64u : 40u) || !in(shoff, shentsize * shnum))
        return true; // no section table: no symbols
    // .symtab when the file keeps it (all functions), else .dynsym (exported ones).
    for (std::uint32_t want : {kShtSymtab, kShtDynsym}) {
        for (std::uint64_t i = 0; i < shnum && symbols_.empty(); ++i) {
            const std::uint64_t s = shoff + i * shentsize;
            if (le(f, s + 4, 4) != want)
                continue;
            const std::uint64_t off = le(f, s + (is64 ? 24 : 16), w), size = le(f, s + (is64 ? 32 : 20), w);
            const std::uint64_t link = le(f, s + (is64 ? 40 : 24), 4);
            const std::uint64_t entsize = is64 ? 24 : 16;
            if (link >= shnum || !in(off, size))
                continue;
            const std::uint64_t str = shoff + link * shentsize;
            const std::uint64_t str_off = le(f, str + (is64 ? 24 : 16), w), str_size = le(f, str + (is64 ? 32 : 20), w);
            if (!in(str_off, str_size))
                continue;
            for (std::uint64_t k = off; k + entsize <= off + size; k += entsize) {
                const std::uint64_t name = le(f, k, 4);
                const unsigned info = is64 ? f[k + 4] : f[k + 12];
                const std::uint64_t value = is64 ? le(f, k + 8, 8) : le(f, k + 4, 4);
                const std::uint64_t sz = is64 ? le(f, k + 16, 8) : le(f, k + 8, 4);
                const unsigned type = info & 0xf;
                if ((type != kSttFunc && type != kSttGnuIfunc) || value == 0 || name >= str_size)
                    continue;
                const auto first = f.begin() + std::ptrdiff_t(str_off + name);
                const auto last = std::find(first, f.begin() + std::ptrdiff_t(str_off + str_size), std::uint8_t(0));
                symbols_.push_back({value, sz, std::string(first, last)});
            }
        }
        if (!symbols_.empty())
            break;
    }
    std::sort(symbols_.begin(), symbols_.end(), [](const Symbol &a, const Symbol &b) { return a.start < b.start; });
    return true;
}

bool ElfSymbols::load(const std::string &path, std::string &why)
{
    std::vector<std::uint8_t> bytes;
    if (Status st = platform::read_whole(path, kMaxFileBytes, "the ELF file", bytes); !st) {
        why = st.message;
        return false;
    }
    return parse(bytes, why);
}

ElfSymbols ElfSymbols::with_segments_of(const ElfSymbols &image) const
{
    ElfSymbols out = *this;
    out.segments_ = image.segments_;
    out.bias_ = image.bias_;
    return out;
}

std::string ElfSymbols::function_at(std::uint64_t off, std::uint64_t *displacement) const
{
    // The address the code at this file offset runs at (outside every
    // segment: at the first segment's distance, files without program
    // headers and debug files alone).
    std::uint64_t addr = off + bias_;
    for (const Segment &s : segments_)
        if (off >= s.offset && off - s.offset < s.size) {
            addr = off - s.offset + s.vaddr;
            break;
        }
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                               [](std::uint64_t a, const Symbol &s) { return a < s.start; });
    if (it == symbols_.begin())
        return "";
    --it;
    // Sized symbols hold what they cover; a size-0 one (assembly) up to the next.
    if (it->size != 0 && addr - it->start >= it->size)
        return "";
    if (displacement)
        *displacement = addr - it->start;
    return demangle(it->name);
}

} // namespace openetw::decode
