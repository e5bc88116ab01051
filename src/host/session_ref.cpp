#include "host/session_ref.hpp"

#include "host/host_channel.hpp"
#include "host/hosting.hpp"
#include "host/remote_session.hpp"
#include "host/session_channel.hpp"

#include "base/utf.hpp"
#include "export/credentials.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/namespace_folder.hpp"
#include "platform/process.hpp"

#include <openetw/constants.h>

#include <cstdlib>

namespace openetw::host {

namespace {

// A session this process runs: the engine serves every call.
class LocalRef final : public SessionRef {
public:
    explicit LocalRef(std::shared_ptr<Session> s) : s_(std::move(s)) {}

    std::uint64_t handle() const override { return s_->handle(); }
    Status host_info(HostInfo *out) override
    {
        if (s_->state.load() != Session::Running)
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
        *out = {platform::process_id(), false, true};
        return Status::ok();
    }
    Status options(SessionOptions *out) override
    {
        *out = s_->options();
        out->lossless = s_->is_lossless();
        out->realtime_backlog = s_->realtime_backlog_limit();
        return Status::ok();
    }
    Status query(Properties &props) override { return engine().query(s_, props); }
    Status update(Properties &props) override { return engine().update(s_, props); }
    Status flush(Properties *props) override { return engine().flush(s_, props); }
    Status flush_to(const std::string &path, Properties *props) override
    {
        if (!s_->is_buffering())
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "etw_session_flush_to_file needs a buffering session (ETW_BUFFERING_MODE)");
        return engine().flush(s_, props, path);
    }
    Status stop(Properties *props) override { return engine().stop(s_, props); }
    Status enable(const etw_guid &provider, bool on, std::uint8_t level, std::uint64_t any, std::uint64_t all,
                  std::uint32_t enable_property, const std::vector<std::uint8_t> &filters) override
    {
        return engine().enable_provider_ex(s_, provider, on, level, any, all, enable_property, filters);
    }
    Status capture_state(const etw_guid &provider, std::uint8_t level, std::uint64_t any, std::uint64_t all) override
    {
        return engine().capture_state(s_, provider, level, any, all);
    }
    Status grant(std::uint32_t uid, std::uint32_t rights) override
    {
        return Hosting::instance().grant(s_, uid, rights);
    }
    Status set_stack_tracing(const std::vector<etw_classic_event_id> &events) override
    {
        return s_->set_stack_tracing(events);
    }
    Status set_profile_interval(std::uint32_t interval_100ns) override
    {
        return s_->set_profile_interval(interval_100ns);
    }
    void describe(Properties &props) override { s_->fill(props); }
    Status open_feed(std::unique_ptr<LiveFeed> *out, std::vector<std::uint8_t> *header) override
    {
        std::unique_ptr<RealtimeReader> reader;
        if (Status st = s_->attach(&reader); !st)
            return st;
        *header = s_->header_buffer();
        *out = std::move(reader);
        return Status::ok();
    }

private:
    static Engine &engine() { return Hosting::instance().engine(); }
    std::shared_ptr<Session> s_;
};

// A session another process hosts: requests go to its host, and this
// process's providers follow what it enables before a call returns.
class HostedRef final : public SessionRef {
public:
    explicit HostedRef(const RegistryEntry &e) : r_(*SystemRegistry::get(), e) {}

    std::uint64_t handle() const override { return r_.handle(); }
    Status host_info(HostInfo *out) override
    {
        bool orphaned = false;
        if (!r_.refresh(&orphaned))
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
        *out = {r_.host_pid(), orphaned, false};
        return Status::ok();
    }
    Status options(SessionOptions *out) override { return r_.options(out); }
    Status query(Properties &props) override { return r_.query(props); }
    Status update(Properties &props) override { return r_.update(props); }
    Status flush(Properties *props) override { return r_.flush(props); }
    Status flush_to(const std::string &path, Properties *props) override { return r_.flush_to(path, props); }
    Status stop(Properties *props) override
    {
        Status st = r_.stop(props);
        Hosting::instance().sync_providers();
        return st;
    }
    Status enable(const etw_guid &provider, bool on, std::uint8_t level, std::uint64_t any, std::uint64_t all,
                  std::uint32_t enable_property, const std::vector<std::uint8_t> &filters) override
    {
        EnableRecord rec{};
        rec.guid = provider;
        rec.level = level;
        rec.match_any = any;
        rec.match_all = all;
        rec.enable_property = enable_property;
        Status st = r_.enable(rec, on, filters);
        if (st)
            Hosting::instance().sync_providers();
        return st;
    }
    Status capture_state(const etw_guid &provider, std::uint8_t level, std::uint64_t any, std::uint64_t all) override
    {
        EnableRecord rec{};
        rec.guid = provider;
        rec.level = level;
        rec.match_any = any;
        rec.match_all = all;
        Status st = r_.capture_state(rec);
        if (st)
            Hosting::instance().sync_providers(); // this process's registrations answer before the call returns
        return st;
    }
    Status grant(std::uint32_t uid, std::uint32_t rights) override { return r_.grant(uid, rights); }
    Status set_stack_tracing(const std::vector<etw_classic_event_id> &events) override
    {
        return r_.set_stack_tracing(events);
    }
    Status set_profile_interval(std::uint32_t interval_100ns) override
    {
        return r_.set_profile_interval(interval_100ns);
    }
    void describe(Properties &props) override
    {
        // Without the control right: what its host last published (the
        // registry is everyone's); one that stops meanwhile keeps its name only.
        if (!r_.query(props) && !SystemRegistry::get()->published(r_.entry(), props))
            props.assign_session_name(r_.entry().name);
    }
    Status open_feed(std::unique_ptr<LiveFeed> *out, std::vector<std::uint8_t> *header) override
    {
        if (r_.entry().orphaned)
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND,
                        "the session is orphaned (its host process died): nothing feeds it");
        std::unique_ptr<RemoteFeed> feed;
        if (Status st = RemoteFeed::open(*SystemRegistry::get(), r_.entry(), &feed, header); !st)
            return st;
        *out = std::move(feed);
        return Status::ok();
    }

private:
    RemoteSession r_;
};

