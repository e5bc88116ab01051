#include "format/elf_build_id.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::format {

namespace {

constexpr std::uint32_t kPtNote = 4, kShtNote = 7, kNtGnuBuildId = 3;

using Result = ElfBuildId::Result;

ElfBuildId refuse(std::string why)
{
    ElfBuildId r;
    r.result = Result::Malformed;
    r.why = std::move(why);
    return r;
}

struct Bytes {
    std::span<const std::uint8_t> b;
    bool big;
    std::uint64_t get(std::size_t at, unsigned n) const
    {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < n; ++i)
            v |= std::uint64_t(b[at + i]) << (8 * (big ? n - 1 - i : i));
        return v;
    }
};

// A table of count entries of entsize bytes at off: inside the file (and
// of a size a header table can have: 16-bit counts of 16-bit sizes)?
bool table_fits(std::uint64_t off, std::uint64_t entsize, std::uint64_t count, std::uint64_t size)
{
    return off <= size && (count == 0 || entsize <= (size - off) / count) && entsize * count <= kMaxElfNoteArea * 16;
}

struct Area {
    std::uint64_t offset, size, align;
    const char *what; // "segment" or "section"
    std::uint64_t index;
};

// Reads each area's notes: the first build id found, else the first refusal, else None.
ElfBuildId search(const std::vector<Area> &areas, std::uint64_t size, bool big, const ElfReadAt &read)
{
    ElfBuildId first_refusal;
    for (const Area &a : areas) {
        const std::string name = std::string("note ") + a.what + " " + std::to_string(a.index);
        ElfBuildId r;
        if (a.offset > size || a.size > size - a.offset) {
            r = refuse(name + " runs past the end of the file");
        } else if (a.size > kMaxElfNoteArea) {
            r = refuse(name + " is larger than " + std::to_string(kMaxElfNoteArea) + " bytes");
        } else {
            std::vector<std::uint8_t> notes(a.size);
            if (!read(a.offset, notes))
                r = refuse(name + " cannot be read");
            else
                r = elf_note_build_id(notes, a.align, big);
        }
        if (r.result == Result::Found)
            return r;
        if (r.result == Result::Malformed && first_refusal.result != Result::Malformed)
            first_refusal = std::move(r);
    }
    return first_refusal;
}

} // namespace

ElfBuildId elf_note_build_id(std::span<const std::uint8_t> notes, std::uint64_t align, bool big_endian)
{
    align = align == 8 ? 8 : 4; // 0, 1, 2 and 4 all mean 4-byte padding in practice
    const Bytes n{notes, big_endian};
    auto padded = [&](std::uint64_t v) { return (v + align - 1) / align * align; };
    std::uint64_t at = 0;
    const std::uint64_t size = notes.size();
    while (size - at >= 12) {
        const std::uint64_t namesz = n.get(at, 4), descsz = n.get(at + 4, 4), type = n.get(at + 8, 4);
        const std::uint64_t name_at = at + 12;
        if (namesz > size - name_at)
            return refuse("a note's name (" + std::to_string(namesz) + " bytes) runs past its area");
        const std::uint64_t desc_at = name_at + padded(namesz);
        if (desc_at > size || descsz > size - desc_at)
            return refuse("a note's descriptor (" + std::to_string(descsz) + " bytes) runs past its area");
        if (type == kNtGnuBuildId && namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0) {
            if (descsz == 0)
                return refuse("the build id note is empty");
            ElfBuildId r;
            r.result = Result::Found;
            r.id.assign(notes.begin() + std::ptrdiff_t(desc_at), notes.begin() + std::ptrdiff_t(desc_at + descsz));
            return r;
        }
        at = std::min(size, desc_at + padded(descsz));
    }
    return {};
}

