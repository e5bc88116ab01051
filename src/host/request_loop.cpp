#include "host/request_loop.hpp"

#include "host/channel_frames.hpp"
#include "platform/poller.hpp"
#include "platform/process.hpp"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace openetw::host {

using platform::ChannelHandle;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::uint64_t kListenerBit = std::uint64_t(1) << 32; // tokens: listeners apart from connections
constexpr int kAcceptBatch = 64;                               // callers taken per wake-up of one listener
constexpr auto kSweepEvery = std::chrono::milliseconds(100);
constexpr auto kAcceptPause = std::chrono::milliseconds(100); // after accept failed (out of descriptors)
// A thread done serving waits this long for the lead or a request before it
// ends: a burst of control requests pays for one thread, not one each.
constexpr auto kServerIdle = std::chrono::seconds(2);
constexpr int kFollowersMax = 4;

struct Entry {
    std::shared_ptr<RequestDoor> door;
    bool open = true; // guarded by State::mutex
};

// A connection whose request is still being read (the loop thread's alone).
struct Connection {
    ChannelHandle c = platform::kNoChannel;
    platform::PeerCredentials peer;
    std::shared_ptr<Entry> entry;
    frames::Frame head{};
    std::size_t head_got = 0;
    std::vector<std::uint8_t> body; // sized to the admitted length
    std::size_t body_got = 0;
    Clock::time_point deadline;
};

bool is_owner(std::uint32_t uid) { return uid == 0 || uid == platform::effective_user_id(); }

// Answers a caller the loop refuses; a caller that does not read it is not waited for.
void refuse(ChannelHandle c, const Status &st) { frames::send_answer(c, st, {}, -1, 0); }

} // namespace

struct RequestLoop::State {
    platform::Poller poller;
    std::mutex mutex; // guards all below but connections
    std::map<ChannelHandle, std::shared_ptr<Entry>> listeners;
    std::map<ChannelHandle, Clock::time_point> paused; // listeners not watched until then
    std::map<std::uint32_t, int> per_user;             // connections open per user: read or served
    int reading = 0;
    int serving = 0;
    // Leader and followers: one thread at a time leads (waits on the poller
    // and reads); when requests are whole it passes the lead to a follower
    // and serves one itself, so that a request costs no hand-off to another
    // thread. Followers are threads done serving, waiting for work a while.
    int followers = 0;             // threads waiting in work(), less the work already queued for them
    int lead_offers = 0;           // the lead, passed on and not yet taken
    std::vector<Connection> ready; // whole requests for followers
    std::condition_variable wake;  // signalled once per offer or request queued
    std::unordered_map<ChannelHandle, Connection> connections; // the leader's alone

    // A thread's life: leads (lead true) or serves k, then waits for work.
    void work(bool lead, Connection k);
    // Leads until a request is whole; returns it once the lead is passed on.
    Connection lead();
    // Accepts the callers waiting on listener into connections; appends their handles to taken.
    void accept_from(ChannelHandle listener, std::vector<ChannelHandle> &taken);
    void read_from(Connection &k, std::vector<Connection> &whole);
    // Head complete: false when the request is refused (answered, to be dropped).
    bool check_head(Connection &k);
    void drop(ChannelHandle c);
    // A request read whole: moved to whole to be served, or refused.
    void take_whole(ChannelHandle c, std::vector<Connection> &whole);
    // Passes the lead to a follower or a new thread: false when neither can take it.
    bool pass_lead();
    // Serves k on a follower or a new thread, or refuses it.
    void hand_out(Connection k);
    void serve_one(Connection &k);
    void served(std::uint32_t uid);
    void sweep(Clock::time_point now);
};

RequestLoop &RequestLoop::instance()
{
    static RequestLoop *loop = new RequestLoop(); // never destroyed: served threads may outlive main
    return *loop;
}

