#include "consumer/consumer.hpp"

#include "base/utf.hpp"
#include "consumer/file_source.hpp"
#include "export/export_url.hpp"
#include "export/credentials.hpp"
#include "export/nats_export.hpp"
#include "export/nats_follow.hpp"
#include "host/session_ref.hpp"
#include "consumer/stream.hpp"
#include "consumer/views.hpp"
#include "format/etl_layout.hpp"
#include "format/problem.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <map>
#include <queue>
#include <tuple>

namespace openetw::consumer {

namespace {
// Up to this many streams time order merges by scanning their heads.
constexpr std::size_t kScanMergeLimit = 8;
} // namespace

Consumer::Consumer(const etw_consumer_options &options) : options_(options)
{
    hooks_.loss = [this](std::uint32_t events, std::uint32_t buffers, std::string *why) {
        stats_.events_lost += events;
        if (!loss_callback_)
            return true;
        etw_loss_info info{};
        info.struct_size = sizeof info;
        info.events_lost = events;
        info.buffers_lost = buffers;
        const std::int32_t r = loss_callback_(options_.user_data, &info);
        if (r != 0)
            *why = format::text_printf("the loss callback returned %d: processing stopped", int(r));
        return r == 0;
    };
    hooks_.raw_buffer = [this](const std::vector<std::uint8_t> &bytes, std::string *why) {
        if (!raw_buffer_callback_)
            return true;
        const std::int32_t r = raw_buffer_callback_(options_.user_data, bytes.data(), std::uint32_t(bytes.size()));
        if (r != 0)
            *why = format::text_printf("the raw buffer callback returned %d: processing stopped", int(r));
        return r == 0;
    };
}

void Consumer::cancel() noexcept
{
    cancel_.store(true, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(sources_mutex_);
    for (auto &s : sources_)
        s->interrupt();
}

Status Consumer::set_loss_callback(etw_loss_callback callback)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (processing_)
        return Fail(ETW_ERROR_BUSY, "the consumer is processing; set callbacks before etw_consumer_process");
    loss_callback_ = callback;
    return Status::ok();
}

Status Consumer::set_raw_buffer_callback(etw_raw_buffer_callback callback)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (processing_)
        return Fail(ETW_ERROR_BUSY, "the consumer is processing; set callbacks before etw_consumer_process");
    raw_buffer_callback_ = callback;
    return Status::ok();
}

Status Consumer::create(Consumer **out, const etw_consumer_options *options, std::unique_ptr<Consumer> &consumer)
{
    if (out)
        *out = nullptr;
    // The first version of etw_consumer_options; later versions only append.
    constexpr std::size_t kOptionsV1 = offsetof(etw_consumer_options, user_data_free) + sizeof(void (*)(void *));
    etw_consumer_options opts{};
    if (options) {
        if (options->struct_size < kOptionsV1)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        format::text_printf("options->struct_size is %u; set it to sizeof(etw_consumer_options) = %zu",
                                            options->struct_size, sizeof(etw_consumer_options)));
        // The fields both the caller and this library know.
        std::memcpy(&opts, options, std::min<std::size_t>(options->struct_size, sizeof opts));
    }
    opts.struct_size = sizeof opts;
    try {
        consumer = std::make_unique<Consumer>(opts);
    } catch (...) {
        if (opts.user_data_free)
            opts.user_data_free(opts.user_data);
        throw;
    }
    if (out == nullptr)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "out is NULL");
    const std::uint32_t known = ETW_CONSUMER_ORDER_FILE | ETW_CONSUMER_RAW_TIMESTAMP | ETW_CONSUMER_FOLLOW;
    if (opts.flags & ~known)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    format::text_printf("options->flags has unknown bits 0x%X", opts.flags & ~known));
    return Status::ok();
}

