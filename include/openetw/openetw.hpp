/*
 * openetw/openetw.hpp - a header-only C++20 layer over the C ABI: RAII owners
 * of the opaque handles, errors as exceptions, callbacks as std::function,
 * and one object for a live trace. Only the C functions are linked against
 * (libopenetw.so.1), so this header adds nothing to the ABI.
 *
 * Errors. Every failing call throws openetw::error, carrying the etw_status
 * and the library's message (etw_last_error_message) for that call.
 * Lifetimes. Each class owns one handle and is move-only. A session this
 * object started is stopped when it is destroyed (errors ignored: call
 * stop() to see them) unless detach() was called; a session opened by name
 * is only closed. A provider is unregistered, a consumer closed.
 * Threads. As the C functions say (session.h, provider.h, consumer.h):
 * callbacks run on the thread the C API names; an exception thrown by a
 * consumer callback stops processing and is rethrown from process().
 */
#ifndef OPENETW_OPENETW_HPP
#define OPENETW_OPENETW_HPP

#include "openetw.h"

#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace openetw {

/** A failing library call: its status and message. */
class error : public std::runtime_error {
public:
    error(etw_status status, const std::string &message)
        : std::runtime_error(std::string(etw_status_name(status)) + ": " + message), status_(status) {}
    etw_status status() const noexcept { return status_; }

private:
    etw_status status_;
};

/** Throws error for anything but ETW_OK, with this thread's last message. */
inline void check(etw_status status)
{
    if (status != ETW_OK)
        throw error(status, etw_last_error_message());
}

/** A GUID from its text form "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (braces allowed). */
inline etw_guid guid_from_string(std::string_view text)
{
    if (text.size() == 38 && text.front() == '{' && text.back() == '}')
        text = text.substr(1, 36);
    auto hex = [&](std::size_t at, int digits) {
        std::uint64_t v = 0;
        for (int i = 0; i < digits; ++i) {
            const char c = text[at + i];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                throw error(ETW_ERROR_INVALID_PARAMETER, "not a GUID: " + std::string(text));
            v = v << 4 | std::uint64_t(d);
        }
        return v;
    };
    if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-')
        throw error(ETW_ERROR_INVALID_PARAMETER, "not a GUID: " + std::string(text));
    etw_guid g{};
    g.Data1 = std::uint32_t(hex(0, 8));
    g.Data2 = std::uint16_t(hex(9, 4));
    g.Data3 = std::uint16_t(hex(14, 4));
    for (int i = 0; i < 2; ++i)
        g.Data4[i] = std::uint8_t(hex(19 + 2 * i, 2));
    for (int i = 0; i < 6; ++i)
        g.Data4[2 + i] = std::uint8_t(hex(24 + 2 * i, 2));
    return g;
}

