// Reading a stream back: an ephemeral pull consumer replays it from its
// start (or a time) to the last message it held when the read began; the
// buffers of each machine's session instance become one .etl image, header
// buffer first, data buffers in the order they were sent.
#include "export/nats_connection.hpp"
#include "export/nats_export.hpp"
#include "export/nats_message.hpp"
#include "export/stream_collect.hpp"

#include <map>
#include <tuple>

namespace openetw::exporter {

namespace {

constexpr int kFetchBatch = 256;
constexpr std::int64_t kFetchWaitMs = 5000;
constexpr int kSubscribeAttempts = 4;

struct SubscriptionHolder {
    natsSubscription *sub = nullptr;
    ~SubscriptionHolder()
    {
        if (sub) {
            natsSubscription_Unsubscribe(sub); // the ephemeral consumer goes with it
            natsSubscription_Destroy(sub);
        }
    }
};

} // namespace

Status message_tag(natsMsg *m, BufferTag *tag)
{
    Status st = tag_from_headers(
        [&](const char *name, std::string *value) {
            const char *v = nullptr;
            if (natsMsgHeader_Get(m, name, &v) != NATS_OK || v == nullptr)
                return false;
            *value = v;
            return true;
        },
        tag);
    if (!st)
        st.message = "a message of " + std::string(natsMsg_GetSubject(m)) + ": " + st.message;
    return st;
}

Status fetch_nats_stream(const std::string &text, const std::string &credentials_file, const StreamFilter &filter,
                         std::vector<StreamInstance> *out, std::uint64_t *skipped)
{
    out->clear();
    if (skipped)
        *skipped = 0;
    ExportUrl url;
    if (Status st = parse_export_url(text, &url); !st)
        return st;
    Credentials creds;
    if (Status st = read_credentials(credentials_file, &creds); !st)
        return st;
    NatsConnection conn;
    if (Status st = conn.connect(url, creds, "openetw reader", false); !st)
        return st;
    jsStreamInfo *si = nullptr;
    if (Status st = conn.stream_info(url.stream, &si); !st)
        return st;
    const std::uint64_t messages = si->State.Msgs;
    jsStreamInfo_Destroy(si);
    if (messages == 0)
        return Fail(ETW_ERROR_HANDLE_EOF, "the stream " + url.stream + " at " + url.server() + " holds no buffers");

    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = url.stream.c_str();
    so.Config.AckPolicy = js_AckNone;
    if (url.since_unix_ns != 0) {
        so.Config.DeliverPolicy = js_DeliverByStartTime;
        so.Config.OptStartTime = url.since_unix_ns;
    }
    SubscriptionHolder sub;
    jsErrCode jerr = jsErrCode(0);
    // A machine is a subject token: the server sends only its buffers. A
    // session name compares case-insensitively, which a subject cannot.
    const std::string subjects =
        filter.machine.empty() ? stream_subjects(url.stream) : url.stream + "." + escape_token(filter.machine) + ".>";
    // A cluster that just lost a node may place the consumer on it before
    // it knows the node is gone: the request times out, and another try
    // lands on a live node.
    natsStatus s = NATS_TIMEOUT;
    for (int attempt = 0; attempt < kSubscribeAttempts && s == NATS_TIMEOUT; ++attempt)
        s = js_PullSubscribe(&sub.sub, conn.jetstream(), subjects.c_str(), nullptr, nullptr, &so, &jerr);
    if (s != NATS_OK)
        return Fail(ETW_ERROR_NOT_SUPPORTED,
                    "cannot read the stream " + url.stream + " at " + url.server() + ": " + nats_reason(s));

    // Nothing at or after the start time: no fetch to wait out.
    bool more = true;
    if (jsConsumerInfo *ci = nullptr; natsSubscription_GetConsumerInfo(&ci, sub.sub, nullptr, &jerr) == NATS_OK) {
        more = ci->NumPending != 0;
        jsConsumerInfo_Destroy(ci);
    }
    std::map<std::tuple<std::string, std::string, std::int64_t>, StreamInstance> instances;
    while (more) {
        natsMsgList list{};
        const natsStatus s = natsSubscription_Fetch(&list, sub.sub, kFetchBatch, kFetchWaitMs, &jerr);
        if (s == NATS_TIMEOUT && list.Count == 0)
            break; // nothing after the start time
        if (s != NATS_OK) {
            natsMsgList_Destroy(&list);
            return Fail(ETW_ERROR_READ_FAULT,
                        "reading the stream " + url.stream + " at " + url.server() + ": " + nats_reason(s));
        }
        Status bad;
        for (int i = 0; i < list.Count && bad; ++i) {
            natsMsg *m = list.Msgs[i];
            BufferTag tag;
            if (bad = message_tag(m, &tag); !bad)
                break;
            const auto *data = reinterpret_cast<const std::uint8_t *>(natsMsg_GetData(m));
            std::vector<std::uint8_t> bytes(data, data + natsMsg_GetDataLength(m));
            StreamInstance &inst = instances[{tag.machine, tag.session, tag.start_time}];
            inst.tag = tag;
            inst.tag.sequence = 0;
            if (tag.kind == BufferTag::Kind::Header) {
                inst.header = std::move(bytes);
            } else if (tag.kind == BufferTag::Kind::End) {
                inst.end = std::move(bytes);
                inst.end_sequence = tag.sequence;
            } else {
                inst.data.emplace(tag.sequence, std::move(bytes));
            }
            jsMsgMetaData *meta = nullptr;
            if (natsMsg_GetMetaData(&meta, m) == NATS_OK) {
                if (i == list.Count - 1 && meta->NumPending == 0)
                    more = false;
                jsMsgMetaData_Destroy(meta);
            }
        }
        natsMsgList_Destroy(&list);
        if (!bad)
            return bad;
    }
    for (auto &[key, inst] : instances) {
        if (!filter.matches(inst.tag)) {
            if (skipped)
                ++*skipped;
            continue;
        }
        out->push_back(std::move(inst));
    }
    return Status::ok();
}

Status read_nats_stream(const std::string &text, const std::string &credentials_file, std::vector<StreamTrace> *out,
                        std::uint64_t *headless)
{
    out->clear();
    if (headless)
        *headless = 0;
    std::vector<StreamInstance> instances;
    if (Status st = fetch_nats_stream(text, credentials_file, StreamFilter{}, &instances, nullptr); !st)
        return st;
    for (StreamInstance &inst : instances) {
        if (inst.header.empty()) {
            if (headless)
                ++*headless;
            continue;
        }
        StreamTrace t;
        t.tag = inst.tag;
        t.stopped = !inst.end.empty();
        t.etl = std::move(t.stopped ? inst.end : inst.header);
        for (auto &[seq, bytes] : inst.data) {
            t.etl.insert(t.etl.end(), bytes.begin(), bytes.end());
            ++t.buffers;
        }
        out->push_back(std::move(t));
    }
    if (out->empty()) {
        ExportUrl url;
        parse_export_url(text, &url); // it was parsed to read the stream
        return Fail(ETW_ERROR_HANDLE_EOF,
                    "the stream " + url.stream + " at " + url.server() +
                        " holds no session's header buffer (its retention may have removed them)");
    }
    return Status::ok();
}

} // namespace openetw::exporter