Status Consumer::open_session(Consumer **out, const char *session_name, const etw_consumer_options *options)
{
    std::unique_ptr<Consumer> consumer;
    if (Status st = create(out, options, consumer); !st)
        return st;
    if (session_name == nullptr)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "session_name is NULL");
    auto name = utf8_to_utf16(session_name);
    if (!name)
        return Fail(ETW_ERROR_NO_UNICODE_TRANSLATION, "session_name is not valid UTF-8");
    std::unique_ptr<host::SessionRef> session;
    if (Status st = host::open_session(*name, &session); !st)
        return st;
    std::unique_ptr<engine::LiveFeed> feed;
    std::vector<std::uint8_t> header;
    std::unique_ptr<LiveSource> source;
    Status st = session->open_feed(&feed, &header);
    if (st)
        st = LiveSource::open(std::move(feed), header, session_name, 0, &consumer->hooks_, source);
    if (!st)
        return Fail(st.code, std::string("cannot consume \"") + session_name + "\" live: " + st.message);
    consumer->sources_.push_back(std::move(source));
    *out = consumer.release();
    return Status::ok();
}

Status Consumer::open(Consumer **out, const char *const *paths, std::uint32_t path_count,
                      const etw_consumer_options *options)
{
    std::unique_ptr<Consumer> consumer;
    if (Status st = create(out, options, consumer); !st)
        return st;
    if (paths == nullptr)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "paths is NULL");
    if (path_count == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "path_count is 0");
    for (std::uint32_t i = 0; i < path_count; ++i) {
        if (paths[i] == nullptr)
            return Fail(ETW_ERROR_INVALID_PARAMETER, format::text_printf("paths[%u] is NULL", i));
        if (Status st = consumer->add_file(paths[i]); !st)
            return st;
    }
    *out = consumer.release();
    return Status::ok();
}

Status Consumer::open_stream(Consumer **out, const char *url, const char *credentials_file,
                             const etw_consumer_options *options)
{
    std::unique_ptr<Consumer> consumer;
    if (Status st = create(out, options, consumer); !st)
        return st;
    if (url == nullptr)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "url is NULL");
    if (!exporter::is_nats_url(url))
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    std::string("url \"") + url + "\" is not a stream URL (nats://HOST[:PORT]/STREAM)");
    if (Status st = consumer->add_stream(url, credentials_file ? credentials_file : ""); !st)
        return st;
    *out = consumer.release();
    return Status::ok();
}

Consumer::~Consumer()
{
    sources_.clear();
    follower_.reset();
    if (options_.user_data_free)
        options_.user_data_free(options_.user_data);
}

Status Consumer::add_input(const std::string &name, std::unique_ptr<platform::RandomAccessInput> input)
{
    if (options_.flags & ETW_CONSUMER_FOLLOW)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "ETW_CONSUMER_FOLLOW follows a stream (nats://HOST:PORT/STREAM); " + name + " is not one");
    if (follower_)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "a followed stream (follow=1) is read alone: " + name + " cannot be read with it");
    std::unique_ptr<FileSource> source;
    if (Status st = FileSource::open(std::move(input), name, file_count(), source); !st)
        return st;
    sources_.push_back(std::move(source));
    return Status::ok();
}

Status Consumer::add_stream(const std::string &url, const std::string &credentials_file)
{
    std::string creds = credentials_file;
    if (const char *env = std::getenv(exporter::kCredentialsVariable); creds.empty() && env != nullptr)
        creds = env;
    exporter::ExportUrl parsed;
    if (Status st = exporter::parse_export_url(url, &parsed); !st)
        return st;
    const bool follow = parsed.follow || (options_.flags & ETW_CONSUMER_FOLLOW) != 0;
    if (follower_ || (follow && !sources_.empty()))
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "a followed stream (follow=1) is read alone: open \"" + url + "\" as the consumer's only path");
    if (follow) {
        if (Status st = exporter::open_nats_follower(url, creds, &follower_); !st)
            return st;
        follow_url_ = url;
        return Status::ok();
    }
    std::vector<exporter::StreamTrace> traces;
    if (Status st = exporter::read_nats_stream(url, creds, &traces); !st)
        return st;
    for (exporter::StreamTrace &t : traces) {
        const std::string name = url + "#" + exporter::escape_token(t.tag.machine) + "/" +
                                 exporter::escape_token(t.tag.session) + "/" + std::to_string(t.tag.start_time);
        if (Status st = add_input(name, platform::memory_input(std::move(t.etl))); !st)
            return Fail(st.code, name + ": " + st.message);
    }
    return Status::ok();
}

