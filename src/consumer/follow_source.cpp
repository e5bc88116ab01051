#include "consumer/follow_source.hpp"

#include "consumer/file_source.hpp"
#include "format/etl_layout.hpp"
#include "platform/file_input.hpp"

namespace openetw::consumer {

Status FollowSource::open(const std::vector<std::uint8_t> &header_buffer, const std::string &name, std::uint32_t index,
                          std::unique_ptr<FollowSource> &out)
{
    // The header buffer is what the session's file starts with: the file
    // reader gives the same facts (clock, start time, pointer size...).
    std::unique_ptr<FileSource> header;
    if (Status st = FileSource::open(platform::memory_input(header_buffer), name, index, header); !st)
        return Fail(ETW_ERROR_INVALID_DATA, "the header buffer of " + name + " does not read back: " + st.message);
    out.reset(new FollowSource());
    out->info_ = header->info();
    out->info_.path = name;
    out->info_.size = 0;
    return Status::ok();
}

bool FollowSource::add(std::uint64_t sequence, std::vector<std::uint8_t> bytes, BufferLocation *loc)
{
    if (!sequences_.insert(sequence).second)
        return false;
    *loc = BufferLocation{};
    loc->index = ++arrived_;
    loc->length = std::uint32_t(bytes.size());
    if (bytes.size() >= etl::kBufferHeaderSize) {
        loc->sequence = etl::rd64(bytes.data() + etl::buf::SequenceNumber);
        loc->processor = etl::rd16(bytes.data() + etl::buf::ProcessorIndex);
    }
    info_.size += bytes.size();
    kept_[loc->index] = std::move(bytes);
    return true;
}

bool FollowSource::finish(const std::vector<std::uint8_t> &end_buffer, std::uint32_t *events_lost)
{
    std::unique_ptr<FileSource> end;
    if (!FileSource::open(platform::memory_input(end_buffer), info_.path, info_.index, end))
        return false;
    const std::uint32_t before = info_.header.fields.EventsLost;
    info_.header.fields = end->info().header.fields;
    const std::uint32_t after = info_.header.fields.EventsLost;
    *events_lost = after > before ? after - before : 0;
    return true;
}

Status FollowSource::read(const BufferLocation &loc, StoredBuffer &out)
{
    auto it = kept_.find(loc.index);
    if (it == kept_.end())
        return Fail(ETW_ERROR_INTERNAL_ERROR, info_.path + ": buffer " + std::to_string(loc.index) + " was read twice");
    out.bytes = std::move(it->second);
    kept_.erase(it);
    out.location = loc;
    out.problem.clear();
    return Status::ok();
}

} // namespace openetw::consumer