Status RequestLoop::add(ChannelHandle listener, std::shared_ptr<RequestDoor> door)
{
    static std::mutex start_mutex;
    {
        std::lock_guard<std::mutex> lock(start_mutex);
        if (!state_.load(std::memory_order_acquire)) {
            auto *s = new State();
            if (etw_status st = platform::poller_open(&s->poller); st != ETW_OK) {
                delete s;
                return Fail(st, "cannot wait for other processes' requests");
            }
            try {
                std::thread([s] { s->work(true, Connection{}); }).detach();
            } catch (const std::system_error &) {
                platform::poller_close(&s->poller);
                delete s;
                return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, "cannot start the thread serving other processes");
            }
            state_.store(s, std::memory_order_release);
        }
    }
    State &st = *state_.load(std::memory_order_acquire);
    std::lock_guard<std::mutex> lock(st.mutex);
    if (etw_status added = platform::poller_add(st.poller, listener, std::uint64_t(listener) | kListenerBit);
        added != ETW_OK)
        return Fail(added, "cannot wait for other processes' requests");
    auto e = std::make_shared<Entry>();
    e->door = std::move(door);
    st.listeners[listener] = std::move(e);
    return Status::ok();
}

void RequestLoop::remove(ChannelHandle listener)
{
    if (State *s = state_.load(std::memory_order_acquire)) {
        std::lock_guard<std::mutex> lock(s->mutex);
        if (auto it = s->listeners.find(listener); it != s->listeners.end()) {
            it->second->open = false; // its connections are dropped at the next sweep, never dispatched
            s->listeners.erase(it);
            s->paused.erase(listener);
            platform::poller_remove(s->poller, listener);
        }
        platform::poller_wake(s->poller);
    }
    // The loop looks a listener up under the mutex before it accepts: closed after, it is not touched again.
    platform::channel_close(&listener);
}

int RequestLoop::busy() const
{
    State *s = state_.load(std::memory_order_acquire);
    if (!s)
        return 0;
    std::lock_guard<std::mutex> lock(s->mutex);
    return s->reading + s->serving;
}

void RequestLoop::State::work(bool leading, Connection k)
{
    for (;;) {
        if (leading)
            k = lead();
        serve_one(k);
        std::unique_lock<std::mutex> lock(mutex);
        if (followers >= kFollowersMax)
            return;
        ++followers;
        if (!wake.wait_for(lock, kServerIdle, [this] { return lead_offers > 0 || !ready.empty(); })) {
            --followers;
            return;
        }
        // Whoever queued this work counted this thread out of the followers.
        leading = lead_offers > 0;
        if (leading) {
            --lead_offers;
        } else {
            k = std::move(ready.back());
            ready.pop_back();
        }
    }
}

Connection RequestLoop::State::lead()
{
    std::uint64_t tokens[64];
    std::vector<ChannelHandle> taken;
    std::vector<Connection> whole;
    auto next_sweep = Clock::now() + kSweepEvery;
    for (;;) {
        std::int64_t timeout = -1;
        {
            std::lock_guard<std::mutex> lock(mutex);
            if (!connections.empty() || !paused.empty())
                timeout = std::chrono::duration_cast<std::chrono::milliseconds>(kSweepEvery).count();
        }
        std::size_t n = 0;
        if (platform::poller_wait(poller, timeout, tokens, 64, &n) != ETW_OK)
            std::this_thread::sleep_for(kSweepEvery); // never spin on a failing wait
        for (std::size_t i = 0; i < n; ++i) {
            if (tokens[i] == platform::kPollerWoken)
                continue;
            const auto c = ChannelHandle(tokens[i] & (kListenerBit - 1));
            if (tokens[i] & kListenerBit) {
                taken.clear();
                accept_from(c, taken);
                // A caller's request usually came with its connection: read it now, not a wake-up later.
                for (ChannelHandle t : taken)
                    if (auto it = connections.find(t); it != connections.end())
                        read_from(it->second, whole);
            } else if (auto it = connections.find(c); it != connections.end()) {
                read_from(it->second, whole);
            }
        }
        const auto now = Clock::now();
        if (now >= next_sweep || n == 0) {
            sweep(now);
            next_sweep = now + kSweepEvery;
        }
        if (whole.empty())
            continue;
        if (!pass_lead()) {
            // Nobody to lead on: this thread goes on leading, the requests go elsewhere or are refused.
            for (Connection &k : whole)
                hand_out(std::move(k));
            whole.clear();
            continue;
        }
        for (std::size_t i = 1; i < whole.size(); ++i)
            hand_out(std::move(whole[i]));
        return std::move(whole.front());
    }
}