Status Consumer::add_file(const std::string &path)
{
    if (exporter::is_nats_url(path))
        return add_stream(path);
    if (options_.flags & ETW_CONSUMER_FOLLOW)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "ETW_CONSUMER_FOLLOW follows a stream (nats://HOST:PORT/STREAM); " + path + " is not one");
    std::unique_ptr<platform::RandomAccessInput> input;
    if (Status st = platform::open_file_input(path, input); !st)
        return st;
    return add_input(path, std::move(input));
}

void Consumer::add_source(std::unique_ptr<BufferSource> source)
{
    std::lock_guard<std::mutex> lock(sources_mutex_);
    sources_.push_back(std::move(source));
}

void Consumer::logfile_info(std::uint32_t index, etw_logfile_info &out) const
{
    const SourceInfo &info = file(index);
    out = etw_logfile_info{};
    out.struct_size = sizeof(etw_logfile_info);
    out.file_index = index;
    out.header = info.header.fields;
    out.reference_timestamp = info.header.reference_timestamp;
    out.file_size = info.size;
    out.header_type = info.header.system_header_type;
    out.thread_id = info.header.thread_id;
    out.process_id = info.header.process_id;
    out.compression_format = info.image_context.compression_format;
    out.logger_name = info.header.logger_name.c_str();
    out.log_file_name = info.header.log_file_name.c_str();
    out.path = info.path.c_str();
}

Status Consumer::close(Consumer *c)
{
    if (c == nullptr)
        return Status::ok();
    {
        std::unique_lock<std::mutex> lock(c->mutex_);
        if (c->processing_) {
            c->cancel();
            if (c->processing_thread_ == std::this_thread::get_id()) {
                c->close_pending_ = true;
                return Fail(ETW_ERROR_CTX_CLOSE_PENDING,
                            "etw_consumer_close was called from a callback: processing stops and the consumer is "
                            "freed when etw_consumer_process returns");
            }
            c->idle_.wait(lock, [c] { return !c->processing_; });
        }
    }
    delete c;
    return Status::ok();
}

Status Consumer::process()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (processing_)
            return Fail(ETW_ERROR_BUSY, "the consumer is already processing (on another thread, or this call "
                                        "comes from one of its callbacks)");
        processing_ = true;
        processing_thread_ = std::this_thread::get_id();
    }
    Status result;
    // Whatever happens, processing_ must end, or close() would wait forever.
    try {
        result = run();
    } catch (const std::bad_alloc &) {
        result = Fail(ETW_ERROR_OUTOFMEMORY, "out of memory while processing");
    } catch (const std::exception &e) {
        result = Fail(ETW_ERROR_INTERNAL_ERROR, std::string("processing failed: ") + e.what());
    } catch (...) {
        result = Fail(ETW_ERROR_INTERNAL_ERROR, "an exception escaped a callback");
    }
    bool delete_now;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        processing_ = false;
        delete_now = close_pending_;
        idle_.notify_all();
    }
    // Nothing touches *this after the lock is released unless close is pending
    // (then no other thread may use the consumer any more).
    if (delete_now)
        delete this;
    return result;
}

bool Consumer::stop_requested()
{
    if (!stop_.is_ok())
        return true;
    if (cancel_.load(std::memory_order_relaxed) && (!cancel_drains_ || close_pending_)) {
        stop_ = Fail(ETW_ERROR_CANCELLED, "processing was cancelled by etw_consumer_cancel or etw_consumer_close");
        return true;
    }
    return false;
}

void Consumer::note_problem(etw_status code, const std::string &message)
{
    if (problem_count_++ == 0) {
        first_problem_ = Fail(code, message);
        stats_.first_problem = code;
    }
}

