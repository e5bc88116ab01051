#include "profile.hpp"

#include "format/elf_build_id.hpp"

#include <algorithm>
#include <cstring>
#include <set>

namespace etwdump {

namespace {

const etw_event_property *prop(const etw_decoded_event &e, const char *name)
{
    for (uint32_t i = 0; i < e.property_count; ++i)
        if (e.properties[i].parent == ETW_PROPERTY_NO_PARENT && std::strcmp(e.properties[i].name, name) == 0)
            return &e.properties[i];
    return nullptr;
}

// An integer property's value from its bytes (little-endian, up to 8).
bool number(const etw_decoded_event &e, const char *name, std::uint64_t *out)
{
    const etw_event_property *p = prop(e, name);
    if (!p || p->kind != ETW_PROPERTY_KIND_VALUE || p->data_size == 0 || p->data_size > 8)
        return false;
    std::uint64_t v = 0;
    for (uint32_t i = 0; i < p->data_size; ++i)
        v |= std::uint64_t(p->data[i]) << (8 * i);
    *out = v;
    return true;
}

std::string text(const etw_decoded_event &e, const char *name)
{
    const etw_event_property *p = prop(e, name);
    return p ? p->value : "";
}

std::string base_name(const std::string &path)
{
    const std::size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// StackWalk's frames: the elements of its Stacks array.
std::vector<std::uint64_t> frames(const etw_decoded_event &e)
{
    std::vector<std::uint64_t> out;
    for (uint32_t i = 0; i < e.property_count; ++i) {
        const etw_event_property &p = e.properties[i];
        if (p.parent == ETW_PROPERTY_NO_PARENT || std::strcmp(e.properties[p.parent].name, "Stacks") != 0 ||
            p.data_size == 0 || p.data_size > 8)
            continue;
        std::uint64_t v = 0;
        for (uint32_t k = 0; k < p.data_size; ++k)
            v |= std::uint64_t(p.data[k]) << (8 * k);
        out.push_back(v);
    }
    return out;
}

// A property's raw bytes (a GUID's 16 as stored).
std::vector<std::uint8_t> raw(const etw_decoded_event &e, const char *name)
{
    const etw_event_property *p = prop(e, name);
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

void Profile::add(const etw_record &r, const etw_decoded_event *e)
{
    if (r.pointer_size == 4 || r.pointer_size == 8)
        pointer_size_ = r.pointer_size;
    if (!e || !e->event_name)
        return;
    const char *name = e->event_name;
    std::uint64_t pid = 0, tid = 0, ip = 0, base = 0, size = 0;
    if (std::strcmp(name, "PerfInfo/SampleProfile") == 0) {
        if (number(*e, "InstructionPointer", &ip) && number(*e, "ThreadId", &tid)) {
            pending_.push_back({std::uint32_t(tid), ip, {}});
            ++samples_;
        }
        return;
    }
    if (std::strcmp(name, "StackWalk/Stack") == 0) {
        if (number(*e, "StackProcess", &pid) && number(*e, "StackThread", &tid)) {
            thread_process_[std::uint32_t(tid)] = std::uint32_t(pid);
            // Written right after its sample: the thread's latest one waiting.
            for (auto s = pending_.rbegin(); s != pending_.rend(); ++s)
                if (s->thread == tid) {
                    s->frames = frames(*e);
                    break;
                }
        }
    } else if (starts(name, "Thread/Start") || starts(name, "Thread/DCStart")) {
        if (number(*e, "ProcessId", &pid) && number(*e, "TThreadId", &tid))
            thread_process_[std::uint32_t(tid)] = std::uint32_t(pid);
    } else if (starts(name, "Process/Start") || starts(name, "Process/DCStart")) {
        if (number(*e, "ProcessId", &pid)) {
            Process &p = processes_[std::uint32_t(pid)];
            p.name = text(*e, "ImageFileName");
            p.images.clear(); // a new image (exec): the old one's mappings are gone
            thread_process_[std::uint32_t(pid)] = std::uint32_t(pid);
        }
    } else if (starts(name, "Image/Load") || starts(name, "Image/DCStart")) {
        if (number(*e, "ProcessId", &pid) && number(*e, "ImageBase", &base) && number(*e, "ImageSize", &size))
            processes_[std::uint32_t(pid)].images.push_back({base, size, text(*e, "FileName"), {}});
    } else if (std::strcmp(name, "ImageID/DbgID_RSDS") == 0) {
        // Written right after its image's record: the process's latest image at that base.
        std::vector<std::uint8_t> guid = raw(*e, "GuidSig"), age = raw(*e, "Age");
        if (number(*e, "ProcessId", &pid) && number(*e, "ImageBase", &base) && guid.size() == 16 && age.size() == 4) {
            auto &images = processes_[std::uint32_t(pid)].images;
            for (auto im = images.rbegin(); im != images.rend(); ++im)
                if (im->base == base) {
                    guid.insert(guid.end(), age.begin(), age.end());
                    im->build_id = std::move(guid);
                    break;
                }
        }
    }
    attribute();
}

// Samples wait for the next record that is not one (an image loaded in the
// same instant comes first), then are filed under their thread's process
// against the images it has then: a pid's images change with its execs.
void Profile::attribute()
{
    for (const Sample &s : pending_) {
        const auto t = thread_process_.find(s.thread);
        const std::uint32_t owner = s.thread == 0 ? 0 : t != thread_process_.end() ? t->second : UINT32_MAX;
        Process &p = processes_[owner];
        ++p.samples;
        ++p.functions[place(owner, s.ip)];
        if (s.frames.empty())
            continue;
        ++p.stacked;
        std::set<std::string> seen; // a recursive function counts once per sample
        for (std::uint64_t frame : s.frames)
            if (auto [where, fresh] = seen.insert(place(owner, frame)); fresh)
                ++p.inclusive[*where];
    }
    pending_.clear();
}

const ElfSymbols *Profile::load(const std::string &path)
{
    auto [it, fresh] = elf_.try_emplace(path);
    if (fresh) {
        auto s = std::make_unique<ElfSymbols>();
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
const ElfSymbols *Profile::symbols(const Image &image)
{
    if (image.build_id.empty())
        return load(image.path);
    const std::string key = image.path + '\n' + hex(image.build_id);
    if (auto it = by_identity_.find(key); it != by_identity_.end())
        return it->second;
    const std::string id = hex(as_written(image.build_id));
    const ElfSymbols *file = load(image.path);
    const bool same = file && as_recorded(file->build_id()) == image.build_id;
    const ElfSymbols *debug = nullptr;
    const std::string debug_path = debug_dir_ + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
    if (!debug_dir_.empty()) {
        const ElfSymbols *d = load(debug_path);
        if (d && d->has_symbols() && as_recorded(d->build_id()) == image.build_id)
            debug = d;
    }
    const ElfSymbols *found = same ? file : nullptr;
    if (debug && same)
        found = placed_.emplace_back(std::make_unique<ElfSymbols>(debug->with_segments_of(*file))).get();
    else if (debug)
        found = debug;
    if (file && !same)
        changed_.push_back("image " + image.path + " changed since the trace (build id " + hex(file->build_id()) +
                           " != " + id +
                           "): " + (debug ? "named from its debug file " + debug_path : "its functions are not named"));
    by_identity_[key] = found;
    return found;
}

// "function\tmodule" of an address in a process: its image (the process's,
// else the kernel's, pid 0), and the ELF symbol there when the image reads.
std::string Profile::place(std::uint32_t pid, std::uint64_t ip)
{
    for (std::uint32_t owner : {pid, 0u}) {
        const auto p = processes_.find(owner);
        if (p == processes_.end())
            continue;
        const auto &images = p->second.images;
        for (auto im = images.rbegin(); im != images.rend(); ++im) {
            if (ip < im->base || ip - im->base >= im->size)
                continue;
            const ElfSymbols *elf = symbols(*im);
            std::string fn = elf ? elf->function_at(ip - im->base) : "";
            return (fn.empty() ? "?" : fn) + "\t" + base_name(im->path);
        }
    }
    const bool kernel = pointer_size_ == 8 ? ip >= 0xFFFF800000000000ull : ip >= 0xC0000000ull;
    return kernel ? "[kernel]\t" : "?\t";
}

void Profile::print(std::FILE *out)
{
    attribute(); // the last samples: no record followed them
    std::fprintf(out, "sampled profile: %llu samples\n", (unsigned long long)samples_);
    for (const std::string &line : changed_)
        std::fprintf(out, "%s\n", line.c_str());
    std::vector<std::pair<std::uint32_t, const Process *>> order;
    for (const auto &[pid, p] : processes_)
        if (p.samples)
            order.emplace_back(pid, &p);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &a, const auto &b) { return a.second->samples > b.second->samples; });
    for (const auto &[pid, p] : order) {
        const std::string who = pid == 0            ? "Idle"
                                : pid == UINT32_MAX ? "(thread of no known process)"
                                                    : (p->name.empty() ? "?" : p->name);
        std::fprintf(out, "process %s %s: %llu samples\n", pid == UINT32_MAX ? "-" : std::to_string(pid).c_str(),
                     who.c_str(), (unsigned long long)p->samples);
        auto rows = [&](std::map<std::string, std::uint64_t> counts, std::uint64_t of) {
            std::vector<std::pair<std::string, std::uint64_t>> fns(counts.begin(), counts.end());
            std::stable_sort(fns.begin(), fns.end(), [](const auto &a, const auto &b) { return a.second > b.second; });
            if (fns.size() > top_)
                fns.resize(top_);
            for (const auto &[where, n] : fns) {
                const std::size_t tab = where.find('\t');
                std::fprintf(out, "  %8llu %5.1f%%  %s  %s\n", (unsigned long long)n, 100.0 * double(n) / double(of),
                             where.substr(0, tab).c_str(), where.substr(tab + 1).c_str());
            }
        };
        rows(p->functions, p->samples);
        if (p->stacked) {
            std::fprintf(out, "  inclusive, of %llu samples with stacks:\n", (unsigned long long)p->stacked);
            rows(p->inclusive, p->stacked);
        }
    }
}

} // namespace etwdump
