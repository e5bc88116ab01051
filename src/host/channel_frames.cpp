#include "host/channel_frames.hpp"

#include "platform/process.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::host::frames {

void Writer::put(const void *p, std::size_t n)
{
    const auto *b = static_cast<const std::uint8_t *>(p);
    bytes.insert(bytes.end(), b, b + n);
}

void Writer::text16(const std::u16string &s)
{
    u32(std::uint32_t(s.size()));
    put(s.data(), s.size() * 2);
}

void Writer::text8(const std::string &s)
{
    const std::uint32_t n = std::uint32_t(std::min<std::size_t>(s.size(), kMessageMax));
    u32(n);
    put(s.data(), n);
}

bool Reader::get(void *p, std::size_t n)
{
    if (n > bytes.size() - at)
        return false;
    if (n)
        std::memcpy(p, bytes.data() + at, n);
    at += n;
    return true;
}

bool Reader::text16(std::u16string *s)
{
    std::uint32_t n;
    if (!u32(&n) || n > kRegistryNameMax)
        return false;
    s->resize(n);
    return get(s->data(), std::size_t(n) * 2);
}

bool Reader::text8(std::string *s)
{
    std::uint32_t n;
    if (!u32(&n) || n > kMessageMax)
        return false;
    s->resize(n);
    return get(s->data(), n);
}

void put_props(Writer &w, const Properties &p)
{
    w.put(&p.record(), sizeof(etw_event_trace_properties));
    w.text16(p.log_file_name());
}

bool get_props(Reader &r, Properties *p)
{
    etw_event_trace_properties rec;
    std::u16string file;
    if (!r.get(&rec, sizeof rec) || !r.text16(&file))
        return false;
    copy_settings(rec, p->record());
    if (p->log_file_name() != file)
        p->assign_log_file_name(file);
    return true;
}

etw_status send_frame(platform::ChannelHandle c, std::uint32_t kind, std::uint32_t status,
                      const std::vector<std::uint8_t> &body, std::intptr_t fd, std::int64_t timeout_ms)
{
    Frame f{kMagic, kind, status, std::uint32_t(body.size())};
    std::vector<std::uint8_t> all(sizeof f + body.size());
    std::memcpy(all.data(), &f, sizeof f);
    if (!body.empty())
        std::memcpy(all.data() + sizeof f, body.data(), body.size());
    return platform::channel_send(c, all.data(), all.size(), timeout_ms, fd);
}

etw_status send_request_frame(platform::ChannelHandle c, std::uint32_t kind, const std::vector<std::uint8_t> &body)
{
    return send_frame(c, kind, kProtocol, body);
}

bool same_protocol(const Frame &f, Status *why)
{
    if (f.status == kProtocol)
        return true;
    *why = Fail(ETW_ERROR_NOT_SUPPORTED,
                "the session host (process " + std::to_string(platform::process_id()) +
                    ") is of another OpenETW build: it speaks host protocol " + std::to_string(kProtocol) +
                    ", this library " + std::to_string(f.status) +
                    "; stop the sessions it hosts (etwctl list, etwctl stop) so that it exits, then start again");
    return false;
}

bool recv_frame(platform::ChannelHandle c, Frame *f, std::vector<std::uint8_t> *body, std::int64_t timeout_ms,
                std::intptr_t *fd, Status *why)
{
    etw_status st = platform::channel_recv(c, f, sizeof *f, timeout_ms, fd);
    if (st == ETW_OK && (f->magic != kMagic || f->length > kMaxBody))
        st = ETW_ERROR_INVALID_DATA;
    if (st == ETW_OK) {
        body->resize(f->length);
        if (f->length)
            st = platform::channel_recv(c, body->data(), f->length, timeout_ms);
    }
    if (st == ETW_OK)
        return true;
    *why = st == ETW_ERROR_HANDLE_EOF
               ? Fail(st, "the host process ended the conversation (it died or stopped the session)")
           : st == ETW_ERROR_TIMEOUT      ? Fail(st, "no answer in time")
           : st == ETW_ERROR_INVALID_DATA ? Fail(st, "a malformed message")
                                          : Fail(st, "the channel failed");
    return false;
}

Status await_answer(platform::ChannelHandle c, std::vector<std::uint8_t> *body, std::intptr_t *fd)
{
    Frame f;
    Status why;
    if (!recv_frame(c, &f, body, -1, fd, &why))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "no answer: " + why.message);
    if (f.kind != Answer)
        return Fail(ETW_ERROR_INVALID_DATA, "the host answered with something else");
    Reader r{*body};
    std::string message;
    if (!r.text8(&message))
        return Fail(ETW_ERROR_INVALID_DATA, "the host's answer is malformed");
    body->erase(body->begin(), body->begin() + std::ptrdiff_t(r.at));
    Status st;
    st.code = f.status;
    st.message = message;
    return st;
}

etw_status send_answer(platform::ChannelHandle c, const Status &st, const std::vector<std::uint8_t> &extra,
                       std::intptr_t fd, std::int64_t timeout_ms)
{
    Writer w;
    w.text8(st.message);
    w.put(extra.data(), extra.size());
    return send_frame(c, Answer, st.code, w.bytes, fd, timeout_ms);
}

} // namespace openetw::host::frames
