// The write path: an event from the provider's call to its committed record
// (docs/ENGINE.md, "Reservation" and "Owned buffers"). Engine::trace_event
// and the Session writes are in one file so that the common event
// (Session::write_whole) is one frame: the compiler inlines it into
// Engine::trace_event, which it cannot across files.
#include "engine/engine.hpp"
#include "engine/activity_id.hpp"
#include "engine/event_properties.hpp"
#include "engine/grace.hpp"
#include "engine/remote_writers.hpp"
#include "engine/session.hpp"
#include "format/etl_writer.hpp"
#include "platform/clock.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

#include <openetw/constants.h>

#include <bit>
#include <climits>
#include <cstddef>
#include <cstring>

namespace openetw::engine {

namespace {

constexpr std::int64_t kTick = 156250; // TimerResolution, 100 ns units

struct ThreadTimes {
    // When the sample was taken, in the unit of the clock that asked for it:
    // [0] 100 ns, [1] cycle-counter ticks (the first call of each samples).
    std::int64_t sampled_at[2] = {-kTick, INT64_MIN};
    // The header's times word, by kind (an index, not a branch, per event):
    // [0] KernelTime | UserTime << 32, in ticks; [1] ProcessorTime, kernel +
    // user in 100 ns (private sessions).
    std::uint64_t times[2] = {0, 0};
};
thread_local ThreadTimes t_times OPENETW_FAST_TLS;

// Kernel/user CPU time of the calling thread, sampled at most once per tick
// (the sample is a system call; the unit of KernelTime/UserTime is a tick).
// now: the event's own timestamp (no extra clock read), in `unit` (an index
// of sampled_at), of which `interval` make a tick.
inline const ThreadTimes &sample_times(std::int64_t now, unsigned unit, std::uint64_t interval) noexcept
{
    ThreadTimes &t = t_times;
    // One unsigned compare: a clock that went back (now < sampled_at) wraps
    // to a large difference and samples again.
    if (std::uint64_t(now) - std::uint64_t(t.sampled_at[unit]) >= interval) {
        std::uint64_t kernel = 0, user = 0;
        platform::thread_cpu_times(&kernel, &user);
        // Encoded once per sample, not per event (two 64-bit divisions).
        t.times[0] = (kernel / kTick) | ((user / kTick) << 32);
        t.times[1] = kernel + user;
        t.sampled_at[unit] = now;
    }
    return t;
}

// The PROV_TRAITS and EVENT_SCHEMA_TL items, in that order (as Windows logs
// them: the schema is the last item).
[[gnu::noinline]] std::uint8_t *tracelogging_items(std::uint8_t *out, const TlItems &tl) noexcept
{
    if (tl.traits)
        out = etl::write_extended_item(out, etl::kExtTypeProvTraits, tl.traits, etl::rd16(tl.traits),
                                       tl.schema != nullptr);
    if (tl.schema)
        out = etl::write_extended_item(out, etl::kExtTypeEventSchemaTl, tl.schema, etl::rd16(tl.schema), false);
    return out;
}

} // namespace

template <class Pred>
bool Session::wait_for_space(Pred pred, std::uint32_t timeout_ms) noexcept
{
    ControlBlock &cb = pool_.control();
    const std::int64_t deadline = platform::qpc_now() + std::int64_t(timeout_ms) * 10'000;
    for (;;) {
        cb.space_waiters.fetch_add(1, std::memory_order_seq_cst);
        const std::uint32_t seen = cb.space_word.load(std::memory_order_seq_cst);
        if (pred()) {
            cb.space_waiters.fetch_sub(1, std::memory_order_relaxed);
            return true;
        }
        const std::int64_t left = deadline - platform::qpc_now();
        if (left <= 0) {
            cb.space_waiters.fetch_sub(1, std::memory_order_relaxed);
            return false;
        }
        platform::wait_on(&cb.space_word, seen, left / 10'000 + 1);
        cb.space_waiters.fetch_sub(1, std::memory_order_relaxed);
    }
}

bool Session::reserve_in_ring(std::uint32_t stream, std::uint32_t size, BufferPool::Reservation *res) noexcept
{
    if (writer_slot_ == nullptr)
        return reserve_recycling(stream, size, res);
    // A session of another process: its ring is its host's. The hand-off of
    // the full buffer woke the host's logger, which recycles the oldest
    // (bounded wait; a stop ends it: close_remote_writers wakes us).
    ControlBlock &cb = pool_.control();
    bool got = false;
    wait_for_space(
        [&] {
            got = pool_.reserve(stream, size, res) == ETW_OK;
            return got || cb.closing.load(std::memory_order_acquire) != 0;
        },
        kRemoteRingWaitMs);
    return got;
}

[[gnu::always_inline]] inline Session::Stamp Session::stamp() noexcept
{
    // What the clock's read needs, loaded before it (after it they would be
    // loaded again, and the session kept live across it).
    const std::uint64_t cycle_tick = cycle_tick_;
    const unsigned kind = is_private() ? 1 : 0; // (ThreadTimes::times)
    std::int64_t timestamp;
    if (cycle_tick != 0) [[likely]] {
        // Clock 3, and clock 1 where the cycle counter is the system clock:
        // one instruction, no call.
        timestamp = std::int64_t(platform::cycle_counter());
        return {timestamp, sample_times(timestamp, 1, cycle_tick).times[kind]};
    }
    // 100 ns clocks (a FILETIME session, or clock 1 from the vDSO).
    timestamp = clock_type_ == ETW_CLOCK_SYSTEM_TIME ? platform::filetime_now() : platform::qpc_now();
    return {timestamp, sample_times(timestamp, 0, kTick).times[kind]};
}

[[gnu::always_inline]] inline std::uint32_t Session::header_fields(std::uint8_t *p, std::uint32_t size,
                                                                   std::uint32_t thread_id,
                                                                   std::uint32_t process_id) noexcept
{
    const Stamp st = stamp();
    return etl::write_full_header_fields(p, std::uint16_t(size), thread_id, process_id, st.timestamp, st.times);
}

[[gnu::always_inline]] inline std::uint32_t Session::event_record(std::uint8_t *p, const EventHeaderInput &e,
                                                                  std::uint64_t ids, std::uint32_t size) noexcept
{
    const Stamp st = stamp();
    etl::wr16(p + 4, e.flags);
    etl::wr16(p + 6, 0); // EventProperty
    etl::wr64(p + 8, ids);
    etl::wr64(p + 16, std::uint64_t(st.timestamp));
    std::memcpy(p + 24, e.provider, 16);
    const etw_event_descriptor &d = *e.descriptor;
    if constexpr (std::endian::native == std::endian::little) {
        static_assert(sizeof d == 16 && offsetof(etw_event_descriptor, Keyword) == 8);
        std::memcpy(p + 40, &d, 16); // EVENT_DESCRIPTOR's own layout is the file's
    } else {
        etl::wr16(p + 40, d.Id);
        p[42] = d.Version;
        p[43] = d.Channel;
        p[44] = d.Level;
        p[45] = d.Opcode;
        etl::wr16(p + 46, d.Task);
        etl::wr64(p + 48, d.Keyword);
    }
    etl::wr64(p + 56, st.times);
    std::memcpy(p + 64, e.activity, 16);
    std::uint8_t *out = p + etl::kEventHeaderSize;
    // One test for every item: the flag is set exactly when some follow.
    // Their order: RELATED_ACTIVITYID, the enable properties', then
    // TraceLogging's (the schema last, as Windows logs it).
    if (e.flags & etl::kEventHeaderFlagExtendedInfo) {
        if (e.related) {
            etl::write_related_activity_item(out, *e.related, e.items_size != 0 || e.tl != nullptr);
            out += etl::kRelatedActivityItemSize;
        }
        if (e.items_size != 0) {
            std::memcpy(out, e.items, e.items_size);
            out += e.items_size;
        }
        if (e.tl) [[unlikely]]
            out = tracelogging_items(out, *e.tl);
    }
    for (std::uint32_t i = 0; i < e.data_count; ++i) {
        if (const std::uint32_t n = e.data[i].Size) {
            std::memcpy(out, reinterpret_cast<const void *>(static_cast<std::uintptr_t>(e.data[i].Ptr)), n);
            out += n;
        }
    }
    return etl::event_header_word0(size);
}

template <bool Bracketed>
[[gnu::always_inline]] inline void Session::fill_record(std::uint8_t *p, const EventInput &ev,
                                                        std::uint32_t aligned) noexcept
{
    if constexpr (Bracketed)
        etl::begin_record(p, std::uint16_t(ev.size));
    if (aligned != ev.size) // the padding: zeroed first, the record's bytes then overwrite its start
        std::memset(p + aligned - 8, 0, 8);
    if (ev.event) {
        const std::uint32_t word0 =
            event_record(p, *ev.event, ev.thread_id | std::uint64_t(ev.process_id) << 32, ev.size);
        if constexpr (Bracketed)
            etl::finish_record(p, word0);
        else
            std::memcpy(p, &word0, 4);
        return;
    }
    if (ev.whole) {
        std::memcpy(p + 4, ev.whole + 4, ev.size - 4);
    } else {
        std::memcpy(p + 4, &ev.event_class, 4);
        std::memcpy(p + 24, &ev.guid, 16);
        std::uint8_t *d = p + etl::kFullHeaderSize;
        for (std::uint32_t i = 0; i < ev.piece_count; ++i) {
            if (ev.pieces[i].length) {
                std::memcpy(d, ev.pieces[i].data, ev.pieces[i].length);
                d += ev.pieces[i].length;
            }
        }
    }
    const std::uint32_t word0 = header_fields(p, ev.size, ev.thread_id, ev.process_id);
    if constexpr (Bracketed)
        etl::finish_record(p, word0);
    else
        std::memcpy(p, &word0, 4);
}

[[gnu::always_inline]] inline etw_status Session::write_here(const EventInput &ev, std::uint32_t cpu) noexcept
{
    ControlBlock &cb = pool_.control();
    // Real-time backlog full and no consumer: refuse (one load when not).
    if (cb.rt_refusing.load(std::memory_order_relaxed) != 0) {
        if (!options_.lossless || !wait_for_space([&] { return cb.rt_refusing.load(std::memory_order_acquire) == 0; },
                                                  options_.lossless_timeout_ms)) {
            cb.events_lost.fetch_add(1, std::memory_order_relaxed);
            return ETW_ERROR_LOG_FILE_FULL;
        }
    }
    const std::uint32_t stream = pool_.stream_of(cpu);
    const std::uint32_t aligned = std::uint32_t(etl::align8(ev.size));
    // (A session of another process tried its owned buffer in write(), in
    // the slot's bracket: here, under the CAS protocol's writer count, the
    // host's logger could take that buffer while this write fills it.)
    if (writer_slot_ == nullptr && owned_.enabled()) [[likely]] {
        if (OwnedCursor *c = owned_.reserve(cpu, aligned)) [[likely]] {
            fill_record<false>(c->pos, ev, aligned);
            owned_.commit(c, aligned);
            return ETW_OK;
        }
    }
    BufferPool::Reservation res;
    // (Read before looking: a buffer freed after it changes the word.)
    const std::uint32_t space = cb.space_word.load(std::memory_order_acquire);
    if (etw_status st = pool_.reserve(stream, aligned, &res); st != ETW_OK) {
        if (st == ETW_ERROR_WMI_INSTANCE_NOT_FOUND) [[unlikely]]
            return st; // stopping (BufferPool::reserve_slow): neither written nor counted
        if (!(is_buffering() && reserve_in_ring(stream, aligned, &res)) &&
            (!options_.lossless || !wait_for_space([&] { return pool_.reserve(stream, aligned, &res) == ETW_OK; },
                                                   options_.lossless_timeout_ms))) {
            cb.events_lost.fetch_add(1, std::memory_order_relaxed);
            if (st == ETW_ERROR_NOT_ENOUGH_MEMORY && !options_.lossless && !is_buffering())
                owned_.mark_starved(space); // later writes drop at once until a buffer is freed
            return st;
        }
    }
    fill_record<true>(pool_.buffer(res.index) + res.offset, ev, aligned);
    pool_.commit(res);
    return ETW_OK;
}

// Inline into its one caller, Engine::trace_event below: one frame for the
// common event instead of two.
[[gnu::always_inline]] inline etw_status Session::write_whole(const std::uint8_t *h, std::uint32_t size) noexcept
{
    // The common case inline: owned buffers, a thread with its slot and room
    // in its buffer. Everything else, through the general path.
    // (Owned buffers not enabled: the cursor lookup finds none. A real-time
    // refusal: the owner renews, and renew() sends the write on.)
    {
        const std::uint32_t cpu = platform::current_processor();
        const std::uint32_t aligned = std::uint32_t(etl::align8(size));
        // The caller's bytes but for the writer's fields, which are set
        // around them: the clock first, so that little is live across its
        // call (the position is read from the cursor after it).
        auto copy_in = [&](const OwnedCursor *c) __attribute__((always_inline))
        {
            const Stamp st = stamp();
            std::uint8_t *p = c->pos;
            // The last 8 bytes zeroed first, with no test: the padding if
            // any; otherwise payload or header bytes written next.
            std::memset(p + aligned - 8, 0, 8);
            std::memcpy(p + 4, h + 4, 4);    // Class
            std::memcpy(p + 24, h + 24, 16); // Guid
            etl::wr64(p + 8, c->ids);
            etl::write_full_header_times(p, st.timestamp, st.times);
            // word0 too before the payload (nothing is live across its
            // copy but the cursor): the commit publishes the record.
            const std::uint32_t word0 = etl::full_header_word0(size);
            std::memcpy(p, &word0, 4);
            std::memcpy(p + etl::kFullHeaderSize, h + etl::kFullHeaderSize, size - etl::kFullHeaderSize);
        };
        if (writer_slot_ == nullptr) [[likely]] { // this process's session
            if (OwnedCursor *c = owned_.reserve(cpu, aligned)) [[likely]] {
                copy_in(c);
                owned_.commit(c, aligned);
                return ETW_OK;
            }
        } else { // a session of another process (see write())
            if (OwnedCursor *c = owned_.reserve_remote(cpu, aligned)) [[likely]] {
                copy_in(c);
                owned_.commit_remote(c, aligned);
                return ETW_OK;
            }
        }
    }
    return write_whole_general(h, size);
}

[[gnu::noinline]] etw_status Session::write_whole_general(const std::uint8_t *h, std::uint32_t size) noexcept
{
    EventInput ev;
    ev.whole = h;
    ev.size = size;
    ev.thread_id = platform::thread_id();
    ev.process_id = platform::process_id();
    return write(ev, platform::current_processor());
}

[[gnu::always_inline]] inline etw_status Session::write_event(const EventHeaderInput &e, std::uint32_t size) noexcept
{
    // The common case inline, as write_whole: an owned buffer with room.
    const std::uint32_t cpu = platform::current_processor();
    const std::uint32_t aligned = std::uint32_t(etl::align8(size));
    auto copy_in = [&](const OwnedCursor *c) __attribute__((always_inline))
    {
        std::uint8_t *p = c->pos;
        std::memset(p + aligned - 8, 0, 8); // the padding, if any (the record overwrites the rest)
        const std::uint32_t word0 = event_record(p, e, c->ids, size);
        std::memcpy(p, &word0, 4);
    };
    if (writer_slot_ == nullptr) [[likely]] {
        if (OwnedCursor *c = owned_.reserve(cpu, aligned)) [[likely]] {
            copy_in(c);
            owned_.commit(c, aligned);
            return ETW_OK;
        }
    } else if (OwnedCursor *c = owned_.reserve_remote(cpu, aligned)) [[likely]] {
        copy_in(c);
        owned_.commit_remote(c, aligned);
        return ETW_OK;
    }
    return write_event_general(e, size);
}

[[gnu::noinline]] etw_status Session::write_event_general(const EventHeaderInput &e, std::uint32_t size) noexcept
{
    EventInput ev;
    ev.event = &e;
    ev.size = size;
    ev.thread_id = platform::thread_id();
    ev.process_id = platform::process_id();
    return write(ev, platform::current_processor());
}

etw_status Session::write(const EventInput &ev, std::uint32_t cpu) noexcept
{
    ControlBlock &cb = pool_.control();
    if (writer_slot_ == nullptr) [[likely]] {
        // Out of buffers since this thread's last write found none: dropped
        // (inside the caller's grace section, which the stop waits for).
        if (owned_.starved(cb) && cb.rt_refusing.load(std::memory_order_relaxed) == 0) [[unlikely]] {
            cb.events_lost.fetch_add(1, std::memory_order_relaxed);
            return ETW_ERROR_NOT_ENOUGH_MEMORY;
        }
        return write_here(ev, cpu);
    }
    // A session of another process. An owned buffer's write is bracketed by
    // its slot's inside word; the CAS protocol's by the process's writer
    // count. The stop waits for both.
    if (owned_.enabled() && cb.rt_refusing.load(std::memory_order_relaxed) == 0) [[likely]] {
        if (owned_.drop_if_starved_remote(cb)) [[unlikely]]
            return ETW_ERROR_NOT_ENOUGH_MEMORY;
        const std::uint32_t aligned = std::uint32_t(etl::align8(ev.size));
        if (OwnedCursor *c = owned_.reserve_remote(cpu, aligned)) [[likely]] {
            fill_record<false>(c->pos, ev, aligned);
            owned_.commit_remote(c, aligned);
            return ETW_OK;
        }
    }
    // (A stopping session refuses here: the owned path left it to this check.)
    if (!writer_enter(cb, *writer_slot_))
        return ETW_ERROR_WMI_INSTANCE_NOT_FOUND;
    const etw_status st = write_here(ev, cpu);
    writer_leave(*writer_slot_);
    return st;
}

namespace {

// HeaderType and MarkerFlags, written back into the caller's header (as
// the engine records them): one 16-bit store of a constant.
inline void set_header_type(etw_event_trace_header *h) noexcept
{
    const std::uint8_t v[2] = {sizeof(void *) == 8 ? etl::kFullHeader64 : etl::kFullHeader32, etl::kMarkerFixedHeader};
    std::memcpy(&h->HeaderType, v, 2);
    static_assert(offsetof(etw_event_trace_header, MarkerFlags) == offsetof(etw_event_trace_header, HeaderType) + 1);
}

// Inside a grace section: write(session) for each session of snap that
// takes the event's level and keyword (0 for classic events) and whose
// filters pass it (pass(entry)); the first failure. An event never spans
// buffers: ETW_ERROR_MORE_DATA for a session whose buffers are too small.
template <class Pass, class Write>
etw_status each_session(const ProviderSnapshot &snap, std::uint8_t level, std::uint64_t keyword, std::uint32_t size,
                        Pass pass, Write write) noexcept
{
    etw_status result = ETW_OK;
    for (const ProviderSnapshot::Entry &e : snap.entries) {
        if (!e.takes(level, keyword) || !pass(e))
            continue;
        const etw_status st = size >= e.max_record ? ETW_ERROR_MORE_DATA : write(*e.session);
        if (result == ETW_OK)
            result = st;
    }
    return result;
}

} // namespace

etw_status Engine::trace_event(Provider *p, etw_event_trace_header *h) noexcept
{
    // (A disabled provider was turned away by the caller, etw_provider_trace_event:
    // one load and a branch. Here it would find no session in its snapshot.)
    const std::uint32_t size = h->Size;
    if ((h->Flags & (ETW_WNODE_FLAG_TRACED_GUID | ETW_WNODE_FLAG_USE_GUID_PTR | ETW_WNODE_FLAG_USE_MOF_PTR)) !=
            ETW_WNODE_FLAG_TRACED_GUID ||
        size < ETW_EVENT_TRACE_HEADER_SIZE) [[unlikely]]
        return trace_gathered(p, h);
    // The common case: the record is the caller's bytes (header and payload
    // in place), copied once per session with the writer's fields set.
    // HeaderType and MarkerFlags are the engine's: never taken from the caller.
    set_header_type(h);
    const std::uint8_t level = h->Class.Level;
    const auto *bytes = reinterpret_cast<const std::uint8_t *>(h);
    GraceSection section;
    const ProviderSnapshot *snap = p->snapshot.load(std::memory_order_acquire);
    if (!snap)
        return ETW_OK;
    // One session, the common case: its write inline, no loop around it.
    if (const ProviderSnapshot::Entry *e = snap->single) [[likely]] {
        if (!e->takes(level, 0))
            return ETW_OK;
        if (size >= e->max_record) [[unlikely]]
            return ETW_ERROR_MORE_DATA;
        return e->session->write_whole(bytes, size);
    }
    // Classic events have no event id, name or self-described payload: the
    // EVENT_ID, EVENT_NAME and PAYLOAD filters do not apply to them (as on
    // Windows, where they filter EVENT_DESCRIPTOR events).
    return each_session(
        *snap, level, 0, size, [](const ProviderSnapshot::Entry &) { return true; },
        [bytes, size](Session &s) { return s.write_whole_general(bytes, size); });
}

etw_status Engine::trace_gathered(Provider *p, etw_event_trace_header *h) noexcept
{
    if (!(h->Flags & ETW_WNODE_FLAG_TRACED_GUID))
        return ETW_ERROR_INVALID_FLAG_NUMBER;
    const std::uint32_t size = h->Size;
    if (size < ETW_EVENT_TRACE_HEADER_SIZE)
        return ETW_ERROR_INVALID_PARAMETER;
    EventInput ev;
    ev.event_class = h->Class;
    if (h->Flags & ETW_WNODE_FLAG_USE_GUID_PTR) {
        std::uint64_t addr;
        std::memcpy(&addr, &h->Guid, sizeof addr);
        if (addr == 0)
            return ETW_ERROR_INVALID_PARAMETER;
        std::memcpy(&ev.guid, reinterpret_cast<const void *>(static_cast<std::uintptr_t>(addr)), sizeof ev.guid);
    } else {
        ev.guid = h->Guid;
    }
    std::uint64_t total = ETW_EVENT_TRACE_HEADER_SIZE;
    const auto *payload = reinterpret_cast<const std::uint8_t *>(h) + ETW_EVENT_TRACE_HEADER_SIZE;
    if (h->Flags & ETW_WNODE_FLAG_USE_MOF_PTR) {
        const std::uint32_t bytes = size - ETW_EVENT_TRACE_HEADER_SIZE;
        if (bytes % ETW_MOF_FIELD_SIZE != 0 || bytes / ETW_MOF_FIELD_SIZE > ETW_MAX_MOF_FIELDS)
            return ETW_ERROR_INVALID_PARAMETER;
        ev.piece_count = bytes / ETW_MOF_FIELD_SIZE;
        for (std::uint32_t i = 0; i < ev.piece_count; ++i) {
            etw_mof_field m;
            std::memcpy(&m, payload + i * ETW_MOF_FIELD_SIZE, sizeof m);
            if (m.Length != 0 && m.DataPtr == 0)
                return ETW_ERROR_INVALID_PARAMETER;
            ev.pieces[i] = {reinterpret_cast<const void *>(static_cast<std::uintptr_t>(m.DataPtr)), m.Length};
            total += m.Length;
        }
    } else if (size > ETW_EVENT_TRACE_HEADER_SIZE) {
        ev.piece_count = 1;
        ev.pieces[0] = {payload, size - std::uint32_t(ETW_EVENT_TRACE_HEADER_SIZE)};
        total = size;
    }
    // A parameter error whatever the sessions: checked before their buffer sizes.
    if (total > ETW_MAX_EVENT_SIZE)
        return ETW_ERROR_INVALID_PARAMETER;
    ev.size = std::uint32_t(total);
    set_header_type(h);
    ev.thread_id = platform::thread_id();
    ev.process_id = platform::process_id();
    const std::uint8_t level = h->Class.Level;
    const std::uint32_t cpu = platform::current_processor();
    GraceSection section;
    const ProviderSnapshot *snap = p->snapshot.load(std::memory_order_acquire);
    if (!snap)
        return ETW_OK;
    return each_session(
        *snap, level, 0, ev.size, [](const ProviderSnapshot::Entry &) { return true; },
        [&ev, cpu](Session &s) { return s.write(ev, cpu); });
}

[[gnu::always_inline]] inline etw_status Engine::write_event_checked(Provider *p, const EventHeaderInput &e,
                                                                     std::uint32_t size) noexcept
{
    const std::uint8_t level = e.descriptor->Level;
    const std::uint64_t keyword = e.descriptor->Keyword;
    GraceSection section;
    const ProviderSnapshot *snap = p->snapshot.load(std::memory_order_acquire);
    if (!snap)
        return ETW_OK;
    // One session, the common case: its write inline, no loop around it.
    if (const ProviderSnapshot::Entry *one = snap->single) [[likely]] {
        // The filters run before any buffer work: a filtered-out event costs
        // about what an event of a disabled level does.
        if (!one->takes(level, keyword) || !one->passes(e))
            return ETW_OK;
        if (size >= one->max_record) [[unlikely]]
            return ETW_ERROR_MORE_DATA;
        return one->session->write_event(e, size);
    }
    if (snap->any_property != 0) [[unlikely]]
        return write_with_properties(*snap, e, size);
    return each_session(
        *snap, level, keyword, size, [&e](const ProviderSnapshot::Entry &en) { return en.passes(e); },
        [&e, size](Session &s) { return s.write_event_general(e, size); });
}

[[gnu::always_inline]] inline etw_status Engine::write_event_any(Provider *p, const etw_event_descriptor *descriptor,
                                                                 std::uint32_t flags, const etw_guid *activity,
                                                                 const etw_guid *related, std::uint32_t data_count,
                                                                 const etw_event_data_descriptor *data,
                                                                 std::uint64_t exclude) noexcept
{
    if (descriptor == nullptr || (data_count != 0 && data == nullptr) || data_count > ETW_MAX_EVENT_DATA_DESCRIPTORS ||
        (flags & ~std::uint32_t(ETW_EVENT_WRITE_STRING_ONLY)) != 0) [[unlikely]]
        return ETW_ERROR_INVALID_PARAMETER;
    std::uint64_t total = etl::kEventHeaderSize + (related ? etl::kRelatedActivityItemSize : 0);
    std::uint32_t types = 0;
    for (std::uint32_t i = 0; i < data_count; ++i) {
        if (data[i].Ptr == 0 && data[i].Size != 0) [[unlikely]]
            return ETW_ERROR_INVALID_PARAMETER;
        total += data[i].Size;
        types |= data[i].Reserved;
    }
    // Metadata descriptors or a provider with traits: extended items (one test for both).
    if ((types | reinterpret_cast<std::uintptr_t>(p->traits.load(std::memory_order_relaxed))) != 0) [[unlikely]]
        return write_event_typed(p, descriptor, flags, activity, related, data_count, data, exclude);
    // Checked whatever the sessions' buffer sizes, as EventWrite does.
    if (total > ETW_MAX_EVENT_SIZE) [[unlikely]]
        return ETW_ERROR_ARITHMETIC_OVERFLOW;
    EventHeaderInput e;
    e.descriptor = descriptor;
    e.provider = &p->guid;
    e.activity = activity ? activity : &t_activity_id;
    e.related = related;
    e.flags = std::uint16_t(flags | (related ? etl::kEventHeaderFlagExtendedInfo : 0));
    e.data_count = data_count;
    e.data = data;
    e.exclude = exclude;
    return write_event_checked(p, e, std::uint32_t(total));
}

etw_status Engine::write_event(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                               const etw_guid *activity, const etw_guid *related, std::uint32_t data_count,
                               const etw_event_data_descriptor *data) noexcept
{
    return write_event_any(p, descriptor, flags, activity, related, data_count, data, 0);
}

etw_status Engine::write_event_ex(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                                  const etw_guid *activity, const etw_guid *related, std::uint32_t data_count,
                                  const etw_event_data_descriptor *data, std::uint64_t exclude) noexcept
{
    return write_event_any(p, descriptor, flags, activity, related, data_count, data, exclude);
}

// The TraceLogging writes (write_tracelogging.cpp) reach the sessions here:
// the inline write above, out of line for them.
etw_status Engine::write_event_prepared(Provider *p, const EventHeaderInput &e, std::uint32_t size) noexcept
{
    return write_event_checked(p, e, size);
}

} // namespace openetw::engine
