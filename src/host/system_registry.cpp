#include "host/system_registry.hpp"
#include "host/protocol.hpp"
#include "host/registry_filters.hpp"
#include "host/shared_bytes.hpp"

#include "engine/properties.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace openetw::host {

namespace {

constexpr std::uint32_t kMagic = 0x47455245; // "EREG"
constexpr std::size_t kHeaderBytes = 4096;
constexpr int kLockTimeoutMs = 5000; // longest wait for a registry or request lock

enum SlotState : std::uint32_t { Free = 0, Claimed = 1, Running = 2 };

struct RegistryHeader {
    std::uint32_t magic;
    std::uint32_t layout_version;
    std::uint32_t slot_count;
    std::uint32_t slot_size;
    platform::SharedMutex claim_lock; // guards claims (name and GUID uniqueness)
    // Bumped (and woken) whenever a session's enabled providers change or a
    // session ends: processes with providers re-read the tables then.
    alignas(64) std::atomic<std::uint32_t> enable_seq;
};

} // namespace

struct alignas(64) RegistrySlot {
    std::atomic<std::uint32_t> state;
    std::atomic<std::uint32_t> generation; // bumped at each claim
    std::atomic<std::uint32_t> pub_seq;    // odd while the host rewrites the published part
    std::uint32_t host_pid;
    std::uint64_t host_start;
    std::uint32_t host_uid;
    std::uint32_t name_len;
    std::uint64_t handle;
    etw_guid guid;
    char16_t name[kRegistryNameMax + 1];
    // Published by the host.
    etw_event_trace_properties record;
    std::uint32_t file_len;
    char16_t file[kRegistryNameMax + 1];
    // Providers the session enables and users it grants rights, published
    // by the host (ten_seq odd while it rewrites them).
    std::atomic<std::uint32_t> ten_seq;
    std::uint32_t enable_count;
    EnableRecord enables[kSlotEnables];
    std::uint32_t grant_count;
    GrantRecord grants[kSlotGrants];
    // Capture requests (publish_capture): capture_count requests since the
    // claim; request n is in captures[n % kSlotCaptures] while its seq is n
    // (0 while the host rewrites it).
    std::atomic<std::uint32_t> capture_count;
    struct {
        std::atomic<std::uint32_t> seq;
        CaptureRecord rec;
    } captures[kSlotCaptures];
    FilterTable filters; // the enables' filters, under ten_seq too
};

namespace {

constexpr std::size_t kRegistryBytes = kHeaderBytes + sizeof(RegistrySlot) * kRegistrySlots;
static_assert(sizeof(RegistryHeader) <= kHeaderBytes);

void init_registry(void *base, void *)
{
    auto *h = static_cast<RegistryHeader *>(base);
    platform::shared_mutex_init(&h->claim_lock);
    h->layout_version = kRegistryLayout;
    h->slot_count = kRegistrySlots;
    h->slot_size = sizeof(RegistrySlot);
    h->magic = kMagic; // last: a header with the magic is complete
}

// Copies a length-prefixed name out of shared memory, trusting nothing.
bool copy_name(const std::uint32_t &len_word, const char16_t *src, std::u16string *out)
{
    const std::uint32_t len = load_u32(len_word);
    if (len > kRegistryNameMax)
        return false;
    out->resize(len);
    load_bytes(out->data(), src, len * sizeof(char16_t));
    return true;
}

void store_name(const std::u16string &s, std::uint32_t *len, char16_t *dst)
{
    const std::size_t n = std::min<std::size_t>(s.size(), kRegistryNameMax);
    const char16_t nul = 0;
    store_bytes(dst, s.data(), n * sizeof(char16_t));
    store_bytes(dst + n, &nul, sizeof nul);
    std::atomic_ref<std::uint32_t>(*len).store(std::uint32_t(n), std::memory_order_release);
}

} // namespace

void copy_settings(const etw_event_trace_properties &from, etw_event_trace_properties &to)
{
    to.Wnode.Flags |= ETW_WNODE_FLAG_TRACED_GUID;
    to.Wnode.Guid = from.Wnode.Guid;
    to.Wnode.ClientContext = from.Wnode.ClientContext;
    to.Wnode.HistoricalContext = from.Wnode.HistoricalContext;
    to.BufferSize = from.BufferSize;
    to.MinimumBuffers = from.MinimumBuffers;
    to.MaximumBuffers = from.MaximumBuffers;
    to.MaximumFileSize = from.MaximumFileSize;
    to.LogFileMode = from.LogFileMode;
    to.FlushTimer = from.FlushTimer;
    to.EnableFlags = from.EnableFlags;
    to.AgeLimit = from.AgeLimit;
    to.NumberOfBuffers = from.NumberOfBuffers;
    to.FreeBuffers = from.FreeBuffers;
    to.EventsLost = from.EventsLost;
    to.BuffersWritten = from.BuffersWritten;
    to.LogBuffersLost = from.LogBuffersLost;
    to.RealTimeBuffersLost = from.RealTimeBuffersLost;
    to.LoggerThreadId = from.LoggerThreadId;
}

