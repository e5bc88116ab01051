#include "otlp/log_exporter.hpp"

namespace openetw::otlp {

using opentelemetry::proto::logs::v1::LogRecord;

Outcome outcome_of(const PostResult &result)
{
    if (result.status >= 200 && result.status < 300)
        return Outcome::Accepted;
    switch (result.status) {
    case 0: // no answer: refused, reset, timed out
    case 429:
    case 502:
    case 503:
    case 504:
        return Outcome::Retry;
    default:
        return Outcome::Refused;
    }
}

Millis backoff_after(int attempt, Millis first, Millis max)
{
    Millis wait = first;
    for (int i = 1; i < attempt && wait < max; ++i)
        wait *= 2;
    return wait < max ? wait : max;
}

bool batch_due(std::size_t queued, Clock::time_point oldest, Clock::time_point now, const ExporterOptions &options,
               bool finishing)
{
    if (queued == 0)
        return false;
    return finishing || queued >= options.batch_records || now - oldest >= options.batch_delay;
}

LogExporter::LogExporter(std::unique_ptr<Transport> transport, Resource resource, Encoding encoding,
                         ExporterOptions options, Sleep sleep)
    : transport_(std::move(transport)), resource_(std::move(resource)), encoding_(encoding), options_(options),
      sleep_(sleep ? std::move(sleep) : Sleep([](Millis m) { std::this_thread::sleep_for(m); }))
{
    sender_ = std::thread([this] { run(); });
}

LogExporter::~LogExporter() { finish(); }

bool LogExporter::add(LogRecord &&record)
{
    std::unique_lock lock(mutex_);
    if (counts_.refused_for_good != 0) {
        ++counts_.failed;
        return false;
    }
    if (queue_.size() >= options_.queue_records) {
        if (!options_.block_when_full || finishing_) {
            ++counts_.dropped;
            return false;
        }
        room_.wait(lock, [&] { return queue_.size() < options_.queue_records || counts_.refused_for_good != 0; });
        if (counts_.refused_for_good != 0) {
            ++counts_.failed;
            return false;
        }
    }
    queue_.push_back({std::move(record), Clock::now()});
    if (queue_.size() >= options_.batch_records || queue_.size() == 1)
        work_.notify_one();
    return true;
}

ExporterCounts LogExporter::finish()
{
    {
        std::lock_guard lock(mutex_);
        finishing_ = true;
    }
    work_.notify_one();
    if (sender_.joinable())
        sender_.join();
    return counts();
}

bool LogExporter::refused_for_good() const
{
    std::lock_guard lock(mutex_);
    return counts_.refused_for_good != 0;
}

ExporterCounts LogExporter::counts() const
{
    std::lock_guard lock(mutex_);
    return counts_;
}

void LogExporter::run()
{
    std::vector<LogRecord> batch;
    std::unique_lock lock(mutex_);
    for (;;) {
        const Clock::time_point now = Clock::now();
        const Clock::time_point oldest = queue_.empty() ? now : queue_.front().at;
        if (!batch_due(queue_.size(), oldest, now, options_, finishing_)) {
            if (finishing_)
                return; // nothing left
            if (queue_.empty())
                work_.wait(lock);
            else
                work_.wait_until(lock, oldest + options_.batch_delay);
            continue;
        }
        const std::size_t n = std::min(queue_.size(), options_.batch_records);
        batch.clear();
        batch.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            batch.push_back(std::move(queue_.front().record));
            queue_.pop_front();
        }
        room_.notify_all();
        if (counts_.refused_for_good != 0) {
            counts_.failed += batch.size(); // never sent: refused the same way
            continue;
        }
        lock.unlock();
        send(batch);
        lock.lock();
    }
}

void LogExporter::send(std::vector<LogRecord> &batch)
{
    const std::uint64_t records = batch.size();
    const std::string body = encode_request(resource_, batch, encoding_);
    const int attempts = endpoint_down_ ? 1 : options_.max_attempts;
    for (int attempt = 1;; ++attempt) {
        const PostResult result = transport_->post(body, content_type(encoding_));
        const Outcome outcome = outcome_of(result);
        {
            std::lock_guard lock(mutex_);
            if (outcome == Outcome::Accepted) {
                counts_.sent += records;
                ++counts_.batches;
                endpoint_down_ = false;
                return;
            }
            counts_.last_error = result.status ? "HTTP " + std::to_string(result.status) +
                                                     (result.error.empty() ? "" : ": " + result.error)
                                               : result.error;
            if (outcome == Outcome::Refused || attempt >= attempts) {
                counts_.failed += records;
                if (result.status == 401 || result.status == 403) {
                    counts_.refused_for_good = result.status;
                    room_.notify_all(); // a producer waiting for room fails its record instead
                }
                // A refusal is this batch's; no answer after every try is the endpoint's.
                endpoint_down_ = outcome == Outcome::Retry;
                return;
            }
            ++counts_.retries;
        }
        // The wait is outside the lock: the producer keeps queueing.
        sleep_(backoff_after(attempt, options_.first_backoff, options_.max_backoff));
    }
}

} // namespace openetw::otlp
