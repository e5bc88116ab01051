// The session host's request loop (host/request_loop.hpp): a request of
// another build's protocol is answered with ETW_ERROR_NOT_SUPPORTED; a door
// refuses from the head alone, before any body is sent; a declared length
// beyond what the kind needs is refused unread; a silent or slow caller
// holds nobody up; a removed listener admits nothing more.
#include "host/channel_frames.hpp"
#include "host/host_channel.hpp"
#include "host/request_loop.hpp"
#include "host/session_channel.hpp"
#include "platform/channel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace openetw;
using namespace openetw::host;
using namespace openetw::platform;
using namespace std::chrono_literals;

namespace {

// Admits Query (a properties body) and Writer (no body), refuses Stop from
// the head; serves by answering with the request it parsed.
class TestDoor final : public RequestDoor {
public:
    std::atomic<int> admitted{0}, served{0};
    Status admit(std::uint32_t kind, const PeerCredentials &, std::uint32_t *max_body) override
    {
        ++admitted;
        if (Request(kind) == Request::Stop)
            return Fail(ETW_ERROR_ACCESS_DENIED, "no stopping here");
        const std::int64_t max = max_request_body(kind);
        if (max < 0)
            return Fail(ETW_ERROR_INVALID_DATA, "unknown request");
        *max_body = std::uint32_t(max);
        return Status::ok();
    }
    void serve(ChannelHandle c, const PeerCredentials &, std::uint32_t kind, std::vector<std::uint8_t> body) override
    {
        IncomingRequest req;
        const Status st = parse_request(kind, body, &req);
        ++served; // before the caller hears of it
        frames::send_answer(c, st.code == ETW_OK ? Fail(ETW_OK, "served " + std::to_string(kind)) : st, {});
    }
};

struct Served {
    std::string name;
    ChannelHandle listener = kNoChannel;
    std::shared_ptr<TestDoor> door = std::make_shared<TestDoor>();
    explicit Served(const char *what) : name("loop-test-" + std::to_string(getpid()) + "-" + what)
    {
        EXPECT_EQ(channel_listen(name, &listener), ETW_OK);
        EXPECT_TRUE(RequestLoop::instance().add(listener, door));
    }
    ~Served() { RequestLoop::instance().remove(listener); }
    ChannelHandle connect() const
    {
        ChannelHandle c = kNoChannel;
        EXPECT_EQ(channel_connect(name, &c), ETW_OK);
        return c;
    }
};

std::vector<std::uint8_t> query_body()
{
    frames::Writer w;
    Properties p;
    frames::put_props(w, p);
    return w.bytes;
}

Status ask(ChannelHandle c)
{
    std::vector<std::uint8_t> body;
    Status st = frames::await_answer(c, &body, nullptr);
    channel_close(&c);
    return st;
}

// Sends a frame head alone, announcing length body bytes.
void send_head(ChannelHandle c, std::uint32_t kind, std::uint32_t length)
{
    const frames::Frame f{frames::kMagic, kind, kProtocol, length};
    ASSERT_EQ(channel_send(c, &f, sizeof f, 1000), ETW_OK);
}

} // namespace

