#include "module_map.hpp"

#include "fields.hpp"

#include "format/elf_build_id.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace etwdump {

namespace {

std::string text(const etw_decoded_event &e, const char *name)
{
    const etw_event_property *p = top_property(e, name);
    return p ? p->value : "";
}

std::string base_name(const std::string &path)
{
    const std::size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A property's raw bytes (a GUID's 16 as stored).
std::vector<std::uint8_t> raw(const etw_decoded_event &e, const char *name)
{
    const etw_event_property *p = top_property(e, name);
    if (!p || p->kind != ETW_PROPERTY_KIND_VALUE)
        return {};
    return std::vector<std::uint8_t>(p->data, p->data + p->data_size);
}

constexpr std::size_t kRecordedIdBytes = 20; // GuidSig + Age

// A file's build id as DbgID_RSDS records it: zero-padded or cut to 20 bytes.
std::vector<std::uint8_t> as_recorded(std::vector<std::uint8_t> id)
{
    id.resize(kRecordedIdBytes, 0);
    return id;
}

// The build id a recorded one stands for: 20 bytes, or 16 (an MD5 or UUID
// id) when Age is 0, or 8 (lld's xxhash) when bytes 8..19 are 0 too.
std::vector<std::uint8_t> as_written(const std::vector<std::uint8_t> &recorded)
{
    auto zero = [&](std::size_t from, std::size_t to) {
        return std::all_of(recorded.begin() + std::ptrdiff_t(from), recorded.begin() + std::ptrdiff_t(to),
                           [](std::uint8_t b) { return b == 0; });
    };
    std::size_t n = kRecordedIdBytes;
    if (zero(16, 20))
        n = zero(8, 16) ? 8 : 16;
    return std::vector<std::uint8_t>(recorded.begin(), recorded.begin() + std::ptrdiff_t(n));
}

std::string hex(const std::vector<std::uint8_t> &id) { return id.empty() ? "none" : openetw::format::build_id_hex(id); }

bool starts(const char *s, const char *prefix) { return s && std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

} // namespace

bool ModuleMap::add(const etw_record &r, const etw_decoded_event *e)
{
    if (r.pointer_size == 4 || r.pointer_size == 8)
        pointer_size_ = r.pointer_size;
    if (!e || !e->event_name)
        return false;
    const char *name = e->event_name;
    std::uint64_t pid = 0, base = 0, size = 0;
    if (starts(name, "Process/Start") || starts(name, "Process/DCStart")) {
        if (top_number(*e, "ProcessId", &pid)) {
            Process &p = processes_[std::uint32_t(pid)];
            p.name = text(*e, "ImageFileName");
            p.images.clear(); // a new image (exec): the old one's mappings are gone
        }
        return true;
    }
    if (starts(name, "Image/Load") || starts(name, "Image/DCStart")) {
        if (top_number(*e, "ProcessId", &pid) && top_number(*e, "ImageBase", &base) &&
            top_number(*e, "ImageSize", &size))
            processes_[std::uint32_t(pid)].images.push_back({base, size, text(*e, "FileName"), {}});
        return true;
    }
    if (std::strcmp(name, "ImageID/DbgID_RSDS") == 0) {
        // Written right after its image's record: the process's latest image at that base.
        std::vector<std::uint8_t> guid = raw(*e, "GuidSig"), age = raw(*e, "Age");
        if (top_number(*e, "ProcessId", &pid) && top_number(*e, "ImageBase", &base) && guid.size() == 16 &&
            age.size() == 4) {
            auto &images = processes_[std::uint32_t(pid)].images;
            for (auto im = images.rbegin(); im != images.rend(); ++im)
                if (im->base == base) {
                    guid.insert(guid.end(), age.begin(), age.end());
                    im->build_id = std::move(guid);
                    break;
                }
        }
        return true;
    }
    return false;
}

std::string ModuleMap::process_name(std::uint32_t pid) const
{
    const auto p = processes_.find(pid);
    return p == processes_.end() ? "" : p->second.name;
}

const openetw::decode::ElfSymbols *ModuleMap::load(const std::string &path)
{
    auto [it, fresh] = elf_.try_emplace(path);
    if (fresh) {
        auto s = std::make_unique<openetw::decode::ElfSymbols>();
        std::string why;
        if (s->load(path, why))
            it->second = std::move(s);
    }
    return it->second.get();
}

// The symbols of the file the trace saw: without a recorded build id the
// image's path; with one, the debug file of that id (placed by the image's
// segments when the file at the path is the one traced), else the path if
// its build id is the same. A different file at the path is reported.
const openetw::decode::ElfSymbols *ModuleMap::symbols(const Image &image)
{
    if (image.build_id.empty())
        return load(image.path);
    const std::string key = image.path + '\n' + hex(image.build_id);
    if (auto it = by_identity_.find(key); it != by_identity_.end())
        return it->second;
    const std::string id = hex(as_written(image.build_id));
    const openetw::decode::ElfSymbols *file = load(image.path);
    const bool same = file && as_recorded(file->build_id()) == image.build_id;
    const openetw::decode::ElfSymbols *debug = nullptr;
    const std::string debug_path = debug_dir_ + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
    if (!debug_dir_.empty()) {
        const openetw::decode::ElfSymbols *d = load(debug_path);
        if (d && d->has_symbols() && as_recorded(d->build_id()) == image.build_id)
            debug = d;
    }
    const openetw::decode::ElfSymbols *found = same ? file : nullptr;
    if (debug && same)
        found =
            placed_.emplace_back(std::make_unique<openetw::decode::ElfSymbols>(debug->with_segments_of(*file))).get();
    else if (debug)
        found = debug;
    if (file && !same)
        changed_.push_back("image " + image.path + " changed since the trace (build id " + hex(file->build_id()) +
                           " != " + id +
                           "): " + (debug ? "named from its debug file " + debug_path : "its functions are not named"));
    by_identity_[key] = found;
    return found;
}

ModuleMap::Place ModuleMap::place(std::uint32_t pid, std::uint64_t ip, bool return_address)
{
    // A return address may be the first byte after its function (a call to
    // a function that does not return): the call is the byte before.
    const std::uint64_t at = return_address && ip != 0 ? ip - 1 : ip;
    for (std::uint32_t owner : {pid, 0u}) {
        const auto p = processes_.find(owner);
        if (p == processes_.end())
            continue;
        const auto &images = p->second.images;
        for (auto im = images.rbegin(); im != images.rend(); ++im) {
            if (at < im->base || at - im->base >= im->size)
                continue;
            Place out;
            out.module = base_name(im->path);
            if (const openetw::decode::ElfSymbols *elf = symbols(*im)) {
                out.function = elf->function_at(at - im->base, &out.displacement);
                out.displacement += ip - at;
            }
            if (out.function.empty())
                out.displacement = ip - im->base;
            return out;
        }
    }
    Place out;
    out.kernel = pointer_size_ == 8 ? ip >= 0xFFFF800000000000ull : ip >= 0xC0000000ull;
    return out;
}

std::string ModuleMap::frame_text(std::uint32_t pid, std::uint64_t ip, bool return_address)
{
    const Place p = place(pid, ip, return_address);
    if (p.module.empty())
        return p.kernel ? "[kernel]" : "?";
    char off[32];
    std::snprintf(off, sizeof off, "+0x%llx", static_cast<unsigned long long>(p.displacement));
    return p.module + (p.function.empty() ? "" : "!" + p.function) + off;
}

} // namespace etwdump
