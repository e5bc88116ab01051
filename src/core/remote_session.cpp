#include "core/remote_session.hpp"

#include "core/log_file.hpp"

#include <openetw/constants.h>

namespace openetw::core {

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
    if (entry_.orphaned)
        return registry_.published(entry_, props) ? Status::ok() : gone();
    return registry_.request(entry_, Request::Query, &props);
}

Status RemoteSession::update(Properties &props)
{
    if (!registry_.refresh(entry_))
        return gone();
    if (entry_.orphaned)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is orphaned (its host process " +
                                                          std::to_string(entry_.host_pid) +
                                                          " died): it cannot be updated, only stopped");
    return registry_.request(entry_, Request::Update, &props);
}

Status RemoteSession::flush(Properties *props)
{
    if (!registry_.refresh(entry_))
        return gone();
    if (entry_.orphaned)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is orphaned (its host process " +
                                                          std::to_string(entry_.host_pid) +
                                                          " died): it cannot be flushed, only stopped");
    return registry_.request(entry_, Request::Flush, props);
}

Status RemoteSession::stop(Properties *props)
{
    if (!registry_.refresh(entry_))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running (already stopped)");
    if (entry_.orphaned) {
        // The name becomes free whatever the file holds; the file keeps the
        // buffers the host wrote, finished so that readers take them all.
        Properties published;
        Properties &out = props ? *props : published;
        Status st;
        if (registry_.published(entry_, out)) {
            etw_event_trace_properties &r = out.record();
            // NEWFILE: which numbered file was open is not published (not recovered).
            if (!out.log_file_name_utf8().empty() && !(r.LogFileMode & ETW_FILE_MODE_NEWFILE)) {
                std::uint32_t written = 0;
                st = recover_log_file(out.log_file_name_utf8(), platform::filetime_now(), r.EventsLost, &written);
                r.BuffersWritten = written;
            }
        }
        registry_.release(entry_.slot, entry_.generation);
        if (!st)
            return Fail(st.code, "the orphaned session stopped (its name is free), but its log file was not finished: " +
                                     st.message);
        return st;
    }
    return registry_.request(entry_, Request::Stop, props);
}

} // namespace openetw::core
