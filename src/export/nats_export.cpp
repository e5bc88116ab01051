// The export of one session to a JetStream stream: the logger queues each
// buffer (ExportQueue: memory while the server keeps up, the on-disk spool
// once it does not; a lossless logger waits for memory while acknowledgements
// still come, and spools once none came for stall_ms), and a sender thread publishes the oldest ones with up to
// a window of acknowledgements outstanding (PublishWindow): each publish
// carries a reply subject naming its queue ordinal, JetStream's answers come
// back on the export's own inbox, and a record leaves the queue only when it
// and every older one are acknowledged. A failure goes back to the oldest
// unacknowledged record and sends from there again, in order, with the same
// Nats-Msg-Id, which JetStream stores once.
#include "export/nats_export.hpp"

#include "export/nats_connection.hpp"
#include "export/export_queue.hpp"
#include "export/publish_window.hpp"
#include "export/spool.hpp"
#include "platform/files.hpp"
#include "platform/machine_config.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace openetw::exporter {

namespace {

constexpr std::int64_t kPublishWaitMs = 2000; // an acknowledgement later than this: send again
constexpr std::int64_t kRetryWaitMs = 100;    // after a failed publish
constexpr std::int64_t kAckPollMs = 2;        // the sender's wait for an answer while it has no more to send
// Bytes published ahead of their acknowledgements: enough to keep a local
// server busy while acknowledgements travel, little enough that a failure's
// resend is short.
constexpr std::uint64_t kWindowBytes = 8ull << 20;
constexpr std::uint32_t kWindowMin = 4, kWindowMax = 256;

std::string machine_name()
{
    platform::MachineSummary m;
    if (platform::machine_summary(&m) == ETW_OK && !m.host_name.empty())
        return m.host_name;
    return "unknown";
}

Status ensure_stream(NatsConnection &c, const std::string &stream)
{
    jsStreamInfo *si = nullptr;
    Status st = c.stream_info(stream, &si);
    jsStreamInfo_Destroy(si);
    if (st || st.code != ETW_ERROR_FILE_NOT_FOUND)
        return st;
    jsStreamConfig sc;
    jsStreamConfig_Init(&sc);
    const std::string subjects = stream_subjects(stream);
    const char *subject_list[] = {subjects.c_str()};
    sc.Name = stream.c_str();
    sc.Subjects = subject_list;
    sc.SubjectsLen = 1;
    sc.Storage = js_FileStorage;
    jsErrCode jerr = jsErrCode(0);
    si = nullptr;
    const natsStatus s = js_AddStream(&si, c.jetstream(), &sc, nullptr, &jerr);
    jsStreamInfo_Destroy(si);
    if (s == NATS_OK)
        return Status::ok();
    // Another host made it meanwhile: use theirs.
    si = nullptr;
    if (c.stream_info(stream, &si)) {
        jsStreamInfo_Destroy(si);
        return Status::ok();
    }
    return Fail(s == NATS_NOT_PERMITTED ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_NOT_SUPPORTED,
                "cannot create the stream " + stream + " on " + c.url().server() + ": " + nats_reason(s));
}

class NatsExport final : public engine::BufferExport {
public:
    // acks: the subscription to inbox.* on which JetStream answers this export's publishes.
    NatsExport(const ExportTarget &target, std::unique_ptr<NatsConnection> conn, std::unique_ptr<ExportQueue> queue,
               std::string inbox, natsSubscription *acks)
        : conn_(std::move(conn)), queue_(std::move(queue)), url_text_(conn_->url().text()),
          finish_wait_ms_(target.finish_wait_ms > 0 ? target.finish_wait_ms : kFinishWaitMs),
          stall_ms_(target.stall_ms > 0 ? target.stall_ms : kStallMs), hold_room_(queue_->memory_limit() / 4),
          inbox_(std::move(inbox)), acks_(acks),
          window_(std::uint32_t(
              std::clamp<std::uint64_t>(kWindowBytes / std::max(1u, target.buffer_size), kWindowMin, kWindowMax)))
    {
        tag_.machine = machine_name();
        tag_.session = target.session;
        stream_ = conn_->url().stream;
        if (natsStatistics_Create(&stats_) != NATS_OK)
            stats_ = nullptr; // then a lost connection's records wait for their 2 s
        sender_ = std::thread([this] { sender_main(); });
    }

