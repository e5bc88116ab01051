// The follower: one pull consumer fetched in short waits, so the reader's
// loop can notice a cancel between them (FLEET.md, "Following a stream").
#include "export/nats_follow.hpp"

#include "export/nats_connection.hpp"
#include "export/nats_message.hpp"

namespace openetw::exporter {

namespace {

constexpr int kFollowBatch = 256;
constexpr int kSubscribeAttempts = 4;
// An ephemeral consumer nobody pulls from is removed by the server after
// this long: a consumer whose callbacks hold it for minutes keeps its place,
// and one of a reader that died goes away on its own.
constexpr std::int64_t kInactiveNs = 5ll * 60 * 1000 * 1000 * 1000;

class Follower final : public NatsFollower {
public:
    ~Follower() override
    {
        if (sub_) {
            natsSubscription_Unsubscribe(sub_); // the ephemeral consumer goes with it
            natsSubscription_Destroy(sub_);
        }
    }

    Status open(const std::string &text, const std::string &credentials_file)
    {
        if (Status st = parse_export_url(text, &url_); !st)
            return st;
        Credentials creds;
        if (Status st = read_credentials(credentials_file, &creds); !st)
            return st;
        // A follower lives as long as its reader: a server restart is waited out.
        if (Status st = conn_.connect(url_, creds, "openetw follower", true); !st)
            return st;
        jsStreamInfo *si = nullptr;
        if (Status st = conn_.stream_info(url_.stream, &si); !st)
            return st;
        jsStreamInfo_Destroy(si);
        jsSubOptions so;
        jsSubOptions_Init(&so);
        so.Stream = url_.stream.c_str();
        so.Config.AckPolicy = js_AckNone;
        so.Config.InactiveThreshold = kInactiveNs;
        if (url_.since_unix_ns != 0) {
            so.Config.DeliverPolicy = js_DeliverByStartTime;
            so.Config.OptStartTime = url_.since_unix_ns;
        }
        const std::string subjects = stream_subjects(url_.stream);
        jsErrCode jerr = jsErrCode(0);
        natsStatus s = NATS_TIMEOUT;
        for (int attempt = 0; attempt < kSubscribeAttempts && s == NATS_TIMEOUT; ++attempt)
            s = js_PullSubscribe(&sub_, conn_.jetstream(), subjects.c_str(), nullptr, nullptr, &so, &jerr);
        if (s != NATS_OK)
            return Fail(ETW_ERROR_NOT_SUPPORTED,
                        "cannot follow the stream " + url_.stream + " at " + url_.server() + ": " + nats_reason(s));
        return Status::ok();
    }

    Status poll(int wait_ms, std::vector<FollowedMessage> *out, std::uint64_t *discarded) override
    {
        natsMsgList list{};
        jsErrCode jerr = jsErrCode(0);
        const natsStatus s = natsSubscription_Fetch(&list, sub_, kFollowBatch, wait_ms < 1 ? 1 : wait_ms, &jerr);
        if (s == NATS_TIMEOUT && list.Count == 0) {
            caught_up_ = true;
            return Status::ok();
        }
        if (s != NATS_OK) {
            natsMsgList_Destroy(&list);
            // A connection being made again: nothing this time, the client retries.
            if (natsConnection_Status(conn_.connection()) == NATS_CONN_STATUS_RECONNECTING)
                return Status::ok();
            return Fail(ETW_ERROR_READ_FAULT,
                        "following the stream " + url_.stream + " at " + url_.server() + ": " + nats_reason(s));
        }
        Status bad;
        for (int i = 0; i < list.Count && bad; ++i) {
            natsMsg *m = list.Msgs[i];
            FollowedMessage msg;
            if (bad = message_tag(m, &msg.tag); !bad)
                break;
            const auto *data = reinterpret_cast<const std::uint8_t *>(natsMsg_GetData(m));
            msg.bytes.assign(data, data + natsMsg_GetDataLength(m));
            out->push_back(std::move(msg));
            if (jsMsgMetaData *meta = nullptr; natsMsg_GetMetaData(&meta, m) == NATS_OK) {
                const std::uint64_t seq = meta->Sequence.Stream;
                // The consumer skips what the stream no longer holds: a gap
                // in the stream's sequence is what was removed unread.
                if (last_sequence_ != 0 && seq > last_sequence_ + 1)
                    *discarded += seq - last_sequence_ - 1;
                if (seq > last_sequence_)
                    last_sequence_ = seq;
                caught_up_ = meta->NumPending == 0;
                jsMsgMetaData_Destroy(meta);
            }
        }
        natsMsgList_Destroy(&list);
        return bad;
    }

    bool caught_up() const override { return caught_up_; }

private:
    ExportUrl url_;
    NatsConnection conn_;
    natsSubscription *sub_ = nullptr;
    std::uint64_t last_sequence_ = 0;
    bool caught_up_ = false;
};

} // namespace

Status open_nats_follower(const std::string &url, const std::string &credentials_file,
                          std::unique_ptr<NatsFollower> *out)
{
    auto f = std::make_unique<Follower>();
    if (Status st = f->open(url, credentials_file); !st)
        return st;
    *out = std::move(f);
    return Status::ok();
}

} // namespace openetw::exporter
