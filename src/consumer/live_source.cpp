#include "consumer/live_source.hpp"

#include "consumer/file_source.hpp"
#include "platform/file_input.hpp"
#include "format/etl_layout.hpp"

namespace openetw::consumer {

Status LiveSource::open(std::unique_ptr<engine::LiveFeed> feed, const std::vector<std::uint8_t> &header_buffer,
                        const std::string &name, std::uint32_t index, const LiveHooks *hooks,
                        std::unique_ptr<LiveSource> &out)
{
    std::unique_ptr<LiveSource> src(new LiveSource());
    // The session's header buffer is what a file of it would start with:
    // read it with the file reader for the same facts (clock, start time...).
    std::unique_ptr<FileSource> header;
    if (Status st = FileSource::open(platform::memory_input(header_buffer), name, index, header); !st)
        return Fail(ETW_ERROR_INVALID_DATA, "the session's header buffer does not read back: " + st.message);
    src->info_ = header->info();
    src->info_.path = name;
    src->info_.size = 0;
    src->hooks_ = hooks;
    src->reader_ = std::move(feed);
    out = std::move(src);
    return Status::ok();
}

bool LiveSource::report_loss(std::uint32_t events, std::uint32_t buffers, Status &stop)
{
    if ((events == 0 && buffers == 0) || !hooks_ || !hooks_->loss)
        return true;
    std::string why;
    if (hooks_->loss(events, buffers, &why))
        return true;
    stop = Fail(ETW_ERROR_CANCELLED, why);
    return false;
}

Status LiveSource::next(StoredBuffer &out, bool &have)
{
    have = false;
    engine::LossReport loss;
    const auto r = reader_->next(out.bytes, &loss);
    Status stop;
    if (!report_loss(loss.events_lost, loss.buffers_lost, stop))
        return stop;
    if (r == engine::LiveFeed::Next::Interrupted)
        return Fail(ETW_ERROR_CANCELLED, "processing was cancelled by etw_consumer_cancel or etw_consumer_close");
    if (r == engine::LiveFeed::Next::End) {
        if (const std::string why = reader_->ended_early(); !why.empty())
            end_problem_.set(ETW_ERROR_HANDLE_EOF, 0, why);
        return Status::ok();
    }
    out.problem.clear();
    out.location = BufferLocation{};
    out.location.index = ++delivered_;
    out.location.length = std::uint32_t(out.bytes.size());
    out.location.sequence = etl::rd64(out.bytes.data() + etl::buf::SequenceNumber);
    out.location.processor = etl::rd16(out.bytes.data() + etl::buf::ProcessorIndex);
    if (hooks_ && hooks_->raw_buffer) {
        std::string why;
        if (!hooks_->raw_buffer(out.bytes, &why))
            return Fail(ETW_ERROR_CANCELLED, why);
    }
    have = true;
    return Status::ok();
}

} // namespace openetw::consumer
