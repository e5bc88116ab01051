#include "consumer/stream.hpp"

#include "consumer/messages.hpp"
#include "format/etl_layout.hpp"

namespace openetw::consumer {

Stream::Stream(BufferSource &source)
    : source_(&source), time_(source.info().time),
      sequential_(true), last_key_{source.info().header.fields.StartTime, 0}
{}

Stream::Stream(BufferSource &source, std::vector<BufferLocation> locations)
    : source_(&source), time_(source.info().time), sequential_(false),
      locations_(std::move(locations)), last_key_{source.info().header.fields.StartTime, 0}
{}

Stream::~Stream()
{
    if (budget_)
        budget_->drop(this);
}

void Stream::forget_image()
{
    std::vector<std::uint8_t>().swap(buffer_.scratch);
    if (buffer_.image.decompressed)
        buffer_.image.bytes = {};
    if (budget_)
        budget_->drop(this);
}

void Stream::release_image()
{
    // Called by the budget, which has already forgotten this stream.
    const bool decompressed = buffer_.image.decompressed;
    if (decompressed && buffer_.readable) {
        resume_at_ = buffer_.reader.position();
        image_released_ = true;
    }
    std::vector<std::uint8_t>().swap(buffer_.scratch);
    if (decompressed)
        buffer_.image.bytes = {};
}

void Stream::use_image()
{
    if (!image_released_) {
        if (budget_ && buffer_.image.decompressed)
            budget_->touch(this);
        return;
    }
    image_released_ = false;
    // The stored bytes are unchanged, so this succeeds as it did the first
    // time; the record reader resumes where it stood.
    format::Problem p;
    BufferState &b = buffer_;
    if (!format::make_buffer_image(b.stored.bytes, b.header, source_->info().image_context, b.scratch, b.image, p)) {
        b.readable = false;
        return;
    }
    b.reader = format::RecordReader(b.image.bytes, b.image.filled, resume_at_);
    if (budget_)
        budget_->hold(this, b.scratch.capacity());
}

Status Stream::fetch(bool &have)
{
    if (sequential_)
        return source_->next(buffer_.stored, have);
    have = next_location_ < locations_.size();
    if (!have)
        return Status::ok();
    return source_->read(locations_[next_location_++], buffer_.stored);
}

void Stream::note(const format::Problem &problem)
{
    if (buffer_.problem)
        return;
    buffer_.problem = problem;
    buffer_.message = problem_message(source_->info().path, buffer_.stored.location.index,
                                      buffer_.stored.location.file_offset, buffer_.image.decompressed, problem);
    // One message per buffer: the warning found first stays in it.
    if (buffer_.warning)
        buffer_.message += "; warning: " + buffer_.warning.detail;
}

void Stream::warn(const format::Problem &warning)
{
    buffer_.warning = warning;
    if (!buffer_.problem)
        buffer_.message = problem_message(source_->info().path, buffer_.stored.location.index,
                                          buffer_.stored.location.file_offset, buffer_.image.decompressed, warning);
    else
        buffer_.message += "; warning: " + warning.detail;
}

void Stream::begin_buffer()
{
    BufferState &b = buffer_;
    b.header_valid = false;
    b.image = format::BufferImage{};
    b.readable = false;
    b.record_count = 0;
    b.corrupt_records = 0;
    b.problem.clear();
    b.warning.clear();
    b.message.clear();
    if (b.stored.problem)
        note(b.stored.problem);
    if (b.stored.bytes.size() >= etl::kBufferHeaderSize) {
        b.header = format::parse_buffer_header(b.stored.bytes);
        b.header_valid = true;
    }
    // A buffer whose size could not be trusted is not read; one cut short by
    // the end of the file is read up to the cut.
    if (!b.header_valid || (b.stored.problem && b.stored.problem.code != ETW_ERROR_HANDLE_EOF))
        return;
    format::Problem p;
    const bool ok =
        format::make_buffer_image(b.stored.bytes, b.header, source_->info().image_context, b.scratch, b.image, p);
    if (p)
        note(p);
    if (b.image.warning)
        warn(b.image.warning);
    if (!ok)
        return;
    b.readable = true;
    b.reader = format::RecordReader(b.image.bytes, b.image.filled);
    if (budget_ && b.image.decompressed)
        budget_->hold(this, b.scratch.capacity());
}

Status Stream::advance(Event &event)
{
    use_image();
    for (;;) {
        if (!loaded_) {
            bool have = false;
            if (Status st = fetch(have); !st)
                return st;
            if (!have) {
                forget_image();
                event = Event::Exhausted;
                return Status::ok();
            }
            begin_buffer();
            loaded_ = true;
        }
        if (buffer_.readable) {
            format::Problem p;
            const auto step = buffer_.reader.next(record_, items_, p);
            if (step == format::RecordReader::Step::Record) {
                ++buffer_.record_count;
                if (record_.present & format::kHasTimestamp)
                    last_key_ = {time_(record_.timestamp), record_.timestamp};
                key_ = last_key_;
                event = Event::Record;
                return Status::ok();
            }
            if (step == format::RecordReader::Step::SkipCorrupt) {
                ++buffer_.corrupt_records;
                note(p);
                continue;
            }
            if (step == format::RecordReader::Step::StopCorrupt) {
                ++buffer_.corrupt_records;
                note(p);
            }
        }
        loaded_ = false;
        buffer_.readable = false;
        event = Event::BufferDone;
        return Status::ok();
    }
}

} // namespace openetw::consumer