namespace {

bool registry_usable(const void *base)
{
    const auto *h = static_cast<const RegistryHeader *>(base);
    return h->magic == kMagic && h->layout_version == kRegistryLayout && h->slot_count == kRegistrySlots &&
           h->slot_size == sizeof(RegistrySlot);
}

std::atomic<bool> g_host_process{false};
std::mutex g_registry_mutex;
SystemRegistry *g_registry = nullptr;

} // namespace

void SystemRegistry::become_host() { g_host_process.store(true, std::memory_order_release); }

bool SystemRegistry::is_host_process()
{
    if (g_host_process.load(std::memory_order_acquire))
        return true;
    // OPENETW_HOST=inprocess: the design before the session host, where each
    // process hosts the sessions it starts (they end with it).
    const char *mode = std::getenv("OPENETW_HOST");
    return mode != nullptr && std::strcmp(mode, "inprocess") == 0;
}

SystemRegistry *SystemRegistry::get()
{
    if (SystemRegistry *r = __atomic_load_n(&g_registry, __ATOMIC_ACQUIRE))
        return r;
    if (!platform::shared_registry_supported())
        return nullptr;
    const std::string path = platform::registry_path();
    if (path.empty())
        return nullptr;
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    if (g_registry)
        return g_registry;
    // The host writes the registry; every other process maps it read-only
    // and asks the host for every change. A client finds none until a host
    // made it (get() is asked again then).
    platform::Region r;
    const bool host = is_host_process();
    std::uint32_t owner = platform::effective_user_id();
    etw_status st = host ? platform::registry_create(&r, path, kRegistryBytes, registry_usable, init_registry, nullptr)
                         : platform::registry_open_readonly(&r, path, kRegistryBytes, &owner);
    bool writable = host && st == ETW_OK;
    if (st == ETW_ERROR_ACCESS_DENIED && host && !g_host_process.load())
        // OPENETW_HOST=inprocess in another user's namespace: this process
        // reads it (controls and logs into its sessions with their grants).
        st = platform::registry_open_readonly(&r, path, kRegistryBytes, &owner);
    if (st != ETW_OK)
        return nullptr;
    if (!registry_usable(r.base)) {
        platform::region_unmap(&r);
        return nullptr;
    }
    auto *reg = new SystemRegistry(); // never destroyed: hosts serve until the process ends
    reg->region_ = r;
    reg->path_ = path;
    reg->writable_ = writable;
    reg->owner_ = owner;
    reg->self_start_ = platform::process_start_time(platform::process_id());
    __atomic_store_n(&g_registry, reg, __ATOMIC_RELEASE);
    return reg;
}

RegistrySlot &SystemRegistry::slot(std::uint32_t i) const
{
    return reinterpret_cast<RegistrySlot *>(static_cast<std::uint8_t *>(region_.base) + kHeaderBytes)[i];
}

bool SystemRegistry::host_alive(const RegistrySlot &s) const
{
    const std::uint32_t pid = s.host_pid;
    if (pid == platform::process_id())
        return s.host_start == self_start_;
    return platform::process_start_time(pid) == s.host_start && s.host_start != 0;
}