/** EVENT_TRACE_PROPERTIES and the two names (etw_properties). */
class properties {
public:
    explicit properties(const std::string &session_name) { check(etw_properties_create(&p_, session_name.c_str())); }
    properties(const properties &other) { check(etw_properties_clone(&p_, other.p_)); }
    properties(properties &&other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    properties &operator=(properties other) noexcept { std::swap(p_, other.p_); return *this; }
    ~properties() { etw_properties_destroy(p_); }

    properties &log_file_name(const std::string &path) { check(etw_properties_set_log_file_name(p_, path.c_str())); return *this; }
    properties &log_file_mode(std::uint32_t mode) { check(etw_properties_set_log_file_mode(p_, mode)); return *this; }
    properties &buffer_size(std::uint32_t kb) { check(etw_properties_set_buffer_size(p_, kb)); return *this; }
    properties &minimum_buffers(std::uint32_t n) { check(etw_properties_set_minimum_buffers(p_, n)); return *this; }
    properties &maximum_buffers(std::uint32_t n) { check(etw_properties_set_maximum_buffers(p_, n)); return *this; }
    properties &flush_timer(std::uint32_t seconds) { check(etw_properties_set_flush_timer(p_, seconds)); return *this; }

    std::string session_name() const { return etw_properties_session_name(p_); }
    std::uint32_t log_file_mode() const { return etw_properties_log_file_mode(p_); }
    std::uint32_t minimum_buffers() const { return etw_properties_minimum_buffers(p_); }
    std::uint32_t maximum_buffers() const { return etw_properties_maximum_buffers(p_); }
    std::uint32_t events_lost() const { return etw_properties_events_lost(p_); }
    std::uint32_t buffers_written() const { return etw_properties_buffers_written(p_); }
    std::uint32_t real_time_buffers_lost() const { return etw_properties_real_time_buffers_lost(p_); }

    etw_properties *get() const noexcept { return p_; }

private:
    etw_properties *p_ = nullptr;
};

/** A session handle (StartTrace / ControlTrace). */
class session {
public:
    /** Starts a session; props receives the adjusted settings. */
    static session start(properties &props, const etw_session_options *options = nullptr)
    {
        session s;
        check(etw_session_start_ex(&s.s_, props.get(), options));
        s.stops_ = true;
        return s;
    }
    /** Opens a running session by name; destroying it only closes the handle. */
    static session open(const std::string &name)
    {
        session s;
        check(etw_session_open(&s.s_, name.c_str()));
        return s;
    }
    session(session &&o) noexcept : s_(std::exchange(o.s_, nullptr)), stops_(std::exchange(o.stops_, false)) {}
    session &operator=(session &&o) noexcept
    {
        if (this != &o) {
            release();
            s_ = std::exchange(o.s_, nullptr);
            stops_ = std::exchange(o.stops_, false);
        }
        return *this;
    }
    ~session() { release(); }

    /** The session outlives this object: destroying it only closes the handle. */
    void detach() noexcept { stops_ = false; }
    bool stops_on_destruction() const noexcept { return stops_; }

    void enable_provider(const etw_guid &guid, std::uint8_t level = 0, std::uint64_t any = 0, std::uint64_t all = 0)
    {
        check(etw_session_enable_provider(s_, &guid, ETW_CONTROL_CODE_ENABLE_PROVIDER, level, any, all));
    }
    void disable_provider(const etw_guid &guid)
    {
        check(etw_session_enable_provider(s_, &guid, ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0));
    }
    /** Stops the session (ControlTrace STOP); props, if given, gets the final statistics. */
    void stop(properties *props = nullptr)
    {
        stops_ = false;
        check(etw_session_stop(s_, props ? props->get() : nullptr));
    }
    void query(properties &props) { check(etw_session_query(s_, props.get())); }
    void flush(properties *props = nullptr) { check(etw_session_flush(s_, props ? props->get() : nullptr)); }
    std::uint64_t handle() const noexcept { return etw_session_handle(s_); }
    etw_session *get() const noexcept { return s_; }

private:
    session() = default;
    void release() noexcept
    {
        if (s_ && stops_)
            (void)etw_session_stop(s_, nullptr);
        etw_session_close(s_);
        s_ = nullptr;
        stops_ = false;
    }
    etw_session *s_ = nullptr;
    bool stops_ = false; // started here, not detached, not stopped
};

/** A registered classic provider (RegisterTraceGuids + TraceEvent). */
class provider {
public:
    using enable_callback = std::function<void(const etw_provider_enable_info &)>;

    explicit provider(const etw_guid &guid, enable_callback on_enable = {}) : guid_(guid)
    {
        auto *cb = on_enable ? new enable_callback(std::move(on_enable)) : nullptr;
        const etw_status st = etw_provider_register(&p_, &guid, cb ? &provider::trampoline : nullptr, cb,
                                                    cb ? &provider::free_callback : nullptr);
        if (st != ETW_OK)
            delete cb; // not owned by the library on failure
        check(st);
    }
    provider(provider &&o) noexcept : p_(std::exchange(o.p_, nullptr)), guid_(o.guid_) {}
    provider &operator=(provider &&o) noexcept
    {
        if (this != &o) {
            etw_provider_unregister(p_);
            p_ = std::exchange(o.p_, nullptr);
            guid_ = o.guid_;
        }
        return *this;
    }
    ~provider() { etw_provider_unregister(p_); }