void RequestLoop::State::accept_from(ChannelHandle listener, std::vector<ChannelHandle> &taken)
{
    std::lock_guard<std::mutex> lock(mutex);
    auto it = listeners.find(listener);
    if (it == listeners.end())
        return; // removed meanwhile
    for (int i = 0; i < kAcceptBatch; ++i) {
        ChannelHandle c = platform::kNoChannel;
        platform::PeerCredentials peer;
        const etw_status st = platform::channel_accept(listener, 0, &c, &peer);
        if (st == ETW_ERROR_TIMEOUT)
            return;
        if (st != ETW_OK) {
            // Out of descriptors (or memory): stop watching a while rather than spin on it.
            platform::poller_remove(poller, listener);
            paused[listener] = Clock::now() + kAcceptPause;
            return;
        }
        int &open = per_user[peer.uid];
        if (open >= (is_owner(peer.uid) ? kConnectionsPerOwner : kConnectionsPerUser)) {
            refuse(c, Fail(ETW_ERROR_BUSY, "user " + std::to_string(peer.uid) + " already has " + std::to_string(open) +
                                               " connections open to this session host"));
            platform::channel_close(&c);
            continue;
        }
        if (platform::poller_add(poller, c, std::uint64_t(c)) != ETW_OK) {
            refuse(c, Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, "the session host cannot take more connections"));
            platform::channel_close(&c);
            continue;
        }
        ++open;
        ++reading;
        Connection k;
        k.c = c;
        k.peer = peer;
        k.entry = it->second;
        k.deadline = Clock::now() + std::chrono::milliseconds(kRequestWaitMs);
        connections[c] = std::move(k);
        taken.push_back(c);
    }
}

void RequestLoop::State::read_from(Connection &k, std::vector<Connection> &whole)
{
    const ChannelHandle c = k.c;
    for (;;) {
        std::size_t got = 0;
        etw_status st;
        if (k.head_got < sizeof k.head) {
            st = platform::channel_read_some(c, reinterpret_cast<std::uint8_t *>(&k.head) + k.head_got,
                                             sizeof k.head - k.head_got, &got);
            k.head_got += got;
            if (st == ETW_OK && k.head_got == sizeof k.head && !check_head(k))
                return drop(c);
        } else if (k.body_got < k.body.size()) {
            st = platform::channel_read_some(c, k.body.data() + k.body_got, k.body.size() - k.body_got, &got);
            k.body_got += got;
        } else {
            return take_whole(c, whole);
        }
        if (st != ETW_OK)
            return drop(c); // the caller hung up (or the channel failed) before its request was whole
        if (got == 0 && !(k.head_got == sizeof k.head && k.body_got == k.body.size()))
            return; // nothing more for now: the loop comes back when there is
    }
}

bool RequestLoop::State::check_head(Connection &k)
{
    const frames::Frame &f = k.head;
    if (f.magic != frames::kMagic)
        return false; // not a caller of ours: no answer it could read
    Status why;
    if (!frames::same_protocol(f, &why)) {
        refuse(k.c, why);
        return false;
    }
    std::uint32_t max_body = 0;
    if (Status st = k.entry->door->admit(f.kind, k.peer, &max_body); !st) {
        refuse(k.c, st);
        return false;
    }
    if (f.length > max_body) {
        refuse(k.c, Fail(ETW_ERROR_INVALID_DATA, "request " + std::to_string(f.kind) + " announces " +
                                                     std::to_string(f.length) + " bytes; it needs at most " +
                                                     std::to_string(max_body)));
        return false;
    }
    try {
        k.body.resize(f.length);
    } catch (const std::bad_alloc &) {
        refuse(k.c, Fail(ETW_ERROR_NOT_ENOUGH_MEMORY, "the session host is out of memory"));
        return false;
    }
    return true;
}