Status SystemRegistry::claim(const std::u16string &name, const etw_guid &guid, std::uint64_t handle,
                             std::uint32_t *out_slot, std::uint32_t *out_generation)
{
    if (!writable_)
        return Fail(ETW_ERROR_ACCESS_DENIED, "only the session host writes the registry");
    auto *h = static_cast<RegistryHeader *>(region_.base);
    // A dead holder's claim is re-checked below; a lock held for seconds is scribbled or stuck.
    if (platform::shared_mutex_lock(&h->claim_lock, kLockTimeoutMs) == platform::SharedLock::Failed)
        return Fail(ETW_ERROR_TIMEOUT, "the system-wide session registry stayed locked for " +
                                           std::to_string(kLockTimeoutMs / 1000) +
                                           " s (another process holds it, or damaged it)");
    std::uint32_t free_slot = kRegistrySlots;
    Status result;
    for (std::uint32_t i = 0; i < kRegistrySlots && result; ++i) {
        RegistrySlot &s = slot(i);
        const std::uint32_t st = s.state.load(std::memory_order_acquire);
        if (st == Claimed && !host_alive(s))
            s.state.store(Free, std::memory_order_release); // its starter died before publishing
        if (s.state.load(std::memory_order_acquire) == Free) {
            if (free_slot == kRegistrySlots)
                free_slot = i;
            continue;
        }
        if (st != Claimed && st != Running)
            continue; // scribbled: neither usable nor a conflict
        std::u16string other;
        const bool orphan = !host_alive(s);
        if (copy_name(s.name_len, s.name, &other) && session_names_equal(other, name))
            result = Fail(ETW_ERROR_ALREADY_EXISTS,
                          orphan ? "an orphaned session (its host process " + std::to_string(s.host_pid) +
                                       " died) holds that name: stop it first, or start with ETW_SESSION_REPLACE_ORPHAN"
                                 : "a session of process " + std::to_string(s.host_pid) + " already has that name");
        else if (std::memcmp(&s.guid, &guid, sizeof guid) == 0)
            result = Fail(ETW_ERROR_ALREADY_EXISTS,
                          "a session of process " + std::to_string(s.host_pid) + " already has that GUID");
    }
    if (result && free_slot == kRegistrySlots)
        result = Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                      "all " + std::to_string(kRegistrySlots) + " system-wide session slots are in use");
    if (result) {
        RegistrySlot &s = slot(free_slot);
        const std::uint32_t gen = s.generation.load(std::memory_order_relaxed) + 1;
        s.generation.store(gen, std::memory_order_release);
        s.host_pid = platform::process_id();
        s.host_start = self_start_;
        s.host_uid = platform::user_id();
        s.handle = handle;
        s.guid = guid;
        store_name(name, &s.name_len, s.name);
        s.pub_seq.store(0, std::memory_order_relaxed);
        const etw_event_trace_properties none{};
        store_bytes(&s.record, &none, sizeof none);
        std::atomic_ref<std::uint32_t>(s.file_len).store(0, std::memory_order_release);
        s.ten_seq.fetch_add(1, std::memory_order_acq_rel);
        std::atomic_ref<std::uint32_t>(s.enable_count).store(0, std::memory_order_release);
        std::atomic_ref<std::uint32_t>(s.grant_count).store(0, std::memory_order_release);
        s.ten_seq.fetch_add(1, std::memory_order_release);
        s.capture_count.store(0, std::memory_order_release);
        for (auto &c : s.captures)
            c.seq.store(0, std::memory_order_release);
        s.state.store(Claimed, std::memory_order_release);
        *out_slot = free_slot;
        *out_generation = gen;
    }
    platform::shared_mutex_unlock(&h->claim_lock);
    return result;
}

void SystemRegistry::publish(std::uint32_t i, const Properties &props)
{
    if (!writable_)
        return;
    RegistrySlot &s = slot(i);
    s.pub_seq.fetch_add(1, std::memory_order_acq_rel); // odd: being rewritten (the stores below stay after it)
    store_bytes(&s.record, &props.record(), sizeof s.record);
    store_name(props.log_file_name(), &s.file_len, s.file);
    s.pub_seq.fetch_add(1, std::memory_order_release);
    s.state.store(Running, std::memory_order_release);
}

void SystemRegistry::release(std::uint32_t i, std::uint32_t generation)
{
    if (!writable_)
        return;
    RegistrySlot &s = slot(i);
    if (s.generation.load(std::memory_order_acquire) == generation)
        s.state.store(Free, std::memory_order_release);
    bump_enables(); // its providers are disabled
}

bool SystemRegistry::read_entry(std::uint32_t i, RegistryEntry *out)
{
    RegistrySlot &s = slot(i);
    const std::uint32_t g1 = s.generation.load(std::memory_order_acquire);
    if (s.state.load(std::memory_order_acquire) != Running)
        return false;
    RegistryEntry e;
    e.slot = i;
    e.generation = g1;
    if (!copy_name(s.name_len, s.name, &e.name))
        return false;
    e.guid = s.guid;
    e.handle = s.handle;
    e.host_pid = s.host_pid;
    e.host_uid = s.host_uid;
    e.own = s.host_pid == platform::process_id() && s.host_start == self_start_;
    e.orphaned = !host_alive(s);
    if (s.generation.load(std::memory_order_acquire) != g1 || s.state.load(std::memory_order_acquire) != Running)
        return false;
    *out = std::move(e);
    return true;
}