// No host could serve a start (connect_host's "no session host ..."): adds
// what the caller can do.
Status no_host(Status st, const std::string &registry)
{
    if (st.message.rfind("no session host answers", 0) == 0)
        st.message += " (run `openetw-hostd --registry " + registry + "` to see why it does not start)";
    st.message += "; to run the session in this process instead, where it ends with the process, pass "
                  "ETW_SESSION_IN_PROCESS (etwctl start --in-process) or set OPENETW_HOST=inprocess";
    return st;
}

Status start_anywhere(Properties &props, const SessionOptions &options, std::unique_ptr<SessionRef> *out)
{
    Hosting &hosting = Hosting::instance();
    const bool is_private = (props.record().LogFileMode & ETW_PRIVATE_LOGGER_MODE) != 0;
    if (!is_private && !options.in_process && sessions_start_in_host()) {
        props.clear_outputs();
        if (Status v = props.validate(); !v)
            return v; // said here, with the member at fault, before any host is started
        // Checked (and for a default namespace made fit) here, where the
        // reason reaches the caller; the host checks again.
        const std::string registry = platform::registry_path();
        std::string why;
        if (etw_status f = platform::prepare_namespace_folder(registry, &why); f != ETW_OK)
            return Fail(f, why);
        RegistryEntry e;
        Status st = host_start(props, options, &e);
        if (!st)
            return st.message.rfind("no session host", 0) == 0 ? no_host(std::move(st), registry) : st;
        *out = std::make_unique<HostedRef>(e);
        hosting.sync_providers(); // the caller's providers hear of it before this returns
        return st;
    }
    std::shared_ptr<Session> local;
    Status st =
        options.take_over ? hosting.take_over(props, options, &local) : hosting.engine().start(props, options, &local);
    if (st)
        *out = std::make_unique<LocalRef>(std::move(local));
    return st;
}

} // namespace

Status start_session(Properties &props, const SessionOptions &options, std::unique_ptr<SessionRef> *out)
{
    // The export's credentials file named by the caller's environment: the
    // host, which reads it, has an environment of its own.
    if (!props.export_url().empty() && props.export_credentials().empty())
        if (const char *v = std::getenv(exporter::kCredentialsVariable); v && *v)
            props.set_export(props.export_url(), platform::absolute_path(v));
    // A taken-over session keeps its own settings; a new one gets Windows'
    // default maximum (the caller's props are unchanged on failure).
    const std::uint32_t given =
        options.take_over ? 0 : props.apply_maximum_buffers_default(platform::processor_count());
    Status st = start_anywhere(props, options, out);
    if (!st && !options.take_over)
        props.record().MaximumBuffers = given;
    return st;
}

Status open_session(const std::u16string &name, std::unique_ptr<SessionRef> *out)
{
    Hosting &hosting = Hosting::instance();
    std::shared_ptr<Session> local;
    if (hosting.engine().open(name, &local)) {
        *out = std::make_unique<LocalRef>(std::move(local));
        return Status::ok();
    }
    RegistryEntry e;
    if (!hosting.find_foreign(name, &e))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND,
                    "no running session is named \"" + utf16_to_utf8_lossy(name) + "\"");
    *out = std::make_unique<HostedRef>(e);
    return Status::ok();
}

std::vector<std::unique_ptr<SessionRef>> running_sessions()
{
    Hosting &hosting = Hosting::instance();
    std::vector<std::unique_ptr<SessionRef>> out;
    for (std::shared_ptr<Session> &s : hosting.engine().running())
        out.push_back(std::make_unique<LocalRef>(std::move(s)));
    for (const RegistryEntry &e : hosting.foreign_sessions())
        out.push_back(std::make_unique<HostedRef>(e));
    return out;
}

} // namespace openetw::host
