// src/otlp's delivery rules, through a scripted transport (the tests'
// receiver over real HTTP is etwdump_otlp_test.py): batches by count and by
// age, retries with backoff on the retryable answers only, one try per batch
// once the endpoint is down, the queue bound and what it drops, the counts.
#include "otlp/log_exporter.hpp"

#include "opentelemetry/proto/collector/logs/v1/logs_service.pb.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

using namespace openetw::otlp;
using opentelemetry::proto::logs::v1::LogRecord;
using namespace std::chrono_literals;

namespace {

// Answers each post from a script (200 once it runs out) and keeps what it
// was sent. With a gate, the first post waits until the test opens it.
struct Script {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<PostResult> answers;
    std::vector<std::vector<std::string>> bodies; // each post: the records' bodies
    bool gated = false, inside = false;
};

class ScriptedTransport final : public Transport {
public:
    explicit ScriptedTransport(Script &s) : s_(s) {}
    PostResult post(const std::string &body, const char *content_type) override
    {
        EXPECT_STREQ(content_type, "application/x-protobuf");
        opentelemetry::proto::collector::logs::v1::ExportLogsServiceRequest request;
        EXPECT_TRUE(request.ParseFromString(body));
        std::vector<std::string> names;
        for (const auto &r : request.resource_logs(0).scope_logs(0).log_records())
            names.push_back(r.body().string_value());
        std::unique_lock lock(s_.mutex);
        s_.bodies.push_back(names);
        s_.inside = true;
        s_.changed.notify_all();
        s_.changed.wait(lock, [&] { return !s_.gated; });
        if (s_.answers.empty())
            return {200, ""};
        PostResult r = s_.answers.front();
        s_.answers.pop_front();
        return r;
    }

private:
    Script &s_;
};

LogRecord named(int i)
{
    LogRecord r;
    r.mutable_body()->set_string_value("e" + std::to_string(i));
    return r;
}

struct Harness {
    Script script;
    std::vector<Millis> sleeps;
    std::unique_ptr<LogExporter> exporter;

    explicit Harness(ExporterOptions options)
    {
        options.batch_delay = 1h; // batches by count or at finish only: no timing here
        exporter =
            std::make_unique<LogExporter>(std::make_unique<ScriptedTransport>(script), Resource{"h", "s"},
                                          Encoding::Protobuf, options, [this](Millis m) { sleeps.push_back(m); });
    }
};

} // namespace

TEST(OtlpDelivery, OnlyTheRetryableAnswersAreTriedAgain)
{
    EXPECT_EQ(outcome_of({200, ""}), Outcome::Accepted);
    EXPECT_EQ(outcome_of({204, ""}), Outcome::Accepted);
    for (long status : {0L, 429L, 502L, 503L, 504L})
        EXPECT_EQ(outcome_of({status, ""}), Outcome::Retry) << status;
    for (long status : {301L, 400L, 401L, 404L, 413L, 500L})
        EXPECT_EQ(outcome_of({status, ""}), Outcome::Refused) << status;
}

TEST(OtlpDelivery, BackoffDoublesUpToItsCeiling)
{
    std::vector<long> waits;
    for (int attempt = 1; attempt <= 7; ++attempt)
        waits.push_back(long(backoff_after(attempt, 250ms, 4000ms).count()));
    EXPECT_EQ(waits, (std::vector<long>{250, 500, 1000, 2000, 4000, 4000, 4000}));
}

TEST(OtlpDelivery, ABatchIsDueWhenFullOldOrFinishing)
{
    ExporterOptions o;
    o.batch_records = 10;
    o.batch_delay = 1000ms;
    const Clock::time_point t0{};
    EXPECT_FALSE(batch_due(0, t0, t0 + 5s, o, true));     // nothing to send
    EXPECT_FALSE(batch_due(9, t0, t0 + 999ms, o, false)); // neither full nor old
    EXPECT_TRUE(batch_due(10, t0, t0, o, false));         // full
    EXPECT_TRUE(batch_due(1, t0, t0 + 1000ms, o, false)); // its oldest waited batch_delay
    EXPECT_TRUE(batch_due(1, t0, t0, o, true));           // finishing
}

TEST(OtlpDelivery, RecordsGoInOrderInBatchesOfTheCount)
{
    ExporterOptions o;
    o.batch_records = 4;
    Harness h(o);
    for (int i = 0; i < 10; ++i)
        ASSERT_TRUE(h.exporter->add(named(i)));
    const ExporterCounts c = h.exporter->finish();
    EXPECT_EQ(c.sent, 10u);
    EXPECT_EQ(c.batches, 3u);
    EXPECT_EQ(c.failed + c.dropped + c.retries, 0u);
    ASSERT_EQ(h.script.bodies.size(), 3u);
    EXPECT_EQ(h.script.bodies[0], (std::vector<std::string>{"e0", "e1", "e2", "e3"}));
    EXPECT_EQ(h.script.bodies[1], (std::vector<std::string>{"e4", "e5", "e6", "e7"}));
    EXPECT_EQ(h.script.bodies[2], (std::vector<std::string>{"e8", "e9"}));
}

TEST(OtlpDelivery, RetryableAnswersAreRetriedWithBackoffAndTheBatchSentOnce)
{
    ExporterOptions o;
    o.batch_records = 3;
    Harness h(o);
    h.script.answers = {{503, "busy"}, {0, "Connection refused"}, {429, ""}};
    for (int i = 0; i < 3; ++i)
        h.exporter->add(named(i));
    const ExporterCounts c = h.exporter->finish();
    EXPECT_EQ(c.sent, 3u);
    EXPECT_EQ(c.batches, 1u);
    EXPECT_EQ(c.retries, 3u);
    EXPECT_EQ(c.failed, 0u);
    EXPECT_EQ(h.script.bodies.size(), 4u); // the same batch four times, accepted once
    EXPECT_EQ(h.sleeps, (std::vector<Millis>{250ms, 500ms, 1000ms}));
}