TEST(RequestLoop, AnotherProtocolIsAnsweredWithNotSupported)
{
    Served s("protocol");
    ChannelHandle c = s.connect();
    ASSERT_EQ(frames::send_frame(c, std::uint32_t(Request::Query), kProtocol + 1, query_body()), ETW_OK);
    const Status answer = ask(c);
    EXPECT_EQ(answer.code, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(answer.message.find("another OpenETW build"), std::string::npos) << answer.message;
    EXPECT_NE(answer.message.find("protocol " + std::to_string(kProtocol) + ", this library " +
                                  std::to_string(kProtocol + 1)),
              std::string::npos)
        << answer.message;
    EXPECT_EQ(s.door->admitted.load(), 0) << "the door saw a request of another protocol";
}

TEST(RequestLoop, ARequestOfThisProtocolIsServedWithItsBody)
{
    Served s("same");
    ChannelHandle c = s.connect();
    ASSERT_EQ(frames::send_request_frame(c, std::uint32_t(Request::Query), query_body()), ETW_OK);
    const Status answer = ask(c);
    EXPECT_EQ(answer.code, ETW_OK) << answer.message;
    EXPECT_EQ(answer.message, "served 1");
    EXPECT_EQ(s.door->served.load(), 1);
}

TEST(RequestLoop, ADoorRefusesFromTheHeadBeforeAnyBodyIsSent)
{
    Served s("refuse");
    ChannelHandle c = s.connect();
    send_head(c, std::uint32_t(Request::Stop), 100); // the 100 bytes never come
    const Status answer = ask(c);
    EXPECT_EQ(answer.code, ETW_ERROR_ACCESS_DENIED) << answer.message;
    EXPECT_EQ(answer.message, "no stopping here");
    EXPECT_EQ(s.door->served.load(), 0);
}

TEST(RequestLoop, ALengthBeyondWhatTheKindNeedsIsRefusedUnread)
{
    Served s("length");
    ChannelHandle c = s.connect();
    send_head(c, std::uint32_t(Request::Query), 16u << 20);
    Status answer = ask(c);
    EXPECT_EQ(answer.code, ETW_ERROR_INVALID_DATA);
    EXPECT_NE(answer.message.find("announces 16777216 bytes"), std::string::npos) << answer.message;
    // A request without a body may not carry one either.
    c = s.connect();
    send_head(c, std::uint32_t(Request::Writer), 1);
    EXPECT_EQ(ask(c).code, ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(s.door->served.load(), 0);
}

TEST(RequestLoop, SilentAndSlowCallersHoldNobodyUp)
{
    Served s("silent");
    // Silent connections, half heads and bodies that stop midway.
    std::vector<ChannelHandle> idle;
    for (int i = 0; i < 20; ++i)
        idle.push_back(s.connect());
    for (int i = 0; i < 10; ++i) {
        ChannelHandle c = s.connect();
        ASSERT_EQ(channel_send(c, &frames::kMagic, 4, 1000), ETW_OK);
        idle.push_back(c);
    }
    for (int i = 0; i < 10; ++i) {
        ChannelHandle c = s.connect();
        send_head(c, std::uint32_t(Request::Query), std::uint32_t(query_body().size()));
        ASSERT_EQ(channel_send(c, query_body().data(), 10, 1000), ETW_OK);
        idle.push_back(c);
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) {
        ChannelHandle c = s.connect();
        ASSERT_EQ(frames::send_request_frame(c, std::uint32_t(Request::Query), query_body()), ETW_OK);
        EXPECT_EQ(ask(c).code, ETW_OK);
    }
    // Served one after another, all 20 well before the first silent caller timed out.
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(kRequestWaitMs));
    EXPECT_EQ(s.door->served.load(), 20);
    // The silent ones are dropped once their time is up: they read an end, not an answer.
    std::this_thread::sleep_for(std::chrono::milliseconds(kRequestWaitMs) + 500ms);
    EXPECT_EQ(RequestLoop::instance().busy(), 0);
    for (ChannelHandle &c : idle) {
        char b;
        EXPECT_EQ(channel_recv(c, &b, 1, 1000), ETW_ERROR_HANDLE_EOF);
        channel_close(&c);
    }
}

TEST(RequestLoop, ARemovedListenerAdmitsNothingMore)
{
    auto s = std::make_unique<Served>("removed");
    ChannelHandle half = s->connect();
    send_head(half, std::uint32_t(Request::Query), std::uint32_t(query_body().size()));
    std::this_thread::sleep_for(100ms); // the head is read and admitted
    const std::shared_ptr<TestDoor> door = s->door;
    s.reset();
    // The rest of the body arrives after the removal: never served.
    const std::vector<std::uint8_t> body = query_body();
    channel_send(half, body.data(), body.size(), 1000);
    // Dropped unanswered, or told the session stopped: either way at once.
    std::vector<std::uint8_t> answer;
    const Status st = frames::await_answer(half, &answer, nullptr);
    EXPECT_EQ(st.code, ETW_ERROR_WMI_INSTANCE_NOT_FOUND) << st.message;
    channel_close(&half);
    EXPECT_EQ(door->served.load(), 0);
}

TEST(RequestLoop, HostRequestsAreBoundedByKind)
{
    // Parsing of the host's own requests, and the bounds the loop applies first.
    EXPECT_EQ(max_host_request_body(std::uint32_t(HostRequest::StopOrphan)), 8);
    EXPECT_LT(max_host_request_body(std::uint32_t(HostRequest::Start)), 8192);
    EXPECT_EQ(max_host_request_body(7), -1);
    HostIncoming ok;
    EXPECT_EQ(parse_host_request(std::uint32_t(HostRequest::StopOrphan), std::vector<std::uint8_t>(8), &ok).code,
              ETW_OK);
    EXPECT_EQ(ok.code, HostRequest::StopOrphan);
    HostIncoming bad;
    EXPECT_EQ(parse_host_request(std::uint32_t(HostRequest::StopOrphan), std::vector<std::uint8_t>(3), &bad).code,
              ETW_ERROR_INVALID_DATA);
}

namespace {
// Holds every Query it serves until opened; answers Writer at once.
class GateDoor final : public RequestDoor {
public:
    std::mutex m;
    std::condition_variable cv;
    bool open = false;
    std::atomic<int> held{0};
    Status admit(std::uint32_t kind, const PeerCredentials &, std::uint32_t *max_body) override
    {
        *max_body = std::uint32_t(max_request_body(kind));
        return Status::ok();
    }
    void serve(ChannelHandle c, const PeerCredentials &, std::uint32_t kind, std::vector<std::uint8_t>) override
    {
        if (Request(kind) == Request::Query) {
            std::unique_lock<std::mutex> lock(m);
            ++held;
            cv.wait(lock, [this] { return open; });
        }
        frames::send_answer(c, Fail(ETW_OK, "served " + std::to_string(kind)), {});
    }
    void release()
    {
        std::lock_guard<std::mutex> lock(m);
        open = true;
        cv.notify_all();
    }
};
} // namespace

TEST(RequestLoop, RequestsHeldInTheirDoorHoldNoOtherCallerUp)
{
    // The thread that read a request serves it and passes the loop on: with
    // several requests held inside the door at once, and more arriving
    // together, every other caller is still read and answered.
    const std::string name = "loop-test-" + std::to_string(getpid()) + "-gate";
    ChannelHandle listener = kNoChannel;
    ASSERT_EQ(channel_listen(name, &listener), ETW_OK);
    auto door = std::make_shared<GateDoor>();
    ASSERT_TRUE(RequestLoop::instance().add(listener, door));
    std::vector<ChannelHandle> held;
    for (int i = 0; i < 6; ++i) {
        ChannelHandle c = kNoChannel;
        ASSERT_EQ(channel_connect(name, &c), ETW_OK);
        ASSERT_EQ(frames::send_request_frame(c, std::uint32_t(Request::Query), query_body()), ETW_OK);
        held.push_back(c);
    }
    for (int i = 0; i < 200 && door->held.load() < 6; ++i)
        std::this_thread::sleep_for(10ms);
    EXPECT_EQ(door->held.load(), 6) << "requests sent together were not all taken";
    for (int i = 0; i < 20; ++i) {
        ChannelHandle c = kNoChannel;
        ASSERT_EQ(channel_connect(name, &c), ETW_OK);
        ASSERT_EQ(frames::send_request_frame(c, std::uint32_t(Request::Writer), {}), ETW_OK);
        char b;
        ASSERT_EQ(channel_recv(c, &b, 1, 5000), ETW_OK) << "caller " << i << " unanswered while others are held";
        channel_close(&c);
    }
    door->release();
    for (ChannelHandle c : held)
        EXPECT_EQ(ask(c).code, ETW_OK);
    RequestLoop::instance().remove(listener);
}

TEST(RequestLoop, ADoorIsLetGoOnceItsRequestsAreServedAndItIsRemoved)
{
    // A session's door holds the session: a thread done serving must not keep
    // it alive while it waits for the next request (idle threads wait 2 s).
    std::weak_ptr<TestDoor> door;
    {
        Served s("release");
        door = s.door;
        for (int i = 0; i < 3; ++i) {
            ChannelHandle c = s.connect();
            ASSERT_EQ(frames::send_request_frame(c, std::uint32_t(Request::Query), query_body()), ETW_OK);
            EXPECT_EQ(ask(c).code, ETW_OK);
        }
    }
    for (int i = 0; i < 50 && !door.expired(); ++i)
        std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(door.expired()) << "a thread done serving still holds the door";
}