    ~NatsExport() override
    {
        stop_sender();
        natsSubscription_Destroy(acks_);
        natsStatistics_Destroy(stats_);
        // A start that failed after the export was made queued nothing: no spool to leave behind.
        if (queue_->records() == 0)
            queue_->spool().remove_files();
    }

    bool begin(const std::uint8_t *header, std::uint32_t size, std::int64_t start_time) override
    {
        tag_.start_time = start_time;
        tag_.sequence = 0;
        tag_.kind = BufferTag::Kind::Header;
        const bool stored = push(header, size, 0) == Offer::Queued;
        tag_.kind = BufferTag::Kind::Buffer;
        return stored;
    }

    Offer publish(const std::uint8_t *buffer, std::uint32_t size, std::int64_t room_wait_ms, bool again) override
    {
        if (!again)
            ++tag_.sequence;
        return push(buffer, size, room_wait_ms);
    }

    // What a spool left by a host that is gone holds: sent, then the spool
    // removed; or kept, and said.
    Status drain()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(finish_wait_ms_);
        idle_cv_.wait_until(lock, until, [&] { return queue_->records() == 0; });
        const std::uint64_t left = queue_->records();
        const std::string why = last_error_;
        lock.unlock();
        stop_sender();
        if (left == 0) {
            queue_->spool().remove_files();
            return Status::ok();
        }
        return Fail(ETW_ERROR_TIMEOUT, std::to_string(left) + " buffers for " + url_text_ + " stay spooled in " +
                                           queue_->spool().folder() + (why.empty() ? std::string() : ": " + why));
    }

    Status finish(const std::uint8_t *final_header, std::uint32_t size) override
    {
        ++tag_.sequence;
        tag_.kind = BufferTag::Kind::End;
        const std::vector<std::uint8_t> end = encode_record(tag_, final_header, size);
        std::string spilled;
        std::unique_lock<std::mutex> lock(mutex_);
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(finish_wait_ms_);
        // A full spool (the server was away) takes the final header once the
        // sender made room: the stop waits for that as for the rest.
        bool ended = false;
        for (;;) {
            // Memory full while the server keeps up: not a spill of all of
            // it to the spool for the last record.
            if (hold_for_memory(lock, end.size(), until) == Hold::Waited)
                continue;
            std::string failed;
            const Spool::Push r = queue_->push(std::vector<std::uint8_t>(end), &failed);
            if (r == Spool::Push::Stored) {
                ended = true;
                work_cv_.notify_one();
                break;
            }
            if (r == Spool::Push::Failed) {
                last_error_ = failed;
                break;
            }
            if (idle_cv_.wait_until(lock, until) == std::cv_status::timeout)
                break;
        }
        idle_cv_.wait_until(lock, until, [&] { return queue_->records() == 0; });
        lock.unlock();
        stop_sender(); // nothing is in flight from here on
        lock.lock();
        // What is still in memory joins the spool, which outlives this export.
        if (Status st = queue_->spill(); !st)
            spilled = " (" + std::to_string(queue_->in_memory()) +
                      " of them could not be spooled and are lost: " + st.message + ")";
        const std::uint64_t left = queue_->records(), bytes = queue_->bytes();
        const std::string why = last_error_;
        lock.unlock();
        if (left == 0 && ended) {
            queue_->spool().remove_files();
            return Status::ok();
        }
        if (left == 0)
            return Fail(ETW_ERROR_WRITE_FAULT,
                        "the final header buffer for " + url_text_ + " could not be spooled: " + why);
        return Fail(ETW_ERROR_TIMEOUT, std::to_string(left) + " buffers (" + std::to_string(bytes) + " bytes) for " +
                                           url_text_ + " were not acknowledged within " +
                                           std::to_string(finish_wait_ms_) + " ms" +
                                           (why.empty() ? std::string() : " (last error: " + why + ")") +
                                           "; they stay spooled in " + queue_->spool().folder() + spilled);
    }

private:
    enum class Hold { Push, Waited, Expired };
    // A caller that may wait (a lossless logger, the stop) waits for memory
    // while the server acknowledges, slower than the logger but steadily:
    // the spool's write and read back of every buffer (two more copies
    // through the page cache of a host the server is short of) are for a
    // server that stalls or is gone. Push: push now (memory has room, or
    // nothing was acknowledged for stall_ms_); Waited: try again; Expired:
    // until passed while the server still answers.
    Hold hold_for_memory(std::unique_lock<std::mutex> &lock, std::size_t size,
                         std::chrono::steady_clock::time_point until)
    {
        if (queue_->fits_in_memory(size))
            return Hold::Push;
        const auto now = std::chrono::steady_clock::now();
        const auto stall = progress_ + std::chrono::milliseconds(stall_ms_);
        if (now >= stall)
            return Hold::Push;
        if (now >= until)
            return Hold::Expired;
        // Until a quarter of memory is free, not the next record's room: one
        // wake-up per batch of buffers, not per acknowledgement.
        idle_cv_.wait_until(lock, std::min(until, stall),
                            [&] { return queue_->fits_in_memory(size) && queue_->memory_room() >= hold_room_; });
        return Hold::Waited;
    }