Status Consumer::run()
{
    stats_ = etw_consumer_stats{};
    stats_.struct_size = sizeof(etw_consumer_stats);
    stats_.file_count = file_count();
    for (const auto &s : sources_)
        stats_.events_lost += s->info().header.fields.EventsLost;
    stop_ = Status::ok();
    first_problem_ = Status::ok();
    problem_count_ = 0;

    if (stop_requested())
        return stop_;
    Status st = follower_                                    ? run_follow()
                : (options_.flags & ETW_CONSUMER_ORDER_FILE) ? run_file_order()
                                                             : run_time_order();
    if (!st)
        return st; // I/O error
    if (!stop_.is_ok())
        return stop_;
    for (const auto &s : sources_) {
        const format::Problem &end = s->end_problem();
        if (end)
            note_problem(end.code, s->info().path + ": " + end.detail);
    }
    if (problem_count_ == 0)
        return Status::ok();
    std::string message = first_problem_.message;
    if (problem_count_ > 1)
        message += format::text_printf(" (%llu problems in all)", static_cast<unsigned long long>(problem_count_));
    return Fail(first_problem_.code, message);
}

bool Consumer::deliver(Stream &stream, Stream::Event event)
{
    if (event == Stream::Event::Record)
        return deliver_record(stream);
    if (event == Stream::Event::BufferDone)
        return deliver_buffer(stream);
    return true;
}

bool Consumer::deliver_record(Stream &stream)
{
    ++stats_.records;
    const format::RecordKind kind = stream.record().kind;
    const bool classic = kind == format::RecordKind::Full || kind == format::RecordKind::Instance;
    const bool modern = kind == format::RecordKind::Event;
    // The record view is built only for a callback that sees it (the event
    // views point at it too).
    if (!options_.record && !(options_.event && classic) && !(options_.event_record && modern))
        return !stop_requested();
    const SourceInfo &info = stream.source().info();
    const ViewContext context{info.index, (options_.flags & ETW_CONSUMER_RAW_TIMESTAMP) != 0, &info.time};
    fill_record(record_view_, extended_, stream, context);
    if (options_.record) {
        const std::int32_t r = options_.record(options_.user_data, &record_view_);
        if (r != 0) {
            stop_ = Fail(ETW_ERROR_CANCELLED,
                         format::text_printf("the record callback returned %d: processing stopped", int(r)));
            return false;
        }
    }
    if (options_.event && classic) {
        fill_classic_event(event_view_, record_view_);
        const std::int32_t r = options_.event(options_.user_data, &event_view_);
        if (r != 0) {
            stop_ = Fail(ETW_ERROR_CANCELLED,
                         format::text_printf("the event callback returned %d: processing stopped", int(r)));
            return false;
        }
    }
    if (options_.event_record && modern) {
        fill_event_record(event_record_view_, record_view_);
        const std::int32_t r = options_.event_record(options_.user_data, &event_record_view_);
        if (r != 0) {
            stop_ = Fail(ETW_ERROR_CANCELLED,
                         format::text_printf("the event record callback returned %d: processing stopped", int(r)));
            return false;
        }
    }
    return !stop_requested();
}

bool Consumer::deliver_buffer(Stream &stream)
{
    const BufferState &b = stream.buffer();
    const SourceInfo &info = stream.source().info();
    ++stats_.buffers;
    stats_.bytes_read += b.stored.bytes.size();
    stats_.corrupt_records += b.corrupt_records;
    if (b.problem) {
        ++stats_.corrupt_buffers;
        note_problem(b.problem.code, b.message);
    }
    if (options_.buffer) {
        const ViewContext context{info.index, (options_.flags & ETW_CONSUMER_RAW_TIMESTAMP) != 0, &info.time};
        fill_buffer_info(buffer_view_, b, context);
        const std::int32_t r = options_.buffer(options_.user_data, &buffer_view_);
        if (r != 0) {
            stop_ = Fail(ETW_ERROR_CANCELLED,
                         format::text_printf("the buffer callback returned %d: processing stopped", int(r)));
            return false;
        }
    }
    return !stop_requested();
}

Status Consumer::run_file_order()
{
    for (auto &source : sources_) {
        if (Status st = source->rewind(); !st)
            return st;
        Stream stream(*source);
        for (;;) {
            Stream::Event event;
            if (Status st = stream.advance(event); !st)
                return st;
            if (event == Stream::Event::Exhausted)
                break;
            if (!deliver(stream, event))
                return Status::ok();
        }
    }
    return Status::ok();
}

