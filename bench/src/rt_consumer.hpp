// A live consumer that attaches to a real-time session and discards what it
// receives (the "real-time session, consumer discarding" write-cost figure).
//
// The real-time consumer API (etw_consumer_open_session in consumer.h) is
// being written. bench/meson.build defines OEB_HAVE_RT_CONSUMER only when
// consumer.h declares it and a call with the signature below compiles;
// otherwise available() is false and the real-time figures print
// "n/a (not built)".
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <openetw/openetw.h>

namespace bench {

class RtConsumer {
public:
    static bool available()
    {
#if defined(OEB_HAVE_RT_CONSUMER)
        return true;
#else
        return false;
#endif
    }

    // Attaches to the running real-time session `name` and starts
    // discarding on a thread of its own.
    bool start(const std::string &name, std::string *why)
    {
#if defined(OEB_HAVE_RT_CONSUMER)
        etw_consumer_options o{};
        o.struct_size = sizeof o;
        o.buffer = [](void *user, const etw_buffer_info *) -> int32_t {
            ++*static_cast<unsigned long long *>(user);
            return 0;
        };
        o.user_data = &buffers_;
        const etw_status st = etw_consumer_open_session(&consumer_, name.c_str(), &o);
        if (st != ETW_OK) {
            *why = std::string("etw_consumer_open_session: ") + etw_status_name(st) + ": " + etw_last_error_message();
            return false;
        }
        thread_ = std::thread([this] {
            etw_consumer_process(consumer_);
            finished_.store(true);
        });
        return true;
#else
        (void)name;
        *why = "the real-time consumer API is not in this build";
        return false;
#endif
    }

    // After the session stopped: lets the consumer finish (cancels it after
    // two seconds) and closes it.
    void stop()
    {
#if defined(OEB_HAVE_RT_CONSUMER)
        if (!consumer_)
            return;
        if (thread_.joinable()) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
            while (std::chrono::steady_clock::now() < deadline && !finished_.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            if (!finished_.load())
                etw_consumer_cancel(consumer_);
            thread_.join();
        }
        etw_consumer_close(consumer_);
        consumer_ = nullptr;
#endif
    }

    unsigned long long buffers() const { return buffers_; }

    ~RtConsumer() { stop(); }

private:
#if defined(OEB_HAVE_RT_CONSUMER)
    etw_consumer *consumer_ = nullptr;
    std::thread thread_;
    std::atomic<bool> finished_{false};
#endif
    unsigned long long buffers_ = 0;
};

} // namespace bench