    // room_wait_ms: how long a full queue may hold the caller until the
    // sender makes room (a lossless session's logger), 0 not at all.
    Offer push(const std::uint8_t *bytes, std::uint32_t size, std::int64_t room_wait_ms)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        std::vector<std::uint8_t> record = queue_->take_spare();
        lock.unlock();
        encode_record(tag_, bytes, size, &record);
        lock.lock();
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(room_wait_ms);
        for (;;) {
            if (room_wait_ms > 0) {
                const Hold h = hold_for_memory(lock, record.size(), until);
                if (h == Hold::Expired)
                    return Offer::Full; // the session offers it again
                if (h == Hold::Waited)
                    continue;
            }
            std::string why;
            switch (queue_->push(std::move(record), &why)) {
            case Spool::Push::Stored:
                work_cv_.notify_one();
                return Offer::Queued;
            case Spool::Push::Full:
                // Full refuses before it moves the record, so it is still ours to offer again.
                last_error_ = "the spool " + queue_->spool().folder() + " is full";
                if (room_wait_ms <= 0 || idle_cv_.wait_until(lock, until) == std::cv_status::timeout)
                    return Offer::Full;
                continue;
            case Spool::Push::Failed:
                last_error_ = why;
                return Offer::Failed;
            }
            return Offer::Failed;
        }
    }

    void stop_sender()
    {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            quit_ = true;
        }
        work_cv_.notify_all();
        if (sender_.joinable())
            sender_.join();
    }

    static std::int64_t now_ms()
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    void sender_main()
    {
        PublishWindow window(window_, kPublishWaitMs, kRetryWaitMs);
        std::string reported; // the window's last error as last_error_ was given it
        for (;;) {
            ExportQueue::Record record;
            std::uint64_t ordinal = 0;
            bool sending = false;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                if (quit_)
                    return;
                if (std::uint64_t done = window.take_acked(); done != 0) {
                    progress_ = std::chrono::steady_clock::now();
                    while (done-- != 0)
                        if (Status st = queue_->pop(); !st)
                            last_error_ = st.message;
                    // Room made, or the queue emptied (a logger held for
                    // memory waits for a quarter of it: woken then).
                    if (queue_->records() == 0 || queue_->spool().records() != 0 || queue_->memory_room() >= hold_room_)
                        idle_cv_.notify_all();
                }
                const std::int64_t now = now_ms();
                window.expire(now);
                if (window.next(queue_->first(), queue_->end(), now, &ordinal)) {
                    std::string why;
                    sending = queue_->peek(ordinal, &record, &why);
                    if (!sending)
                        window.failed(ordinal, why);
                }
                if (window.last_error() != reported) { // a new failure (others may have been said since)
                    reported = window.last_error();
                    last_error_ = reported;
                }
                if (!sending && !window.in_flight()) {
                    // Nothing awaited: sleep until a record is queued or the retry is due.
                    const std::int64_t hint = window.wait_hint(now);
                    if (hint == INT64_MAX)
                        work_cv_.wait(lock, [&] { return quit_ || queue_->records() != 0; });
                    else
                        work_cv_.wait_for(lock, std::chrono::milliseconds(std::max<std::int64_t>(hint, 1)),
                                          [&] { return quit_; });
                    continue;
                }
            }
            if (sending) {
                std::string why;
                if (publish_record(*record, ordinal, &why))
                    window.sent(ordinal, now_ms());
                else
                    window.failed(ordinal, why);
            }
            // While more can be sent, only the answers already here; else wait a little for one.
            read_acks(window, !sending);
            if (!sending && window.awaited() != 0 && reconnected())
                // Sent over a connection that is gone: their answers may be lost with it.
                window.fail_awaited("the connection to " + url_text_ + " was lost and made again");
        }
    }

    // Whether the client reconnected since the last call (sender thread).
    bool reconnected()
    {
        std::uint64_t in_msgs = 0, in_bytes = 0, out_msgs = 0, out_bytes = 0, reconnects = 0;
        if (stats_ == nullptr || natsConnection_GetStats(conn_->connection(), stats_) != NATS_OK ||
            natsStatistics_GetCounts(stats_, &in_msgs, &in_bytes, &out_msgs, &out_bytes, &reconnects) != NATS_OK)
            return false;
        const bool changed = reconnects != reconnects_;
        reconnects_ = reconnects;
        return changed;
    }

    // JetStream's answers on the inbox: each names its record's ordinal.
    void read_acks(PublishWindow &window, bool wait)
    {
        for (bool first = true;; first = false) {
            if (!(wait && first)) {
                int pending = 0;
                if (natsSubscription_GetPending(acks_, &pending, nullptr) != NATS_OK || pending == 0)
                    return;
            }
            natsMsg *m = nullptr;
            if (natsSubscription_NextMsg(&m, acks_, wait && first ? kAckPollMs : 1) != NATS_OK)
                return;
            const char *subject = natsMsg_GetSubject(m);
            const std::size_t prefix = inbox_.size() + 1;
            std::uint64_t ordinal = 0;
            const std::size_t length = subject ? std::strlen(subject) : 0;
            if (length > prefix &&
                std::from_chars(subject + prefix, subject + length, ordinal).ptr == subject + length) {
                std::string why;
                if (ack_stored(m, &why))
                    window.acked(ordinal);
                else
                    window.failed(ordinal, "publishing to " + url_text_ + ": " + why);
            }
            natsMsg_Destroy(m);
        }
    }

    // Whether JetStream's answer says it stored the message (a duplicate too).
    static bool ack_stored(natsMsg *m, std::string *why)
    {
        if (natsMsg_IsNoResponders(m)) {
            *why = "no responders (the stream is not available)";
            return false;
        }
        const std::string body(natsMsg_GetData(m) ? natsMsg_GetData(m) : "", std::size_t(natsMsg_GetDataLength(m)));
        const std::size_t err = body.find("\"error\"");
        if (err == std::string::npos)
            return body.find("\"seq\"") != std::string::npos;
        const std::string key = "\"description\":\"";
        const std::size_t d = body.find(key, err);
        *why = d == std::string::npos ? body
                                      : body.substr(d + key.size(), body.find('"', d + key.size()) - d - key.size());
        return false;
    }

    // Publishes one queued record, its answer to come on inbox.<ordinal>.
    bool publish_record(const std::vector<std::uint8_t> &record, std::uint64_t ordinal, std::string *why)
    {
        BufferTag tag;
        std::size_t at = 0;
        if (Status st = decode_record(record, &tag, &at); !st) {
            *why = st.message; // cannot happen: this process wrote it
            return false;
        }
        natsMsg *msg = nullptr;
        const std::string reply = inbox_ + "." + std::to_string(ordinal);
        natsStatus s = natsMsg_Create(&msg, subject_of(stream_, tag).c_str(), reply.c_str(),
                                      reinterpret_cast<const char *>(record.data() + at), int(record.size() - at));
        for (const auto &[name, value] : message_headers(tag))
            if (s == NATS_OK)
                s = natsMsgHeader_Set(msg, name.c_str(), value.c_str());
        if (s == NATS_OK) // what jsPubOptions.ExpectStream sends: another stream's subjects must not take it
            s = natsMsgHeader_Set(msg, "Nats-Expected-Stream", stream_.c_str());
        if (s == NATS_OK)
            s = natsConnection_PublishMsg(conn_->connection(), msg);
        natsMsg_Destroy(msg);
        if (s != NATS_OK)
            *why = "publishing to " + url_text_ + ": " + nats_reason(s);
        return s == NATS_OK;
    }

    std::unique_ptr<NatsConnection> conn_;
    std::unique_ptr<ExportQueue> queue_; // under mutex_
    std::string url_text_;
    std::int64_t finish_wait_ms_;
    std::int64_t stall_ms_;
    std::uint64_t hold_room_; // memory a held logger waits for
    std::string stream_;
    std::string inbox_;               // JetStream answers on inbox_.<ordinal>
    natsSubscription *acks_;          // the sender thread reads it
    std::uint32_t window_;            // acknowledgements outstanding at most
    natsStatistics *stats_ = nullptr; // the client's counts (reconnects), read by the sender
    std::uint64_t reconnects_ = 0;
    BufferTag tag_; // logger thread only
    std::mutex mutex_;
    std::condition_variable work_cv_; // a record spooled, or quit
    std::condition_variable idle_cv_; // records acknowledged (room made, or the queue emptied)
    bool quit_ = false;
    // The last acknowledgement (at first the connection made): a logger
    // holds for memory only while it is younger than stall_ms_.
    std::chrono::steady_clock::time_point progress_ = std::chrono::steady_clock::now();
    std::string last_error_;
    std::thread sender_;
};

} // namespace