Status Consumer::run_time_order()
{
    // One stream per (file, processor), each sorted by SequenceNumber. The
    // budget bounds their decompressed images, whatever the stream count
    // (declared first: it outlives the streams).
    ImageBudget budget;
    std::vector<std::unique_ptr<Stream>> streams;
    for (auto &source : sources_) {
        if (!source->indexed()) {
            if (Status st = source->rewind(); !st)
                return st;
            streams.push_back(std::make_unique<Stream>(*source));
            continue;
        }
        std::vector<BufferLocation> all;
        if (Status st = source->directory(all); !st)
            return st;
        std::map<std::uint32_t, std::vector<BufferLocation>> by_processor;
        for (const BufferLocation &loc : all)
            by_processor[loc.processor].push_back(loc);
        for (auto &[processor, locations] : by_processor) {
            std::stable_sort(locations.begin(), locations.end(),
                             [](const BufferLocation &a, const BufferLocation &b) { return a.sequence < b.sequence; });
            streams.push_back(std::make_unique<Stream>(*source, std::move(locations)));
            streams.back()->set_budget(&budget);
        }
    }

    // Advances a stream to its next record, delivering finished buffers on the way.
    auto next_record = [&](Stream &stream, bool &has_record) -> Status {
        has_record = false;
        for (;;) {
            Stream::Event event;
            if (Status st = stream.advance(event); !st)
                return st;
            if (event == Stream::Event::Exhausted)
                return Status::ok();
            if (event == Stream::Event::Record) {
                has_record = true;
                return Status::ok();
            }
            if (!deliver(stream, event))
                return Status::ok();
        }
    };

    // Delivers a stream's head record and moves it to its next one: End when
    // processing stops here (a callback or cancel; error set on failure),
    // Drained when the stream has no record left, else Next.
    enum class Step { Next, Drained, End };
    auto take_head = [&](Stream &stream, Status &error) -> Step {
        stream.use_image();
        if (!deliver_record(stream))
            return Step::End;
        bool has_record = false;
        if (Status st = next_record(stream, has_record); !st) {
            error = st;
            return Step::End;
        }
        if (!stop_.is_ok())
            return Step::End;
        return has_record ? Step::Next : Step::Drained;
    };

    // The stream whose record comes next: the smallest (key, stream order),
    // so ties keep file and processor order. With a few streams (one per
    // processor of one file is typical) a scan of their heads is cheaper
    // than a heap; both pick the same stream.
    std::vector<std::size_t> live;
    for (std::size_t i = 0; i < streams.size(); ++i) {
        bool has_record = false;
        if (Status st = next_record(*streams[i], has_record); !st)
            return st;
        if (!stop_.is_ok())
            return Status::ok();
        if (has_record)
            live.push_back(i);
    }
    if (live.size() <= kScanMergeLimit) {
        while (!live.empty()) {
            std::size_t best = 0;
            for (std::size_t k = 1; k < live.size(); ++k)
                if (streams[live[k]]->key() < streams[live[best]]->key())
                    best = k;
            Status error;
            const Step step = take_head(*streams[live[best]], error);
            if (step == Step::End)
                return error;
            if (step == Step::Drained)
                live.erase(live.begin() + std::ptrdiff_t(best)); // keeps stream order
        }
        return Status::ok();
    }
    using Entry = std::tuple<std::int64_t, std::int64_t, std::size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    auto entry = [&](std::size_t i) {
        const Stream::Key k = streams[i]->key();
        return Entry{k.filetime, k.raw, i};
    };
    for (std::size_t i : live)
        heap.push(entry(i));
    while (!heap.empty()) {
        const std::size_t i = std::get<2>(heap.top());
        heap.pop();
        Status error;
        const Step step = take_head(*streams[i], error);
        if (step == Step::End)
            return error;
        if (step == Step::Next)
            heap.push(entry(i));
    }
    return Status::ok();
}

} // namespace openetw::consumer