TEST(OtlpDelivery, ARefusedBatchIsNotRetriedAndIsCountedFailedWithTheReason)
{
    ExporterOptions o;
    o.batch_records = 2;
    Harness h(o);
    h.script.answers = {{400, "bad body"}};
    for (int i = 0; i < 4; ++i)
        h.exporter->add(named(i));
    const ExporterCounts c = h.exporter->finish();
    EXPECT_EQ(c.failed, 2u);
    EXPECT_EQ(c.sent, 2u); // the next batch is not held back by the refusal
    EXPECT_EQ(c.retries, 0u);
    EXPECT_EQ(c.last_error, "HTTP 400: bad body");
    EXPECT_TRUE(h.sleeps.empty());
}

TEST(OtlpDelivery, RefusedCredentialsStopTheSendingAndFailEveryRecordAfterThem)
{
    for (long status : {401L, 403L}) {
        ExporterOptions o;
        o.batch_records = 2;
        Harness h(o);
        h.script.answers = {{status, "invalid api key"}};
        bool accepted = true;
        for (int i = 0; i < 6; ++i)
            accepted = h.exporter->add(named(i)) && accepted;
        const ExporterCounts c = h.exporter->finish();
        EXPECT_EQ(h.script.bodies.size(), 1u) << status << ": one request, refused, then none";
        EXPECT_EQ(c.sent, 0u);
        EXPECT_EQ(c.failed, 6u);
        EXPECT_EQ(c.retries, 0u);
        EXPECT_EQ(c.refused_for_good, status);
        EXPECT_EQ(c.last_error, "HTTP " + std::to_string(status) + ": invalid api key");
        EXPECT_TRUE(h.exporter->refused_for_good());
        EXPECT_FALSE(h.exporter->add(named(9))) << "a record added after the refusal is failed at once";
        EXPECT_EQ(h.exporter->counts().failed, 7u);
        EXPECT_TRUE(h.sleeps.empty());
    }
}

TEST(OtlpDelivery, AGoneEndpointFailsABatchAfterItsAttemptsThenOneTryEachUntilOneIsAccepted)
{
    ExporterOptions o;
    o.batch_records = 1;
    o.max_attempts = 3;
    Harness h(o);
    const PostResult gone{0, "Couldn't connect to server"};
    // batch 0: three tries, given up; batch 1: one try, given up; batch 2 accepted;
    // batch 3: failing again gets its full tries.
    h.script.answers = {gone, gone, gone, gone, {200, ""}, gone, gone, gone};
    for (int i = 0; i < 4; ++i)
        h.exporter->add(named(i));
    const ExporterCounts c = h.exporter->finish();
    EXPECT_EQ(c.failed, 3u);
    EXPECT_EQ(c.sent, 1u);
    EXPECT_EQ(h.script.bodies.size(), 8u);
    EXPECT_EQ(h.script.bodies[4], (std::vector<std::string>{"e2"}));
    EXPECT_EQ(c.last_error, "Couldn't connect to server");
}

TEST(OtlpDelivery, AFullQueueDropsAndCountsWhenNotBlocking)
{
    ExporterOptions o;
    o.batch_records = 1;
    o.queue_records = 2;
    o.block_when_full = false;
    Harness h(o);
    h.script.gated = true;
    ASSERT_TRUE(h.exporter->add(named(0)));
    {
        // The sender holds e0 in its post: the queue is empty and takes two.
        std::unique_lock lock(h.script.mutex);
        h.script.changed.wait(lock, [&] { return h.script.inside; });
    }
    EXPECT_TRUE(h.exporter->add(named(1)));
    EXPECT_TRUE(h.exporter->add(named(2)));
    EXPECT_FALSE(h.exporter->add(named(3)));
    EXPECT_FALSE(h.exporter->add(named(4)));
    EXPECT_EQ(h.exporter->counts().dropped, 2u);
    {
        std::lock_guard lock(h.script.mutex);
        h.script.gated = false;
    }
    h.script.changed.notify_all();
    const ExporterCounts c = h.exporter->finish();
    EXPECT_EQ(c.sent, 3u);
    EXPECT_EQ(c.dropped, 2u);
    EXPECT_EQ(c.failed, 0u);
}

TEST(OtlpDelivery, AFullQueueMakesTheProducerWaitWhenBlocking)
{
    ExporterOptions o;
    o.batch_records = 1;
    o.queue_records = 1;
    Harness h(o);
    h.script.gated = true;
    h.exporter->add(named(0));
    {
        std::unique_lock lock(h.script.mutex);
        h.script.changed.wait(lock, [&] { return h.script.inside; });
    }
    h.exporter->add(named(1)); // fills the queue
    std::atomic<bool> third_added{false};
    std::thread producer([&] {
        h.exporter->add(named(2)); // waits for room: e1 leaves only after e0's post
        third_added = true;
    });
    // Nothing makes room while the gate holds e0's post (the counts below are the proof:
    // a producer that did not wait would have dropped e2).
    EXPECT_FALSE(third_added.load());
    {
        std::lock_guard lock(h.script.mutex);
        h.script.gated = false;
    }
    h.script.changed.notify_all();
    producer.join();
    EXPECT_TRUE(third_added.load());
    const ExporterCounts c = h.exporter->finish();
    EXPECT_EQ(c.sent, 3u);
    EXPECT_EQ(c.dropped, 0u);
}