std::vector<RegistryEntry> SystemRegistry::list()
{
    std::vector<RegistryEntry> out;
    for (std::uint32_t i = 0; i < kRegistrySlots; ++i) {
        RegistryEntry e;
        if (read_entry(i, &e))
            out.push_back(std::move(e));
    }
    return out;
}

bool SystemRegistry::find(const std::u16string &name, RegistryEntry *out)
{
    for (std::uint32_t i = 0; i < kRegistrySlots; ++i) {
        RegistryEntry e;
        if (read_entry(i, &e) && session_names_equal(e.name, name)) {
            *out = std::move(e);
            return true;
        }
    }
    return false;
}

void SystemRegistry::remove_stray_regions()
{
    if (!writable_)
        return;
    const auto slash = path_.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : path_.substr(0, slash == 0 ? 1 : slash);
    const std::string prefix = path_.substr(slash == std::string::npos ? 0 : slash + 1) + ".";
    for (const std::string &name : platform::list_folder(folder)) {
        if (name.compare(0, prefix.size(), prefix) != 0)
            continue;
        unsigned slot = 0, generation = 0;
        char tail = 0;
        if (std::sscanf(name.c_str() + prefix.size(), "%u.%u%c", &slot, &generation, &tail) != 2 ||
            slot >= kRegistrySlots)
            continue; // not a region file (the lock, another namespace's file)
        RegistrySlot &s = this->slot(slot);
        const std::uint32_t st = s.state.load(std::memory_order_acquire);
        if ((st == Claimed && host_alive(s)) || st == Running)
            if (s.generation.load(std::memory_order_acquire) == generation)
                continue;
        platform::remove_file(folder + "/" + name);
    }
}

bool SystemRegistry::at(std::uint32_t slot, std::uint32_t generation, RegistryEntry *out)
{
    RegistryEntry e;
    if (slot >= kRegistrySlots || !read_entry(slot, &e) || e.generation != generation)
        return false;
    *out = std::move(e);
    return true;
}

bool SystemRegistry::refresh(RegistryEntry &e)
{
    RegistryEntry now;
    if (e.slot >= kRegistrySlots || !read_entry(e.slot, &now) || now.generation != e.generation)
        return false;
    e.orphaned = now.orphaned;
    return true;
}

bool SystemRegistry::published(const RegistryEntry &e, Properties &props)
{
    RegistrySlot &s = slot(e.slot);
    for (int attempt = 0; attempt < 1000; ++attempt) {
        const std::uint32_t seq = s.pub_seq.load(std::memory_order_acquire);
        if (seq & 1) {
            platform::yield();
            continue;
        }
        etw_event_trace_properties rec;
        load_bytes(&rec, &s.record, sizeof rec);
        std::u16string file;
        const bool ok = copy_name(s.file_len, s.file, &file);
        // The acquire loads above keep this check after them.
        if (s.pub_seq.load(std::memory_order_relaxed) != seq)
            continue;
        if (!ok || s.generation.load(std::memory_order_acquire) != e.generation)
            return false;
        if (props.session_name() != e.name)
            props.assign_session_name(e.name);
        if (props.log_file_name() != file)
            props.assign_log_file_name(file);
        copy_settings(rec, props.record());
        return true;
    }
    return false; // a host that died mid-publish leaves pub_seq odd
}

std::string SystemRegistry::region_path(std::uint32_t slot, std::uint32_t generation) const
{
    return path_ + "." + std::to_string(slot) + "." + std::to_string(generation);
}

namespace {
// Socket names are short (108 bytes): the registry's path goes in hashed (FNV-1a).
std::string path_hash(const std::string &path)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : path)
        h = (h ^ c) * 0x100000001b3ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}
} // namespace

std::string SystemRegistry::channel_name(std::uint32_t slot, std::uint32_t generation) const
{
    return path_hash(path_) + ":" + std::to_string(slot) + ":" + std::to_string(generation);
}

std::string SystemRegistry::host_channel_name(const std::string &registry_path)
{
    return "host:" + path_hash(registry_path);
}

void SystemRegistry::bump_enables()
{
    if (!writable_)
        return;
    auto *h = static_cast<RegistryHeader *>(region_.base);
    h->enable_seq.fetch_add(1, std::memory_order_acq_rel);
    platform::wake_all(&h->enable_seq);
}

std::uint32_t SystemRegistry::enable_sequence() const
{
    return static_cast<const RegistryHeader *>(region_.base)->enable_seq.load(std::memory_order_acquire);
}