void RequestLoop::State::drop(ChannelHandle c)
{
    auto it = connections.find(c);
    if (it == connections.end())
        return;
    const std::uint32_t uid = it->second.peer.uid;
    platform::poller_remove(poller, c);
    platform::channel_close(&it->second.c);
    connections.erase(it);
    std::lock_guard<std::mutex> lock(mutex);
    --reading;
    if (--per_user[uid] <= 0)
        per_user.erase(uid);
}

void RequestLoop::State::take_whole(ChannelHandle c, std::vector<Connection> &whole)
{
    auto it = connections.find(c);
    Connection k = std::move(it->second);
    connections.erase(it);
    platform::poller_remove(poller, c);
    std::unique_lock<std::mutex> lock(mutex);
    --reading;
    Status refused;
    if (!k.entry->open) {
        refused = Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session stopped");
    } else if (serving >= kServingMax) {
        refused = Fail(ETW_ERROR_BUSY, "the session host serves " + std::to_string(serving) + " requests already");
    } else {
        ++serving;
        whole.push_back(std::move(k));
        return;
    }
    if (--per_user[k.peer.uid] <= 0)
        per_user.erase(k.peer.uid);
    lock.unlock();
    refuse(k.c, refused);
    platform::channel_close(&k.c);
}

bool RequestLoop::State::pass_lead()
{
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (followers > 0) {
            --followers;
            ++lead_offers;
            wake.notify_one();
            return true;
        }
    }
    try {
        std::thread([this] { work(true, Connection{}); }).detach();
        return true;
    } catch (const std::system_error &) {
        return false;
    }
}

void RequestLoop::State::hand_out(Connection k)
{
    std::unique_lock<std::mutex> lock(mutex);
    if (followers > 0) {
        --followers;
        ready.push_back(std::move(k));
        wake.notify_one();
        return;
    }
    lock.unlock();
    auto held = std::make_unique<Connection>(std::move(k)); // still here if no thread took it
    try {
        std::thread([this, c = held.get()] {
            Connection mine = std::move(*std::unique_ptr<Connection>(c));
            work(false, std::move(mine));
        }).detach();
        held.release();
        return;
    } catch (const std::system_error &) {
    }
    k = std::move(*held);
    refuse(k.c, Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                     "the session host cannot start a thread for this request (a tasks limit?)"));
    platform::channel_close(&k.c);
    served(k.peer.uid);
}

void RequestLoop::State::serve_one(Connection &k)
{
    try {
        k.entry->door->serve(k.c, k.peer, k.head.kind, std::move(k.body));
    } catch (const std::exception &e) {
        // Out of memory or threads midway: that caller hears of it, the host goes on.
        refuse(k.c, Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                         std::string("the session host could not serve the request: ") + e.what()));
    }
    platform::channel_close(&k.c);
    const std::uint32_t uid = k.peer.uid;
    // Its door may hold the last reference to a stopped session: let it go
    // now, not on the next request this thread takes.
    k = Connection{};
    served(uid);
}

void RequestLoop::State::served(std::uint32_t uid)
{
    std::lock_guard<std::mutex> lock(mutex);
    --serving;
    if (--per_user[uid] <= 0)
        per_user.erase(uid);
}

void RequestLoop::State::sweep(Clock::time_point now)
{
    std::vector<ChannelHandle> late;
    {
        std::lock_guard<std::mutex> lock(mutex);
        for (auto &[c, k] : connections)
            if (now >= k.deadline || !k.entry->open)
                late.push_back(c);
        for (auto it = paused.begin(); it != paused.end();) {
            if (now >= it->second) {
                platform::poller_add(poller, it->first, std::uint64_t(it->first) | kListenerBit);
                it = paused.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (ChannelHandle c : late)
        drop(c);
}

} // namespace openetw::host