bool nats_available() { return true; }

namespace {

// Connects and opens the spool of an export: open_nats_export and the resend of orphaned spools.
Status open_export(const ExportTarget &target, std::unique_ptr<NatsExport> *out)
{
    ExportUrl url;
    if (Status st = parse_export_url(target.url, &url); !st)
        return st;
    if (url.since_unix_ns != 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "?since= is for readers; an export URL is nats://HOST:PORT/STREAM");
    Credentials creds;
    if (Status st = read_credentials(target.credentials_file, &creds); !st)
        return st;
    auto conn = std::make_unique<NatsConnection>();
    if (Status st = conn->connect(url, creds, "openetw export of " + target.session, true, true); !st)
        return st;
    const std::int64_t max_payload = natsConnection_GetMaxPayload(conn->connection());
    if (max_payload > 0 && std::int64_t(target.buffer_size) + 4096 > max_payload)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "BufferSize " + std::to_string(target.buffer_size / 1024) +
                                                     " KB does not fit the max_payload of the NATS server at " +
                                                     url.server() + " (" + std::to_string(max_payload) + " bytes)");
    if (Status st = ensure_stream(*conn, url.stream); !st)
        return st;
    std::uint64_t spool_bytes = target.spool_bytes;
    if (const char *v = std::getenv("OPENETW_SPOOL_BYTES"); spool_bytes == 0 && v && *v)
        spool_bytes = std::strtoull(v, nullptr, 10);
    if (spool_bytes == 0)
        spool_bytes = kDefaultSpoolBytes;
    std::unique_ptr<Spool> spool;
    const std::string folder = target.spool_folder.empty() ? spool_folder_for(target.session) : target.spool_folder;
    if (Status st = Spool::open(folder, spool_bytes, &spool); !st)
        return st;
    // Where the records go, for a host that resends them after this one is
    // gone (the credentials file's name, never its contents).
    platform::File f;
    const std::string where = target.url + "\n" + target.credentials_file + "\n";
    if (f.open(folder + "/target", platform::OpenMode::CreateTruncate) != ETW_OK ||
        f.write_at(0, where.data(), where.size()) != ETW_OK)
        return Fail(ETW_ERROR_WRITE_FAULT, "cannot write the spool's target file in " + folder);
    // JetStream answers each publish on a subject of this inbox (the sender reads them).
    natsInbox *inbox = nullptr;
    natsSubscription *acks = nullptr;
    natsStatus s = natsInbox_Create(&inbox);
    const std::string prefix = s == NATS_OK ? std::string(inbox) : std::string();
    natsInbox_Destroy(inbox);
    if (s == NATS_OK)
        s = natsConnection_SubscribeSync(&acks, conn->connection(), (prefix + ".*").c_str());
    if (s == NATS_OK) // no limit of its own: the window bounds what is awaited
        s = natsSubscription_SetPendingLimits(acks, -1, -1);
    if (s != NATS_OK) {
        natsSubscription_Destroy(acks);
        return Fail(ETW_ERROR_NOT_SUPPORTED,
                    "cannot subscribe to the acknowledgements of " + url.server() + ": " + nats_reason(s));
    }
    const std::uint64_t memory = target.memory_bytes != 0 ? target.memory_bytes : kMemoryBytes;
    auto queue = std::make_unique<ExportQueue>(std::move(spool), spool_bytes, std::min(memory, spool_bytes));
    *out = std::make_unique<NatsExport>(target, std::move(conn), std::move(queue), prefix, acks);
    return Status::ok();
}

} // namespace

