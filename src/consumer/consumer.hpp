// The consumer engine behind etw_consumer: its files, the file-order and
// time-order delivery loops, the callbacks, and the life cycle rules
// (process on the caller's thread, cancel from anywhere, close waits for
// or defers to a running process).
#pragma once

#include "consumer/buffer_source.hpp"
#include "platform/file_input.hpp"
#include "consumer/live_source.hpp"
#include "consumer/stream.hpp"

#include <openetw/consumer.h>

namespace openetw::exporter {
class NatsFollower;
}

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace openetw::consumer {

// How long a followed stream's records wait before they are delivered in
// time order (docs/FLEET.md, "Following a stream").
inline constexpr int kFollowLatenessMs = 3000;

class Consumer {
public:
    // etw_consumer_open: checks the arguments, opens every file. Once options
    // could be read, user_data_free runs exactly once: on failure before
    // this returns, otherwise when the consumer is deleted.
    static Status open(Consumer **out, const char *const *paths, std::uint32_t path_count,
                       const etw_consumer_options *options);

    // etw_consumer_open_session: a live consumer of the running real-time
    // session session_name (UTF-8, case-insensitive). Same user_data rules.
    static Status open_session(Consumer **out, const char *session_name, const etw_consumer_options *options);

    // etw_consumer_open_stream: the session instances of a nats:// stream,
    // read with credentials_file (NULL or "": the file
    // $OPENETW_NATS_CREDENTIALS names). Same user_data rules.
    static Status open_stream(Consumer **out, const char *url, const char *credentials_file,
                              const etw_consumer_options *options);

    // Live consumers: callbacks run on the processing thread before each
    // buffer's records. ETW_ERROR_BUSY while processing.
    Status set_loss_callback(etw_loss_callback callback);
    Status set_raw_buffer_callback(etw_raw_buffer_callback callback);

    // Takes ownership of options.user_data: user_data_free runs in the destructor.
    explicit Consumer(const etw_consumer_options &options);
    ~Consumer();
    Consumer(const Consumer &) = delete;
    Consumer &operator=(const Consumer &) = delete;

    // Adds a file (or, for tests and fuzzing, any input) as the next file
    // index; a nats:// URL adds each session instance of the stream (add_stream).
    // credentials_file empty: the file $OPENETW_NATS_CREDENTIALS names, if set.
    // A URL with follow=1 is followed (run_follow): it is the consumer's only
    // path, and its instances become files as their header buffers arrive.
    Status add_stream(const std::string &url, const std::string &credentials_file = {});
    // Adds a file (or, for tests and fuzzing, any input) as the next file index.
    Status add_file(const std::string &path);
    Status add_input(const std::string &name, std::unique_ptr<platform::RandomAccessInput> input);
    // Adds any source (a later real-time feed); its info().index must be file_count().
    void add_source(std::unique_ptr<BufferSource> source);

    // Runs the callbacks on this thread. When close() was called from one
    // of them, the consumer deletes itself before returning.
    Status process();
    // Also wakes a live source waiting for data.
    void cancel() noexcept;
    // Frees c, waiting for a process() on another thread; from inside a
    // callback, defers the deletion to process() (ETW_ERROR_CTX_CLOSE_PENDING).
    static Status close(Consumer *c);

    std::uint32_t file_count() const { return static_cast<std::uint32_t>(sources_.size()); }
    const SourceInfo &file(std::uint32_t index) const { return sources_[index]->info(); }
    void logfile_info(std::uint32_t index, etw_logfile_info &out) const;
    const etw_consumer_stats &stats() const { return stats_; }

private:
    // What both opens share: reads options of any version from the first,
    // creates the consumer (which then owns user_data), checks out and flags.
    static Status create(Consumer **out, const etw_consumer_options *options, std::unique_ptr<Consumer> &consumer);

    Status run();
    Status run_file_order();
    Status run_time_order();
    Status run_follow(); // follow.cpp
    // Handles one stream event; false when processing must stop.
    bool deliver(Stream &stream, Stream::Event event);
    bool deliver_record(Stream &stream);
    bool deliver_buffer(Stream &stream);
    bool stop_requested();
    void note_problem(etw_status code, const std::string &message);

    etw_consumer_options options_{};
    std::vector<std::unique_ptr<BufferSource>> sources_;
    // A followed stream: sources_ grows while processing, so cancel() (any
    // thread) walks it under this lock.
    std::unique_ptr<exporter::NatsFollower> follower_;
    std::string follow_url_;
    std::mutex sources_mutex_;
    // A follow delivers what it fetched when cancelled: its loop, not
    // stop_requested, ends it (a close from a callback still stops at once).
    bool cancel_drains_ = false;
    LiveHooks hooks_;
    etw_loss_callback loss_callback_ = nullptr;
    etw_raw_buffer_callback raw_buffer_callback_ = nullptr;

    std::atomic<bool> cancel_{false};
    std::mutex mutex_;
    std::condition_variable idle_;
    bool processing_ = false;
    bool close_pending_ = false;
    std::thread::id processing_thread_;

    // State of the running process().
    etw_consumer_stats stats_{};
    Status stop_; // why processing stopped early
    Status first_problem_;
    std::uint64_t problem_count_ = 0;
    etw_record record_view_{};
    etw_classic_event event_view_{};
    etw_event_record event_record_view_{};
    etw_buffer_info buffer_view_{};
    std::vector<etw_extended_item> extended_;
};

} // namespace openetw::consumer
