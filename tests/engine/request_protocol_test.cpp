// The request protocol between a caller and a session host
// (host/channel_frames.hpp): a host answers a request of another build's
// protocol with ETW_ERROR_NOT_SUPPORTED and a message saying so, instead of
// misreading its body or closing the channel unanswered.
#include "host/channel_frames.hpp"
#include "host/host_channel.hpp"
#include "host/session_channel.hpp"
#include "platform/channel.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <unistd.h>

using namespace openetw;
using namespace openetw::host;
using namespace openetw::platform;

namespace {

struct Pair {
    ChannelHandle listener = kNoChannel, client = kNoChannel, server = kNoChannel;
    explicit Pair(const char *what)
    {
        const std::string name = "protocol-test-" + std::to_string(getpid()) + "-" + what;
        EXPECT_EQ(channel_listen(name, &listener), ETW_OK);
        EXPECT_EQ(channel_connect(name, &client), ETW_OK);
        EXPECT_EQ(channel_accept(listener, 5000, &server, nullptr), ETW_OK);
    }
    ~Pair()
    {
        channel_close(&server);
        channel_close(&client);
        channel_close(&listener);
    }
};

// A Query request's body: an empty properties record.
std::vector<std::uint8_t> query_body()
{
    frames::Writer w;
    Properties p;
    frames::put_props(w, p);
    return w.bytes;
}

} // namespace

TEST(RequestProtocol, ASessionHostAnswersAnotherProtocolWithNotSupported)
{
    Pair pair("session");
    ASSERT_EQ(frames::send_frame(pair.client, std::uint32_t(Request::Query), kProtocol + 1, query_body()), ETW_OK);
    IncomingRequest req;
    const Status read = read_request(pair.server, &req);
    EXPECT_EQ(read.code, ETW_ERROR_NOT_SUPPORTED);
    std::vector<std::uint8_t> body;
    const Status answer = frames::await_answer(pair.client, &body, nullptr);
    EXPECT_EQ(answer.code, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(answer.message.find("another OpenETW build"), std::string::npos) << answer.message;
    EXPECT_NE(answer.message.find("protocol " + std::to_string(kProtocol) + ", this library " +
                                  std::to_string(kProtocol + 1)),
              std::string::npos)
        << answer.message;
}

TEST(RequestProtocol, ASessionHostReadsItsOwnProtocol)
{
    Pair pair("same");
    ASSERT_EQ(frames::send_request_frame(pair.client, std::uint32_t(Request::Query), query_body()), ETW_OK);
    IncomingRequest req;
    const Status read = read_request(pair.server, &req);
    EXPECT_EQ(read.code, ETW_OK) << read.message;
    EXPECT_EQ(req.code, Request::Query);
}

TEST(RequestProtocol, TheSessionHostDaemonAnswersAnotherProtocolWithNotSupported)
{
    Pair pair("host");
    // A request of a build before the protocol number (the status field was 0).
    ASSERT_EQ(frames::send_frame(pair.client, std::uint32_t(HostRequest::StopOrphan), 0, std::vector<std::uint8_t>(8)),
              ETW_OK);
    HostIncoming req;
    EXPECT_EQ(read_host_request(pair.server, &req).code, ETW_ERROR_NOT_SUPPORTED);
    std::vector<std::uint8_t> body;
    const Status answer = frames::await_answer(pair.client, &body, nullptr);
    EXPECT_EQ(answer.code, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(answer.message.find("this library 0"), std::string::npos) << answer.message;

    Pair same("host-same");
    ASSERT_EQ(
        frames::send_request_frame(same.client, std::uint32_t(HostRequest::StopOrphan), std::vector<std::uint8_t>(8)),
        ETW_OK);
    HostIncoming ok;
    EXPECT_EQ(read_host_request(same.server, &ok).code, ETW_OK);
    EXPECT_EQ(ok.code, HostRequest::StopOrphan);
}