    bool is_enabled(std::uint8_t level = 0, std::uint64_t keywords = 0) const
    {
        return etw_provider_is_enabled(p_, level, keywords) != 0;
    }
    /** Writes one event of class (type, level, version) with payload (at most 0xFFFF - 48 bytes).
        False when a session had no room and dropped it (counted in its EventsLost:
        ETW_ERROR_NOT_ENOUGH_MEMORY, ETW_ERROR_LOG_FILE_FULL); other failures throw. */
    bool write(std::uint8_t type, std::uint8_t level, std::span<const std::uint8_t> payload, std::uint16_t version = 0)
    {
        if (payload.size() > 0xFFFFu - sizeof(etw_event_trace_header))
            throw error(ETW_ERROR_INVALID_PARAMETER, "payload of " + std::to_string(payload.size()) + " bytes is too large");
        struct {
            etw_event_trace_header header;
            etw_mof_field field;
        } e{};
        e.header.Size = std::uint16_t(sizeof(etw_event_trace_header) + sizeof(etw_mof_field));
        e.header.Class.Type = type;
        e.header.Class.Level = level;
        e.header.Class.Version = version;
        e.header.Guid = guid_;
        e.header.Flags = ETW_WNODE_FLAG_TRACED_GUID | ETW_WNODE_FLAG_USE_MOF_PTR;
        e.field.DataPtr = std::uint64_t(reinterpret_cast<std::uintptr_t>(payload.data()));
        e.field.Length = std::uint32_t(payload.size());
        const etw_status st = etw_provider_trace_event(p_, &e.header);
        if (st == ETW_ERROR_NOT_ENOUGH_MEMORY || st == ETW_ERROR_LOG_FILE_FULL)
            return false;
        check(st);
        return true;
    }
    bool write(std::uint8_t type, std::uint8_t level, std::string_view text, std::uint16_t version = 0)
    {
        return write(type, level, std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()), version);
    }
    etw_provider *get() const noexcept { return p_; }

private:
    static void trampoline(const etw_provider_enable_info *info, void *user)
    {
        try {
            (*static_cast<enable_callback *>(user))(*info);
        } catch (...) {
            // No C frame may be unwound through; an enable callback must not throw.
            std::terminate();
        }
    }
    static void free_callback(void *user) { delete static_cast<enable_callback *>(user); }
    etw_provider *p_ = nullptr;
    etw_guid guid_;
};

/** A classic event as a consumer callback sees it (borrowed during the call). */
struct event {
    const etw_classic_event &raw;
    const etw_guid &guid() const noexcept { return raw.header.Guid; }
    std::uint8_t type() const noexcept { return raw.header.Class.Type; }
    std::uint8_t level() const noexcept { return raw.header.Class.Level; }
    std::uint16_t version() const noexcept { return raw.header.Class.Version; }
    std::uint32_t thread_id() const noexcept { return raw.header.ThreadId; }
    std::int64_t timestamp() const noexcept { return raw.header.TimeStamp; }
    std::span<const std::uint8_t> payload() const noexcept { return {raw.payload, raw.payload_size}; }
    std::string_view text() const noexcept { return {reinterpret_cast<const char *>(raw.payload), raw.payload_size}; }
};

/** Reads .etl files or a live real-time session, calling on_event for each classic event. */
class consumer {
public:
    using event_callback = std::function<void(const event &)>;

    static consumer open_files(const std::vector<std::string> &paths, event_callback on_event)
    {
        consumer c(std::move(on_event));
        std::vector<const char *> raw;
        for (const auto &p : paths)
            raw.push_back(p.c_str());
        auto options = c.options();
        check(etw_consumer_open(&c.c_, raw.data(), std::uint32_t(raw.size()), &options));
        return c;
    }
    static consumer open_session(const std::string &session_name, event_callback on_event)
    {
        consumer c(std::move(on_event));
        auto options = c.options();
        check(etw_consumer_open_session(&c.c_, session_name.c_str(), &options));
        return c;
    }
    consumer(consumer &&o) noexcept : c_(std::exchange(o.c_, nullptr)), state_(std::move(o.state_)) {}
    consumer &operator=(consumer &&o) noexcept
    {
        if (this != &o) {
            (void)etw_consumer_close(c_);
            c_ = std::exchange(o.c_, nullptr);
            state_ = std::move(o.state_);
        }
        return *this;
    }
    ~consumer() { (void)etw_consumer_close(c_); }