void SystemRegistry::wait_enables(std::uint32_t seen, std::int64_t timeout_ms)
{
    platform::wait_on(&static_cast<RegistryHeader *>(region_.base)->enable_seq, seen, timeout_ms);
}

void SystemRegistry::publish_tables(std::uint32_t i, const std::vector<EnableRecord> &enables,
                                    const std::vector<GrantRecord> &grants,
                                    const std::vector<std::vector<std::uint8_t>> &filters)
{
    if (!writable_)
        return;
    RegistrySlot &s = slot(i);
    const std::uint32_t ne = std::uint32_t(std::min<std::size_t>(enables.size(), kSlotEnables));
    const std::uint32_t ng = std::uint32_t(std::min<std::size_t>(grants.size(), kSlotGrants));
    s.ten_seq.fetch_add(1, std::memory_order_acq_rel);
    publish_filters(s.filters, ne, filters);
    if (ne)
        store_bytes(s.enables, enables.data(), ne * sizeof(EnableRecord));
    if (ng)
        store_bytes(s.grants, grants.data(), ng * sizeof(GrantRecord));
    std::atomic_ref<std::uint32_t>(s.enable_count).store(ne, std::memory_order_release);
    std::atomic_ref<std::uint32_t>(s.grant_count).store(ng, std::memory_order_release);
    s.ten_seq.fetch_add(1, std::memory_order_release);
    bump_enables();
}

bool SystemRegistry::tables(const RegistryEntry &e, std::vector<EnableRecord> *enables,
                            std::vector<GrantRecord> *grants, std::vector<std::vector<std::uint8_t>> *filters)
{
    if (e.slot >= kRegistrySlots)
        return false;
    RegistrySlot &s = slot(e.slot);
    for (int attempt = 0; attempt < 1000; ++attempt) {
        const std::uint32_t seq = s.ten_seq.load(std::memory_order_acquire);
        if (seq & 1) {
            platform::yield();
            continue;
        }
        const std::uint32_t ne = load_u32(s.enable_count), ng = load_u32(s.grant_count);
        if (ne > kSlotEnables || ng > kSlotGrants)
            return false; // scribbled
        if (enables) {
            enables->resize(ne);
            load_bytes(enables->data(), s.enables, ne * sizeof(EnableRecord));
        }
        if (grants) {
            grants->resize(ng);
            load_bytes(grants->data(), s.grants, ng * sizeof(GrantRecord));
        }
        if (filters && !read_filters(s.filters, ne, filters))
            return false; // scribbled
        if (s.ten_seq.load(std::memory_order_relaxed) != seq)
            continue;
        return s.generation.load(std::memory_order_acquire) == e.generation;
    }
    return false;
}

void SystemRegistry::publish_capture(std::uint32_t i, const CaptureRecord &rec)
{
    if (!writable_)
        return;
    RegistrySlot &s = slot(i);
    const std::uint32_t n = s.capture_count.load(std::memory_order_acquire) + 1;
    auto &c = s.captures[n % kSlotCaptures];
    c.seq.store(0, std::memory_order_release); // a reader copying the old request throws its copy away
    store_bytes(&c.rec, &rec, sizeof rec);
    c.seq.store(n, std::memory_order_release);
    s.capture_count.store(n, std::memory_order_release);
    bump_enables();
}

bool SystemRegistry::captures(const RegistryEntry &e, std::uint32_t seen, std::uint32_t *count,
                              std::vector<CaptureRecord> *out, std::uint32_t *lost)
{
    out->clear();
    *lost = 0;
    if (e.slot >= kRegistrySlots)
        return false;
    RegistrySlot &s = slot(e.slot);
    const std::uint32_t now = s.capture_count.load(std::memory_order_acquire);
    *count = now;
    if (now - seen > kSlotCaptures) { // also a scribbled count: read what the ring holds
        *lost = now - seen - kSlotCaptures;
        seen = now - kSlotCaptures;
    }
    for (std::uint32_t n = seen + 1; n != now + 1; ++n) {
        auto &c = s.captures[n % kSlotCaptures];
        CaptureRecord rec;
        const bool before = c.seq.load(std::memory_order_acquire) == n;
        load_bytes(&rec, &c.rec, sizeof rec);
        // The acquire loads above keep this check after them.
        if (before && c.seq.load(std::memory_order_relaxed) == n)
            out->push_back(rec);
        else
            ++*lost; // overwritten by a later request meanwhile
    }
    return s.generation.load(std::memory_order_acquire) == e.generation;
}

} // namespace openetw::host
