// Batches LogRecords and sends them through a Transport on a thread of its
// own: batched by count and by age, retried with backoff, bounded, counted
// (docs/OTLP.md, "Delivery"). add() is for one producer thread; counts()
// for any; finish() once, from the producer.
#pragma once

#include "otlp/http_post.hpp"
#include "otlp/log_request.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace openetw::otlp {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

struct ExporterOptions {
    std::size_t batch_records = 512;   // a batch goes when it has this many records...
    Millis batch_delay{1000};          // ...or its oldest record waited this long
    std::size_t queue_records = 16384; // records waiting at most
    bool block_when_full = true;       // a full queue makes add() wait (else it drops)
    int max_attempts = 5;              // tries of a batch while the endpoint answers
    Millis first_backoff{250};         // the wait after a first failed try, doubled each time
    Millis max_backoff{8000};
};

struct ExporterCounts {
    std::uint64_t sent = 0;    // records in batches the receiver accepted (2xx)
    std::uint64_t failed = 0;  // records in batches refused or given up
    std::uint64_t dropped = 0; // records the full queue could not take
    std::uint64_t batches = 0; // batches accepted
    std::uint64_t retries = 0; // tries after a first one
    std::string last_error;    // the last failure's reason, "" if none
    // 401 or 403: the receiver refused this client's credentials. Nothing is
    // sent after it (each request would be refused the same way); every
    // record queued or added later counts as failed.
    long refused_for_good = 0;
};

enum class Outcome { Accepted, Retry, Refused };

// 2xx accepted; 429, 502, 503, 504 and no answer at all tried again (OTLP/HTTP's
// retryable answers); any other answer refused (401 and 403 stop the exporter:
// ExporterCounts::refused_for_good).
Outcome outcome_of(const PostResult &result);

// The wait before try attempt+1 (attempt >= 1): first * 2^(attempt-1), at most max.
Millis backoff_after(int attempt, Millis first, Millis max);

// Whether a batch goes now: full, or its oldest record waited batch_delay,
// or the exporter is finishing.
bool batch_due(std::size_t queued, Clock::time_point oldest, Clock::time_point now, const ExporterOptions &options,
               bool finishing);

class LogExporter {
public:
    using Sleep = std::function<void(Millis)>;
    LogExporter(std::unique_ptr<Transport> transport, Resource resource, Encoding encoding, ExporterOptions options,
                Sleep sleep = {});
    LogExporter(const LogExporter &) = delete;
    LogExporter &operator=(const LogExporter &) = delete;
    ~LogExporter();

    // Queues a record; false when it was dropped (queue full, not blocking)
    // or the receiver refused the credentials (counted failed).
    bool add(opentelemetry::proto::logs::v1::LogRecord &&record);
    // Whether a 401 or 403 stopped the sending (any thread).
    bool refused_for_good() const;
    // Sends everything queued (with its retries), stops the sender, returns the counts.
    ExporterCounts finish();
    ExporterCounts counts() const;

private:
    void run();
    void send(std::vector<opentelemetry::proto::logs::v1::LogRecord> &batch);

    std::unique_ptr<Transport> transport_;
    const Resource resource_;
    const Encoding encoding_;
    const ExporterOptions options_;
    Sleep sleep_;

    mutable std::mutex mutex_;
    std::condition_variable work_; // the sender waits for records or finishing
    std::condition_variable room_; // a blocked add() waits for room
    struct Queued {
        opentelemetry::proto::logs::v1::LogRecord record;
        Clock::time_point at;
    };
    std::deque<Queued> queue_;
    bool finishing_ = false;
    // After a batch was given up, the next ones get one try each until one is
    // accepted: an endpoint that is gone costs one try per batch, not all.
    // The sender's own (read without the lock).
    bool endpoint_down_ = false;
    ExporterCounts counts_;
    std::thread sender_;
};

} // namespace openetw::otlp
