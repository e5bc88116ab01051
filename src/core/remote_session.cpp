#include "core/remote_session.hpp"

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
        // Its log file keeps what the host wrote; the name becomes free.
        if (props)
            registry_.published(entry_, *props);
        registry_.release(entry_.slot, entry_.generation);
        return Status::ok();
    }
    return registry_.request(entry_, Request::Stop, props);
}

} // namespace openetw::core
