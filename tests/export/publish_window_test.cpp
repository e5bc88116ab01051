// The export's window of acknowledgements in flight: up to its capacity
// ahead, an acknowledged prefix leaves the queue, and after a failure it
// goes back to the oldest unacknowledged record and sends everything again
// in order once nothing is awaited.
#include "export/publish_window.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace openetw::exporter;

namespace {

// Sends what the window allows at `now`, the queue holding [first, end).
std::vector<std::uint64_t> send_all(PublishWindow &w, std::uint64_t first, std::uint64_t end, std::int64_t now)
{
    std::vector<std::uint64_t> out;
    std::uint64_t o = 0;
    while (w.next(first, end, now, &o)) {
        w.sent(o, now);
        out.push_back(o);
    }
    return out;
}

} // namespace

TEST(PublishWindow, SendsUpToItsCapacityAheadOfTheAcknowledgements)
{
    PublishWindow w(3, 2000, 100);
    EXPECT_EQ(send_all(w, 0, 10, 0), (std::vector<std::uint64_t>{0, 1, 2}));
    w.acked(1); // out of order: 0 is still awaited, so nothing leaves the queue
    EXPECT_EQ(w.take_acked(), 0u);
    EXPECT_TRUE(send_all(w, 0, 10, 1).empty()) << "full";
    w.acked(0);
    EXPECT_EQ(w.take_acked(), 2u) << "0 and 1: the acknowledged prefix";
    EXPECT_EQ(send_all(w, 2, 10, 2), (std::vector<std::uint64_t>{3, 4}));
    EXPECT_EQ(w.awaited(), 3u);
}

TEST(PublishWindow, AFailureResendsFromTheOldestUnacknowledgedInOrderOnceNothingIsAwaited)
{
    PublishWindow w(4, 2000, 100);
    ASSERT_EQ(send_all(w, 0, 6, 0), (std::vector<std::uint64_t>{0, 1, 2, 3}));
    w.acked(0);
    w.failed(1, "refused");
    w.acked(3); // stored after the refused one: sent again anyway, its message id stores it once
    EXPECT_EQ(w.take_acked(), 1u);
    EXPECT_TRUE(send_all(w, 1, 6, 10).empty()) << "2 is still awaited: its answer counts";
    w.acked(2);
    EXPECT_EQ(w.take_acked(), 0u) << "1 failed: nothing after it leaves the queue";
    EXPECT_TRUE(send_all(w, 1, 6, 20).empty()) << "the retry waits 100 ms";
    EXPECT_EQ(w.failures(), 1u);
    EXPECT_EQ(w.last_error(), "refused");
    EXPECT_EQ(send_all(w, 1, 6, 120), (std::vector<std::uint64_t>{1})) << "one alone until the server stores again";
    w.acked(1);
    EXPECT_EQ(w.take_acked(), 1u);
    EXPECT_EQ(send_all(w, 2, 6, 130), (std::vector<std::uint64_t>{2, 3, 4, 5})) << "then the whole window, in order";
}

TEST(PublishWindow, AnAcknowledgementLaterThanTheWaitIsAFailure)
{
    PublishWindow w(2, 2000, 100);
    ASSERT_EQ(send_all(w, 0, 5, 0), (std::vector<std::uint64_t>{0, 1}));
    EXPECT_EQ(w.wait_hint(500), 1500);
    w.expire(1999);
    EXPECT_EQ(w.awaited(), 2u);
    w.expire(2000);
    EXPECT_EQ(w.awaited(), 0u);
    EXPECT_NE(w.last_error().find("no acknowledgement within 2000 ms"), std::string::npos);
    EXPECT_TRUE(send_all(w, 0, 5, 2000).empty());
    w.acked(0); // the late answer to a send given up on: ignored
    EXPECT_EQ(w.take_acked(), 0u);
    EXPECT_EQ(send_all(w, 0, 5, 2100), (std::vector<std::uint64_t>{0}));
}

TEST(PublishWindow, APublishCallThatFailsIsSentAgainAfterTheRetryWait)
{
    PublishWindow w(4, 2000, 100);
    std::uint64_t o = 0;
    ASSERT_TRUE(w.next(0, 3, 0, &o));
    w.failed(o, "not connected");
    EXPECT_FALSE(w.next(0, 3, 50, &o)); // settled here: the retry is 100 ms from now
    EXPECT_EQ(w.wait_hint(50), 100);
    EXPECT_FALSE(w.next(0, 3, 149, &o));
    ASSERT_TRUE(w.next(0, 3, 150, &o));
    EXPECT_EQ(o, 0u);
}

TEST(PublishWindow, ARecordAwaitedOverALostConnectionIsSentAgainWithoutWaitingForItsTime)
{
    PublishWindow w(4, 2000, 100);
    ASSERT_EQ(send_all(w, 0, 3, 0), (std::vector<std::uint64_t>{0, 1, 2}));
    w.acked(0);
    EXPECT_EQ(w.take_acked(), 1u);
    w.fail_awaited("reconnected");
    EXPECT_EQ(w.awaited(), 0u);
    EXPECT_EQ(w.last_error(), "reconnected");
    EXPECT_TRUE(send_all(w, 1, 3, 10).empty()) << "the retry wait still applies";
    EXPECT_EQ(send_all(w, 1, 3, 110), (std::vector<std::uint64_t>{1}));
}