    /** Runs the callbacks on this thread until the files end or the live session stops.
        Rethrows a callback's exception; throws error for other failures. */
    void process()
    {
        const etw_status st = etw_consumer_process(c_);
        if (state_->failure)
            std::rethrow_exception(std::exchange(state_->failure, nullptr));
        check(st);
    }
    /** From any thread: the running process() ends (throws ERROR_CANCELLED). */
    void cancel() noexcept { (void)etw_consumer_cancel(c_); }
    etw_consumer_stats stats() const
    {
        etw_consumer_stats s{};
        s.struct_size = sizeof s;
        check(etw_consumer_get_stats(&s, c_));
        return s;
    }

private:
    struct state {
        event_callback on_event;
        std::exception_ptr failure;
    };
    explicit consumer(event_callback cb) : state_(std::make_unique<state>(state{std::move(cb), nullptr})) {}
    etw_consumer_options options()
    {
        etw_consumer_options o{};
        o.struct_size = sizeof o;
        o.event = &consumer::on_event;
        o.user_data = state_.get(); // owned here; outlives the handle
        return o;
    }
    static std::int32_t on_event(void *user, const etw_classic_event *e)
    {
        auto *s = static_cast<state *>(user);
        try {
            if (s->on_event)
                s->on_event(event{*e});
            return 0;
        } catch (...) {
            s->failure = std::current_exception();
            return 1;
        }
    }
    etw_consumer *c_ = nullptr;
    std::unique_ptr<state> state_;
};

/** One provider a live trace enables. */
struct enable {
    etw_guid guid;
    std::uint8_t level = ETW_LEVEL_VERBOSE;
    std::uint64_t match_any_keyword = 0;
    std::uint64_t match_all_keyword = 0;
};

/**
 * A live trace in one object: starts a real-time session named name, enables
 * the providers, and delivers every classic event to on_event on a thread of
 * its own. stop() (or leaving scope) stops the session; every event the
 * session logged has been delivered when it returns. on_event must not throw
 * (an exception it throws is rethrown from stop()).
 */
class live_trace {
public:
    live_trace(const std::string &name, std::initializer_list<enable> providers, consumer::event_callback on_event)
        : props_(name), session_(start(props_))
    {
        for (const auto &p : providers)
            session_.enable_provider(p.guid, p.level, p.match_any_keyword, p.match_all_keyword);
        consumer_ = std::make_unique<consumer>(consumer::open_session(name, std::move(on_event)));
        thread_ = std::thread([this] {
            try {
                consumer_->process();
            } catch (...) {
                failure_ = std::current_exception();
            }
        });
    }
    live_trace(const live_trace &) = delete;
    live_trace &operator=(const live_trace &) = delete;
    ~live_trace()
    {
        try {
            finish();
        } catch (...) {
        }
    }

    /** Stops the session, waits until every event was delivered, and returns
        its final properties (EventsLost, BuffersWritten). */
    const properties &stop()
    {
        finish();
        return props_;
    }
    session &control() noexcept { return session_; }

private:
    static session start(properties &props)
    {
        props.log_file_mode(ETW_REAL_TIME_MODE);
        return session::start(props);
    }
    void finish()
    {
        if (!thread_.joinable())
            return;
        std::exception_ptr stop_failure;
        if (session_.stops_on_destruction()) {
            try {
                session_.stop(&props_);
            } catch (...) {
                stop_failure = std::current_exception();
                consumer_->cancel(); // the feed will not end by itself
            }
        }
        thread_.join();
        if (stop_failure)
            std::rethrow_exception(stop_failure);
        if (failure_)
            std::rethrow_exception(std::exchange(failure_, nullptr));
    }
    properties props_;
    session session_;
    std::unique_ptr<consumer> consumer_;
    std::thread thread_;
    std::exception_ptr failure_;
};

} // namespace openetw

#endif /* OPENETW_OPENETW_HPP */
