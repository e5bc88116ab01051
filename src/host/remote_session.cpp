#include "host/remote_session.hpp"

#include "base/utf.hpp"
#include "host/host_channel.hpp"
#include "engine/log_file.hpp"
#include "host/orphan_recovery.hpp"
#include "host/session_channel.hpp"

#include <openetw/constants.h>
#include <openetw/session.h>

namespace openetw::host {

using engine::recover_log_file;

Status RemoteSession::orphan_access()
{
    // No host to ask: the rights it published decide (its user and root hold them all).
    const std::uint32_t me = platform::effective_user_id();
    if (me == 0 || me == entry_.host_uid)
        return Status::ok();
    std::vector<GrantRecord> grants;
    if (registry_.tables(entry_, nullptr, &grants))
        for (const GrantRecord &g : grants)
            if (g.uid == me && (g.rights & ETW_SESSION_RIGHT_CONTROL))
                return Status::ok();
    return Fail(ETW_ERROR_ACCESS_DENIED, "user " + std::to_string(me) +
                                             " has no control right over the orphaned session of user " +
                                             std::to_string(entry_.host_uid));
}

Status RemoteSession::enable(const EnableRecord &rec, bool enable, const std::vector<std::uint8_t> &filters)
{
    if (Status st = reachable("it can only be stopped"); !st)
        return st;
    return request_enable(registry_, entry_, rec, enable, filters);
}

Status RemoteSession::capture_state(const EnableRecord &rec)
{
    if (Status st = reachable("it can only be stopped"); !st)
        return st;
    return request_capture(registry_, entry_, rec);
}

Status RemoteSession::grant(std::uint32_t uid, std::uint32_t rights)
{
    if (Status st = reachable("it can only be stopped"); !st)
        return st;
    return request_grant(registry_, entry_, GrantRecord{uid, rights});
}

Status RemoteSession::set_stack_tracing(const std::vector<etw_classic_event_id> &events)
{
    if (Status st = reachable("it can only be stopped"); !st)
        return st;
    return request_stack_tracing(registry_, entry_, events);
}

Status RemoteSession::set_profile_interval(std::uint32_t interval_100ns)
{
    if (Status st = reachable("it can only be stopped"); !st)
        return st;
    return request_profile_interval(registry_, entry_, interval_100ns);
}

Status RemoteSession::options(SessionOptions *out)
{
    if (Status st = reachable("it can only be stopped"); !st)
        return st;
    return request_options(registry_, entry_, out);
}

Status RemoteSession::flush_to(const std::string &path, Properties *props)
{
    if (Status st = reachable("it can only be stopped"); !st)
        return st;
    auto abs = utf8_to_utf16(platform::absolute_path(path)); // the host's folder is not the caller's
    if (!abs || abs->size() > kRegistryNameMax)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "path is not valid UTF-8 or longer than 1024 characters");
    return request_flush_to(registry_, entry_, *abs, props);
}

Status RemoteSession::reachable(const char *instead)
{
    if (!registry_.refresh(entry_))
        return gone();
    if (entry_.orphaned)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is orphaned (its host process " +
                                                          std::to_string(entry_.host_pid) + " died): " + instead);
    return Status::ok();
}

Status RemoteSession::gone() const
{
    return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running (stopped)");
}

bool RemoteSession::refresh(bool *orphaned)
{
    const bool ok = registry_.refresh(entry_);
    *orphaned = ok && entry_.orphaned;
    return ok;
}

Status RemoteSession::query(Properties &props)
{
    if (!registry_.refresh(entry_))
        return gone();
    if (entry_.orphaned) {
        if (Status st = orphan_access(); !st)
            return st;
        return registry_.published(entry_, props) ? Status::ok() : gone();
    }
    return request_control(registry_, entry_, Request::Query, &props);
}

Status RemoteSession::update(Properties &props)
{
    if (Status st = reachable("it cannot be updated, only stopped"); !st)
        return st;
    return request_control(registry_, entry_, Request::Update, &props);
}

Status RemoteSession::flush(Properties *props)
{
    if (Status st = reachable("it cannot be flushed, only stopped"); !st)
        return st;
    return request_control(registry_, entry_, Request::Flush, props);
}

Status RemoteSession::stop(Properties *props)
{
    if (!registry_.refresh(entry_))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running (already stopped)");
    if (entry_.orphaned) {
        if (Status st = orphan_access(); !st)
            return st;
        if (!registry_.writable())
            return host_stop_orphan(entry_, props); // the host finishes it (it alone writes the registry)
        // The name becomes free whatever the file holds; the file keeps the
        // buffers the host wrote and those still in its memory, finished so
        // that readers take them all.
        Properties published;
        Properties &out = props ? *props : published;
        Status st;
        if (registry_.published(entry_, out)) {
            etw_event_trace_properties &r = out.record();
            RegionLeftovers left;
            const std::string region = registry_.region_path(entry_.slot, entry_.generation);
            const Status collected =
                collect_region(region, r.Wnode.ClientContext, std::uint16_t(entry_.handle & 0xFFFF), &left);
            if (collected) {
                r.EventsLost = left.events_lost; // the region's count is the latest
            }
            // NEWFILE: which numbered file was open is not published (not recovered).
            if (!out.log_file_name_utf8().empty() && !(r.LogFileMode & ETW_FILE_MODE_NEWFILE)) {
                std::uint32_t written = 0;
                st = recover_log_file(out.log_file_name_utf8(), platform::filetime_now(), r.EventsLost, &written,
                                      left.buffers);
                r.BuffersWritten = written;
            }
            if (collected || collected.code == ETW_ERROR_INVALID_DATA)
                platform::remove_file(region);
        }
        registry_.release(entry_.slot, entry_.generation);
        if (!st)
            return Fail(st.code,
                        "the orphaned session stopped (its name is free), but its log file was not finished: " +
                            st.message);
        return st;
    }
    return request_control(registry_, entry_, Request::Stop, props);
}

} // namespace openetw::host