ElfBuildId elf_build_id(std::uint64_t size, const ElfReadAt &read)
{
    std::uint8_t head[64];
    if (size < 16)
        return refuse("not an ELF file (" + std::to_string(size) + " bytes)");
    if (!read(0, std::span(head, 16)))
        return refuse("its header cannot be read");
    if (head[0] != 0x7f || head[1] != 'E' || head[2] != 'L' || head[3] != 'F')
        return refuse("not an ELF file (no \\x7fELF magic)");
    if ((head[4] != 1 && head[4] != 2) || (head[5] != 1 && head[5] != 2))
        return refuse("an ELF class or byte order that is none of 32/64-bit, little/big-endian");
    const bool is64 = head[4] == 2, big = head[5] == 2;
    const std::size_t ehsize = is64 ? 64 : 52;
    if (size < ehsize)
        return refuse("the ELF header is cut short (" + std::to_string(size) + " of " + std::to_string(ehsize) +
                      " bytes)");
    if (!read(16, std::span(head + 16, ehsize - 16)))
        return refuse("its header cannot be read");
    const Bytes h{std::span<const std::uint8_t>(head, ehsize), big};
    const unsigned w = is64 ? 8 : 4;
    const std::uint64_t phoff = h.get(is64 ? 0x20 : 0x1C, w), shoff = h.get(is64 ? 0x28 : 0x20, w);
    const std::uint64_t phentsize = h.get(is64 ? 0x36 : 0x2A, 2), phnum = h.get(is64 ? 0x38 : 0x2C, 2);
    const std::uint64_t shentsize = h.get(is64 ? 0x3A : 0x2E, 2), shnum = h.get(is64 ? 0x3C : 0x30, 2);

    // PT_NOTE segments: where the loader (and the kernel's build id reader) looks.
    std::vector<Area> areas;
    ElfBuildId table_refusal;
    if (phnum != 0) {
        if (phentsize < (is64 ? 56u : 32u))
            table_refusal = refuse("program headers of " + std::to_string(phentsize) + " bytes are too small");
        else if (!table_fits(phoff, phentsize, phnum, size))
            table_refusal = refuse("the program header table runs past the end of the file");
        else {
            std::vector<std::uint8_t> ph(phentsize * phnum);
            if (!read(phoff, ph))
                return refuse("the program header table cannot be read");
            const Bytes p{ph, big};
            for (std::uint64_t i = 0; i < phnum; ++i) {
                const std::size_t e = std::size_t(i * phentsize);
                if (p.get(e, 4) != kPtNote)
                    continue;
                if (is64)
                    areas.push_back({p.get(e + 8, 8), p.get(e + 32, 8), p.get(e + 48, 8), "segment", i});
                else
                    areas.push_back({p.get(e + 4, 4), p.get(e + 16, 4), p.get(e + 28, 4), "segment", i});
            }
        }
    }
    ElfBuildId r = search(areas, size, big, read);
    if (r.result == Result::Found)
        return r;
    if (r.result != Result::Malformed)
        r = std::move(table_refusal);

    // SHT_NOTE sections: what a file without such segments (a .debug file) keeps.
    areas.clear();
    if (shnum != 0 && shoff != 0) {
        if (shentsize < (is64 ? 64u : 40u))
            return r.result == Result::Malformed
                       ? r
                       : refuse("section headers of " + std::to_string(shentsize) + " bytes are too small");
        if (!table_fits(shoff, shentsize, shnum, size))
            return r.result == Result::Malformed ? r : refuse("the section header table runs past the end of the file");
        std::vector<std::uint8_t> sh(shentsize * shnum);
        if (!read(shoff, sh))
            return refuse("the section header table cannot be read");
        const Bytes s{sh, big};
        for (std::uint64_t i = 0; i < shnum; ++i) {
            const std::size_t e = std::size_t(i * shentsize);
            if (s.get(e + 4, 4) != kShtNote)
                continue;
            if (is64)
                areas.push_back({s.get(e + 24, 8), s.get(e + 32, 8), s.get(e + 48, 8), "section", i});
            else
                areas.push_back({s.get(e + 16, 4), s.get(e + 20, 4), s.get(e + 32, 4), "section", i});
        }
    }
    ElfBuildId from_sections = search(areas, size, big, read);
    if (from_sections.result == Result::Found || r.result != Result::Malformed)
        return from_sections;
    return r;
}

ElfBuildId elf_build_id(std::span<const std::uint8_t> file)
{
    return elf_build_id(file.size(), [file](std::uint64_t offset, std::span<std::uint8_t> out) {
        if (offset > file.size() || out.size() > file.size() - offset)
            return false;
        std::memcpy(out.data(), file.data() + offset, out.size());
        return true;
    });
}

std::string build_id_hex(std::span<const std::uint8_t> id)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s;
    for (std::uint8_t b : id) {
        s += kDigits[b >> 4];
        s += kDigits[b & 15];
    }
    return s;
}

} // namespace openetw::format