Status open_nats_export(const ExportTarget &target, std::unique_ptr<engine::BufferExport> *out)
{
    std::unique_ptr<NatsExport> exp;
    if (Status st = open_export(target, &exp); !st)
        return st;
    *out = std::move(exp);
    return Status::ok();
}

void resend_orphaned_spools(std::vector<std::string> *report)
{
    const std::string root = spool_root();
    for (const std::string &name : platform::list_folder(root)) {
        if (!spool_owner_gone(name))
            continue;
        const std::string folder = root + "/" + name;
        platform::File f;
        std::uint64_t size = 0;
        std::string text(4096, '\0');
        if (f.open(folder + "/target", platform::OpenMode::ReadExisting) != ETW_OK || f.size(&size) != ETW_OK ||
            size > text.size()) {
            report->push_back(folder + ": no readable target file; left as it is");
            continue;
        }
        text.resize(std::size_t(size));
        if (size != 0 && f.read_at(0, text.data(), text.size()) != ETW_OK) {
            report->push_back(folder + ": cannot read its target file; left as it is");
            continue;
        }
        f.close();
        ExportTarget target;
        const std::size_t nl = text.find('\n');
        target.url = text.substr(0, nl);
        if (nl != std::string::npos)
            target.credentials_file = text.substr(nl + 1, text.find('\n', nl + 1) - nl - 1);
        target.session = name;
        target.spool_folder = folder;
        target.spool_bytes = ~0ull >> 1; // whatever it holds
        std::unique_ptr<NatsExport> exp;
        Status st = open_export(target, &exp);
        if (st)
            st = exp->drain();
        report->push_back(folder + (st ? ": sent to " + target.url : ": " + st.message));
    }
}

} // namespace openetw::exporter
