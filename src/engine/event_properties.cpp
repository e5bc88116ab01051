// The enable properties' extended data items (engine/event_properties.hpp).
#include "engine/event_properties.hpp"

#include "format/etl_writer.hpp"
#include "format/extended_items.hpp"
#include "kernel/rundown.hpp"
#include "platform/process.hpp"
#include "platform/stack_capture.hpp"

#include <openetw/constants.h>

#include <atomic>

namespace openetw::engine {

namespace {

// The process's keys, read on the control path (and again, once, in a
// forked child, whose pid differs): relaxed atomics, each value written
// before pid is published.
struct ProcessKeys {
    std::atomic<std::uint32_t> pid{0};
    std::atomic<std::uint32_t> ts_id{0};
    std::atomic<std::uint64_t> start_key{0};
};
ProcessKeys g_keys;
std::atomic<std::uint64_t> g_event_keys{0};

void read_process_keys() noexcept
{
    const std::uint32_t pid = platform::process_id();
    g_keys.ts_id.store(platform::session_id(), std::memory_order_relaxed);
    g_keys.start_key.store(process_start_key(platform::process_start_time(pid), pid), std::memory_order_relaxed);
    g_keys.pid.store(pid, std::memory_order_release);
}

void ensure_process_keys() noexcept
{
    if (g_keys.pid.load(std::memory_order_acquire) != platform::process_id()) [[unlikely]]
        read_process_keys();
}

// The process's module map, before its first stack in session s: the
// records as classic events of this thread, so they go where its events go
// (this process's session or another's through its writer slot).
void write_module_map(Session &s) noexcept
{
    try {
        kernel::RundownOptions o;
        o.classic = true;
        o.pointer_size = platform::kPointerSize;
        o.max_record = s.buffer_bytes() - ETW_BUFFER_HEADER_SIZE - 8;
        const std::uint32_t pid = platform::process_id();
        const std::uint32_t cpu = platform::current_processor();
        (void)kernel::image_rundown(pid, o, [&](kernel::Bytes &&record) {
            EventInput ev;
            ev.whole = record.data();
            ev.size = std::uint32_t(record.size());
            ev.thread_id = platform::thread_id();
            ev.process_id = pid;
            (void)s.write(ev, cpu);
        });
    } catch (...) {
        // Out of memory: the stacks are written, unnamed.
    }
}

} // namespace

std::uint64_t process_start_key(std::uint64_t start_time, std::uint32_t pid) noexcept
{
    return start_time == 0 ? 0 : start_time << 22 | (pid & 0x3FFFFF);
}

void prepare_event_properties(std::uint32_t any_property) noexcept
{
    if (any_property & (kEnablePropertyTsId | kEnablePropertyProcessStartKey))
        read_process_keys();
    if (any_property & kEnablePropertyStackTrace)
        platform::prepare_stack_capture();
}

etw_status write_with_properties(const ProviderSnapshot &snap, const EventHeaderInput &e, std::uint32_t size) noexcept
{
    const std::uint8_t level = e.descriptor->Level;
    const std::uint64_t keyword = e.descriptor->Keyword;
    // Once per event, whatever the number of sessions that ask: the stack
    // (in this thread, before anything else moves it) and the event key.
    std::uint64_t frames[etl::kStackTraceMaxFrames];
    std::uint32_t frame_count = 0;
    bool captured = false;
    std::uint64_t event_key = 0;
    // The largest items: SID, TS_ID, the two keys and a full stack.
    alignas(8) std::uint8_t items[etl::extended_item_size(etl::kUnixUserSidSize) + etl::extended_item_size(4) +
                                  2 * etl::extended_item_size(8) +
                                  etl::extended_item_size(etl::stack_trace_data_size(etl::kStackTraceMaxFrames, 8))];
    etw_status result = ETW_OK;
    for (const ProviderSnapshot::Entry &en : snap.entries) {
        if (!en.takes(level, keyword) || !en.passes(e))
            continue;
        const std::uint32_t p = en.enable_property;
        if ((p & kEnablePropertyIgnoreKeyword0) && keyword == 0)
            continue;
        etw_status st;
        if ((p & kEnablePropertyItems) == 0) {
            st = size >= en.max_record ? ETW_ERROR_MORE_DATA : en.session->write_event_general(e, size);
        } else {
            const bool stack = (p & kEnablePropertyStackTrace) && en.stack_for(e.descriptor->Id); // STACKWALK filters
            if (stack && !captured) {
                // Leaves out this function's own frame: the first is in its caller.
                frame_count = platform::capture_stack(frames, etl::kStackTraceMaxFrames, 1);
                captured = true;
            }
            if ((p & kEnablePropertyEventKey) && event_key == 0)
                event_key = g_event_keys.fetch_add(1, std::memory_order_relaxed) + 1;
            if (p & (kEnablePropertyTsId | kEnablePropertyProcessStartKey))
                ensure_process_keys();
            if (stack && en.session->claim_stack_images(platform::process_id())) [[unlikely]]
                write_module_map(*en.session);
            etl::ExtendedItemWriter w(items);
            if (p & kEnablePropertySid)
                etl::write_unix_user_sid(w.add(etl::kExtTypeSid, etl::kUnixUserSidSize), platform::effective_user_id());
            if (p & kEnablePropertyTsId)
                w.add_u32(etl::kExtTypeTsId, g_keys.ts_id.load(std::memory_order_relaxed));
            if (p & kEnablePropertyProcessStartKey)
                w.add_u64(etl::kExtTypeProcessStartKey, g_keys.start_key.load(std::memory_order_relaxed));
            if (p & kEnablePropertyEventKey)
                w.add_u64(etl::kExtTypeEventKey, event_key);
            if (stack)
                w.add_stack(frames, frame_count, platform::kPointerSize);
            EventHeaderInput x = e;
            x.items = items;
            x.items_size = w.finish(e.tl != nullptr); // TraceLogging's items follow them
            // (A STACKWALK filter may leave a stack-only enable with no item:
            // the flag says exactly whether items follow.)
            if (x.items_size != 0)
                x.flags = std::uint16_t(e.flags | etl::kEventHeaderFlagExtendedInfo);
            const std::uint32_t total = size + x.items_size;
            st = total > ETW_MAX_EVENT_SIZE ? ETW_ERROR_ARITHMETIC_OVERFLOW
                 : total >= en.max_record   ? ETW_ERROR_MORE_DATA
                                            : en.session->write_event_general(x, total);
        }
        if (result == ETW_OK)
            result = st;
    }
    return result;
}

} // namespace openetw::engine
