#include "decode/pe_resources.hpp"

#include "decode/value_format.hpp"

#include <algorithm>
#include <set>

namespace openetw::decode {

namespace {

std::uint16_t u16(std::span<const std::uint8_t> b, std::size_t at)
{
    return static_cast<std::uint16_t>(b[at] | b[at + 1] << 8);
}

std::uint32_t u32(std::span<const std::uint8_t> b, std::size_t at)
{
    return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
           static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

bool fits(std::span<const std::uint8_t> b, std::uint64_t at, std::uint64_t size)
{
    return at <= b.size() && size <= b.size() - at;
}

struct Section {
    std::uint32_t rva = 0, raw_size = 0, raw_offset = 0;
};

// Most entries one resource tree may hold in all (a bound on the work a damaged tree causes).
constexpr std::size_t kMaxEntries = 1u << 16;

class Reader {
public:
    Reader(std::span<const std::uint8_t> file, Problem &problem) : file_(file), problem_(problem) {}

    bool run(const ResourceType &type, std::vector<PeResource> &out)
    {
        std::uint32_t rsrc_rva = 0;
        if (!headers(rsrc_rva))
            return false;
        if (rsrc_rva == 0)
            return true; // no resources
        std::uint64_t at = 0, size = 0;
        if (!map(rsrc_rva, 16, at, size))
            return fail(0, text_printf("the resource directory's RVA 0x%x is in no section of the file", rsrc_rva));
        rsrc_ = file_.subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(size));
        rsrc_at_ = static_cast<std::uint32_t>(at);
        std::vector<Entry> types;
        if (!directory(0, types))
            return false;
        for (const Entry &t : types) {
            const bool match = type.name.empty() ? (!t.named && t.id == type.id) : (t.named && t.name == type.name);
            if (!match)
                continue;
            if (!t.subdirectory)
                return fail(rsrc_at_, "resource type entry points at data, not at a directory of names");
            std::vector<Entry> names;
            if (!directory(t.offset, names))
                return false;
            for (const Entry &n : names) {
                if (!n.subdirectory)
                    return fail(std::uint64_t{rsrc_at_} + n.offset,
                                "resource name entry points at data, not at a directory of languages");
                std::vector<Entry> languages;
                if (!directory(n.offset, languages))
                    return false;
                for (const Entry &l : languages) {
                    if (l.subdirectory)
                        return fail(std::uint64_t{rsrc_at_} + l.offset,
                                    "the resource tree is deeper than type / name / language");
                    PeResource r;
                    r.id = n.named ? 0 : n.id;
                    r.name = n.named ? n.name : std::string();
                    r.language = l.id;
                    if (!data(l.offset, r.data))
                        return false;
                    out.push_back(std::move(r));
                }
            }
        }
        return true;
    }

private:
    struct Entry {
        bool named = false;
        std::uint32_t id = 0;
        std::string name;
        bool subdirectory = false;
        std::uint32_t offset = 0; // from the start of the resource directory
    };

    bool fail(std::uint64_t at, const std::string &what)
    {
        problem_.set(ETW_ERROR_INVALID_DATA, static_cast<std::uint32_t>(at),
                     "PE: " + what + text_printf(" (file offset 0x%llx)", static_cast<unsigned long long>(at)));
        return false;
    }

    bool headers(std::uint32_t &rsrc_rva)
    {
        if (file_.size() < 64 || file_[0] != 'M' || file_[1] != 'Z')
            return fail(0, "the file does not start with a DOS header (\"MZ\", 64 bytes)");
        const std::uint32_t pe = u32(file_, 0x3C);
        if (!fits(file_, pe, 24) || u32(file_, pe) != 0x00004550)
            return fail(0x3C,
                        text_printf("e_lfanew 0x%x does not point at a \"PE\\0\\0\" signature and file header", pe));
        const std::uint16_t sections = u16(file_, pe + 6);
        const std::uint16_t optional_size = u16(file_, pe + 20);
        const std::uint64_t opt = std::uint64_t{pe} + 24;
        if (!fits(file_, opt, optional_size) || optional_size < 2)
            return fail(pe + 20, text_printf("the optional header (%u bytes) does not fit in the file", optional_size));
        const std::uint16_t magic = u16(file_, static_cast<std::size_t>(opt));
        std::uint32_t dirs_at = 0;
        if (magic == 0x10B)
            dirs_at = 96; // PE32
        else if (magic == 0x20B)
            dirs_at = 112; // PE32+
        else
            return fail(opt,
                        text_printf("optional header magic 0x%x is neither PE32 (0x10b) nor PE32+ (0x20b)", magic));
        if (optional_size < dirs_at)
            return fail(pe + 20,
                        text_printf("the optional header (%u bytes) ends before its data directories", optional_size));
        const std::uint32_t dir_count = u32(file_, static_cast<std::size_t>(opt + dirs_at - 4));
        // IMAGE_DIRECTORY_ENTRY_RESOURCE is entry 2.
        if (dir_count > 2 && dirs_at + 3 * 8 <= optional_size)
            rsrc_rva = u32(file_, static_cast<std::size_t>(opt + dirs_at + 16));
        const std::uint64_t table = opt + optional_size;
        if (!fits(file_, table, std::uint64_t{sections} * 40))
            return fail(table, text_printf("the section table (%u sections) does not fit in the file", sections));
        for (std::uint16_t i = 0; i < sections; ++i) {
            const std::size_t s = static_cast<std::size_t>(table + 40u * i);
            sections_.push_back({u32(file_, s + 12), u32(file_, s + 16), u32(file_, s + 20)});
        }
        return true;
    }

    // The file offset of `rva` and how many bytes of its section follow it in the file.
    bool map(std::uint32_t rva, std::uint32_t need, std::uint64_t &at, std::uint64_t &available) const
    {
        for (const Section &s : sections_) {
            if (rva < s.rva || rva - s.rva >= s.raw_size)
                continue;
            const std::uint64_t offset = std::uint64_t{s.raw_offset} + (rva - s.rva);
            const std::uint64_t end = std::min<std::uint64_t>(std::uint64_t{s.raw_offset} + s.raw_size, file_.size());
            if (offset >= end || end - offset < need)
                return false;
            at = offset;
            available = end - offset;
            return true;
        }
        return false;
    }

    bool directory(std::uint32_t offset, std::vector<Entry> &out)
    {
        if (!seen_.insert(offset).second)
            return fail(std::uint64_t{rsrc_at_} + offset,
                        text_printf("resource directory at 0x%x is reached twice (a loop)", offset));
        if (!fits(rsrc_, offset, 16))
            return fail(rsrc_at_,
                        text_printf("resource directory offset 0x%x is outside the resource section", offset));
        const std::uint32_t count = std::uint32_t{u16(rsrc_, offset + 12)} + u16(rsrc_, offset + 14);
        if (!fits(rsrc_, std::uint64_t{offset} + 16, std::uint64_t{count} * 8))
            return fail(
                std::uint64_t{rsrc_at_} + offset,
                text_printf("resource directory at 0x%x has %u entries, more than the section holds", offset, count));
        entries_ += count;
        if (entries_ > kMaxEntries)
            return fail(std::uint64_t{rsrc_at_} + offset,
                        text_printf("the resource tree has more than %zu entries", kMaxEntries));
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::size_t e = offset + 16 + 8 * i;
            const std::uint32_t name = u32(rsrc_, e), target = u32(rsrc_, e + 4);
            Entry entry;
            entry.subdirectory = (target & 0x80000000u) != 0;
            entry.offset = target & 0x7FFFFFFFu;
            if (name & 0x80000000u) {
                entry.named = true;
                const std::uint32_t at = name & 0x7FFFFFFFu;
                if (!fits(rsrc_, at, 2) || !fits(rsrc_, std::uint64_t{at} + 2, std::uint64_t{u16(rsrc_, at)} * 2))
                    return fail(std::uint64_t{rsrc_at_} + e,
                                text_printf("resource name at 0x%x is outside the resource section", at));
                decode::append_utf16le(rsrc_.data() + at + 2, u16(rsrc_, at) * 2u, entry.name);
            } else {
                entry.id = name;
            }
            out.push_back(std::move(entry));
        }
        return true;
    }

    bool data(std::uint32_t offset, std::span<const std::uint8_t> &out)
    {
        if (!fits(rsrc_, offset, 16))
            return fail(rsrc_at_,
                        text_printf("resource data entry offset 0x%x is outside the resource section", offset));
        const std::uint32_t rva = u32(rsrc_, offset), size = u32(rsrc_, offset + 4);
        std::uint64_t at = 0, available = 0;
        if (!map(rva, 0, at, available) || available < size)
            return fail(std::uint64_t{rsrc_at_} + offset,
                        text_printf("resource data (RVA 0x%x, %u bytes) is not in the file", rva, size));
        out = file_.subspan(static_cast<std::size_t>(at), size);
        return true;
    }

    std::span<const std::uint8_t> file_;
    Problem &problem_;
    std::vector<Section> sections_;
    std::span<const std::uint8_t> rsrc_;
    std::uint32_t rsrc_at_ = 0;
    std::set<std::uint32_t> seen_;
    std::size_t entries_ = 0;
};

} // namespace

bool pe_resources(std::span<const std::uint8_t> file, const ResourceType &type, std::vector<PeResource> &out,
                  Problem &problem)
{
    Reader reader(file, problem);
    return reader.run(type, out);
}

} // namespace openetw::decode
