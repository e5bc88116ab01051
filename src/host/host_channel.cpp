#include "host/host_channel.hpp"

#include "base/utf.hpp"
#include "host/channel_frames.hpp"
#include "host/remote_session.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#ifndef OPENETW_HOSTD_INSTALLED
#define OPENETW_HOSTD_INSTALLED ""
#endif

namespace openetw::host {

using namespace frames;
using platform::ChannelHandle;

namespace {

constexpr std::int64_t kHostStartWaitMs = 10000;
static_assert(kExportTextMax <= kMessageMax,
              "the start request carries the export's strings whole"); // a host just spawned must listen within this

void put_options(Writer &w, const SessionOptions &o)
{
    w.u32((o.lossless ? 1u : 0u) | (o.replace_orphan ? 2u : 0u) | (o.take_over ? 4u : 0u));
    w.u32(o.lossless_timeout_ms);
    w.u32(o.realtime_backlog);
    w.u32(o.profile_interval);
    w.u32(std::uint32_t(o.filters.size()));
    w.put(o.filters.data(), o.filters.size());
}

bool get_options(Reader &r, SessionOptions *o)
{
    std::uint32_t flags = 0;
    if (!r.u32(&flags) || !r.u32(&o->lossless_timeout_ms) || !r.u32(&o->realtime_backlog) ||
        !r.u32(&o->profile_interval) || (flags & ~7u))
        return false;
    std::uint32_t filter_bytes = 0;
    if (!r.u32(&filter_bytes) || filter_bytes > kSessionFilterBlobMax)
        return false;
    o->filters.resize(filter_bytes);
    if (!r.get(o->filters.data(), filter_bytes))
        return false;
    o->lossless = flags & 1;
    o->replace_orphan = flags & 2;
    o->take_over = flags & 4;
    return true;
}

// Sends a request to the host and waits for its answer (status, then body).
Status host_call(HostRequest code, const std::vector<std::uint8_t> &request, std::vector<std::uint8_t> *answer)
{
    // A host that ends as it goes idle closes the connections waiting in its
    // backlog unread: the request did nothing, so it is sent again (to the
    // host that caller starts).
    Status st;
    for (int attempt = 0; attempt < 3; ++attempt) {
        ChannelHandle c = platform::kNoChannel;
        if (st = connect_host(&c, true); !st)
            return st;
        const bool sent = send_request_frame(c, std::uint32_t(code), request) == ETW_OK;
        if (sent)
            st = await_answer(c, answer, nullptr);
        platform::channel_close(&c);
        if (sent && st.code != ETW_ERROR_WMI_INSTANCE_NOT_FOUND)
            return st;
        if (sent && (!answer->empty() || st.message.rfind("no answer", 0) != 0))
            return st;
        st = Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session host closed the channel without answering");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return st;
}

} // namespace

bool sessions_start_in_host()
{
    return platform::shared_registry_supported() && !SystemRegistry::is_host_process() &&
           !platform::registry_path().empty();
}

std::string host_program()
{
    if (const char *v = std::getenv("OPENETW_HOSTD"); v && *v)
        return platform::is_executable(v) ? std::string(v) : std::string();
    // Beside the library: a build tree, or a package that bundles both.
    if (std::string dir = platform::code_directory(); !dir.empty() && platform::is_executable(dir + "/openetw-hostd"))
        return dir + "/openetw-hostd";
    const std::string installed = OPENETW_HOSTD_INSTALLED;
    if (!installed.empty() && platform::is_executable(installed))
        return installed;
    return {};
}

Status connect_host(ChannelHandle *out, bool spawn)
{
    const std::string registry = platform::registry_path();
    const std::string name = SystemRegistry::host_channel_name(registry);
    etw_status st = platform::channel_connect(name, out);
    // With OPENETW_HOST=inprocess no host is started: there is none to find.
    if (st != ETW_OK && spawn && !SystemRegistry::is_host_process()) {
        const std::string program = host_program();
        if (program.empty())
            return Fail(ETW_ERROR_FILE_NOT_FOUND,
                        "no session host runs and openetw-hostd was not found (set OPENETW_HOSTD "
                        "to its path, or install it)");
        if (etw_status sp = platform::spawn_daemon({program, "--registry", registry}); sp != ETW_OK)
            return Fail(sp, "cannot start the session host " + program);
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kHostStartWaitMs);
        while ((st = platform::channel_connect(name, out)) != ETW_OK && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (st != ETW_OK)
        return Fail(ETW_ERROR_FILE_NOT_FOUND, "no session host answers for the registry " + registry);
    platform::PeerCredentials host;
    const std::uint32_t me = platform::effective_user_id();
    if (platform::channel_peer(*out, &host) != ETW_OK || (host.uid != me && host.uid != 0)) {
        platform::channel_close(out);
        return Fail(ETW_ERROR_ACCESS_DENIED, "the session host's name for " + registry + " is held by user " +
                                                 std::to_string(host.uid) + ", neither this user nor root");
    }
    return Status::ok();
}

Status host_start(Properties &props, const SessionOptions &options, RegistryEntry *out)
{
    // The host resolves names in its own folder: a relative log file name is the caller's.
    if (!props.log_file_name_utf8().empty())
        if (auto abs = utf8_to_utf16(platform::absolute_path(props.log_file_name_utf8())))
            props.assign_log_file_name(*abs);
    // So is a relative credentials file's.
    if (!props.export_credentials().empty())
        props.set_export(props.export_url(), platform::absolute_path(props.export_credentials()));
    Writer w;
    w.text16(props.session_name());
    put_props(w, props);
    put_options(w, options);
    w.text8(props.export_url());
    w.text8(props.export_credentials());
    std::vector<std::uint8_t> body;
    Status st = host_call(HostRequest::Start, w.bytes, &body);
    if (!st)
        return st;
    Reader r{body};
    std::uint32_t slot = 0, generation = 0;
    if (!get_props(r, &props) || !r.u32(&slot) || !r.u32(&generation))
        return Fail(ETW_ERROR_INVALID_DATA, "the session host's answer is malformed");
    SystemRegistry *reg = SystemRegistry::get();
    if (!reg || !reg->at(slot, generation, out))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session started, but stopped before this process saw it");
    return Status::ok();
}

Status host_stop_orphan(const RegistryEntry &e, Properties *props)
{
    Writer w;
    w.u32(e.slot);
    w.u32(e.generation);
    std::vector<std::uint8_t> body;
    Status st = host_call(HostRequest::StopOrphan, w.bytes, &body);
    if (props && !body.empty()) {
        Reader r{body};
        if (!get_props(r, props))
            return Fail(ETW_ERROR_INVALID_DATA, "the session host's answer is malformed");
        if (props->session_name() != e.name)
            props->assign_session_name(e.name);
    }
    return st;
}

std::int64_t max_host_request_body(std::uint32_t kind)
{
    switch (HostRequest(kind)) {
    case HostRequest::Start: // the session name, its properties and log file name, the options, the export
        return kText16Max + kPropsMax + 20 + kSessionFilterBlobMax + 2 * (4 + kMessageMax);
    case HostRequest::StopOrphan:
        return 8;
    }
    return -1;
}

Status parse_host_request(std::uint32_t kind, const std::vector<std::uint8_t> &body, HostIncoming *out)
{
    if (max_host_request_body(kind) < 0)
        return Fail(ETW_ERROR_INVALID_DATA, "unknown request " + std::to_string(kind));
    out->code = HostRequest(kind);
    Reader r{body};
    bool ok = false;
    if (out->code == HostRequest::Start) {
        std::u16string name;
        ok = r.text16(&name);
        if (ok && !name.empty())
            out->props.assign_session_name(name);
        ok = ok && !name.empty() && get_props(r, &out->props) && get_options(r, &out->options);
        std::string url, credentials;
        ok = ok && r.text8(&url) && r.text8(&credentials);
        if (ok)
            out->props.set_export(std::move(url), std::move(credentials));
    } else if (out->code == HostRequest::StopOrphan) {
        ok = r.u32(&out->slot) && r.u32(&out->generation);
    }
    return ok ? Status::ok() : Fail(ETW_ERROR_INVALID_DATA, "a malformed request");
}

void answer_host(ChannelHandle c, const Status &st, const Properties *props, std::uint32_t slot,
                 std::uint32_t generation)
{
    Writer w;
    if (props) {
        put_props(w, *props);
        w.u32(slot);
        w.u32(generation);
    }
    send_answer(c, st, w.bytes);
}

} // namespace openetw::host
