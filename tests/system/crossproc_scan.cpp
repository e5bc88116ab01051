// Reading a session's file back: what it holds of one provider GUID, checked
// against the counters of the provider processes that wrote it.
#include "crossproc_fixtures.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <utility>

namespace crossproc {

std::string Scan::str() const
{
    std::ostringstream o;
    o << "open " << status_text(open) << ", process " << status_text(process) << ", events " << events
      << ", bad payloads " << bad_payload << ", header EventsLost " << header_events_lost << ", buffers "
      << stats.buffers << " (corrupt " << stats.corrupt_buffers << "), corrupt records " << stats.corrupt_records;
    if (!message.empty())
        o << ": " << message;
    return o.str();
}

Scan scan_file(const std::string &path, const etw_guid &guid)
{
    Scan r;
    struct Ctx {
        Scan *r;
        etw_guid guid;
    } ctx{&r, guid};
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.user_data = &ctx;
    o.event = [](void *ud, const etw_classic_event *e) -> std::int32_t {
        Ctx *c = static_cast<Ctx *>(ud);
        if (std::memcmp(&e->header.Guid, &c->guid, sizeof c->guid) != 0)
            return 0;
        Scan &r = *c->r;
        ++r.events;
        ++r.levels[e->header.Class.Level];
        r.first_time = std::min(r.first_time, e->header.TimeStamp);
        r.last_time = std::max(r.last_time, e->header.TimeStamp);
        xp_payload pl;
        if (e->payload_size < sizeof pl) {
            ++r.bad_payload;
            return 0;
        }
        std::memcpy(&pl, e->payload, sizeof pl);
        if (pl.magic == XP_RUNDOWN_MAGIC && e->payload_size == sizeof pl) {
            ++r.rundown;
            return 0;
        }
        if (pl.magic != XP_EVENT_MAGIC) {
            ++r.bad_payload;
            return 0;
        }
        const std::uint8_t fill = xp_fill_byte(pl.provider, pl.thread, pl.seq);
        for (std::uint32_t i = sizeof pl; i < e->payload_size; ++i)
            if (e->payload[i] != fill) {
                ++r.bad_payload;
                break;
            }
        r.keys.push_back(key(pl.provider, pl.thread, pl.seq));
        return 0;
    };
    const char *paths[] = {path.c_str()};
    etw_consumer *c = nullptr;
    if ((r.open = etw_consumer_open(&c, paths, 1, &o)) != ETW_OK) {
        r.message = etw_last_error_message();
        return r;
    }
    etw_logfile_info li{};
    li.struct_size = sizeof li;
    if (etw_consumer_logfile_header(&li, c, 0) == ETW_OK) {
        r.header_events_lost = li.header.EventsLost;
        r.buffers_written = li.header.BuffersWritten;
    }
    r.process = etw_consumer_process(c);
    if (r.process != ETW_OK)
        r.message = etw_last_error_message();
    r.stats.struct_size = sizeof r.stats;
    etw_consumer_get_stats(&r.stats, c);
    etw_consumer_close(c);
    return r;
}

std::string check_keys(std::vector<std::uint64_t> keys, const std::vector<Provider *> &providers)
{
    std::sort(keys.begin(), keys.end());
    std::uint64_t dups = 0, unknown = 0, future = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::uint64_t k = keys[i];
        if (i > 0 && keys[i - 1] == k) {
            if (dups++ == 0)
                first << " first duplicate: provider " << key_provider(k) << " thread " << key_thread(k) << " seq "
                      << key_seq(k) << ";";
            continue;
        }
        const Provider *p = nullptr;
        for (const Provider *q : providers)
            if (q->index == int(key_provider(k)))
                p = q;
        if (!p || int(key_thread(k)) >= p->threads) {
            ++unknown;
            continue;
        }
        if (key_seq(k) >= p->started(int(key_thread(k)))) {
            if (future++ == 0)
                first << " first event never started: provider " << key_provider(k) << " thread " << key_thread(k)
                      << " seq " << key_seq(k) << " >= started " << p->started(int(key_thread(k))) << ";";
        }
    }
    if (!dups && !unknown && !future)
        return "";
    std::ostringstream o;
    o << dups << " events twice, " << unknown << " from unknown providers/threads, " << future
      << " with seq >= started;" << first.str();
    return o.str();
}

std::string check_per_thread(const std::vector<std::uint64_t> &keys, const std::vector<Provider *> &providers,
                             int killed_index)
{
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> in_file;
    for (const std::uint64_t k : keys)
        ++in_file[{key_provider(k), key_thread(k)}];
    bool bad = false;
    std::ostringstream o;
    for (const Provider *p : providers)
        for (int t = 0; t < p->threads; ++t) {
            const Totals c = p->counters->thread(t);
            const std::uint64_t f = in_file[{std::uint32_t(p->index), std::uint32_t(t)}];
            const bool killed = p->index == killed_index;
            const bool wrong = killed ? (f < c.ok || f > c.ok + c.in_flight()) : f != c.ok;
            bad |= wrong;
            o << (wrong ? " WRONG" : "") << " provider " << p->index << (killed ? " (killed)" : "") << " thread " << t
              << ": in file " << f << ", " << c.str() << ";";
        }
    return bad ? "events per thread in the file vs statuses:" + o.str() : "";
}

} // namespace crossproc
