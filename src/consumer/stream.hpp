// One ordered run of buffers from a source (a whole file in file order, or
// one processor's buffers sorted by SequenceNumber in time order), walked
// record by record. Holds one buffer at a time, so memory stays bounded by
// the buffer size; with an ImageBudget, the decompressed image of that
// buffer may be freed while the stream waits and rebuilt when it is used.
#pragma once

#include "consumer/buffer_source.hpp"
#include "consumer/image_budget.hpp"
#include "format/record_reader.hpp"
#include "format/timestamps.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::consumer {

// The buffer a stream is reading, and what was found in it.
struct BufferState {
    StoredBuffer stored;
    format::BufferHeader header;
    bool header_valid = false;
    format::BufferImage image;
    std::vector<std::uint8_t> scratch; // decompressed image, reused
    format::RecordReader reader;
    bool readable = false;
    std::uint32_t record_count = 0;
    std::uint32_t corrupt_records = 0;
    format::Problem problem; // the first one in this buffer
    format::Problem warning; // its header disagrees with records all of which are read
    std::string message;     // the problem, else the warning, as a sentence naming the file offset
};

class Stream {
public:
    enum class Event {
        Record,     // record(), items() and key() describe the next record
        BufferDone, // buffer() is finished: its records were all delivered
        Exhausted,  // no more buffers
    };

    explicit Stream(BufferSource &source);                               // stored order
    Stream(BufferSource &source, std::vector<BufferLocation> locations); // the given order
    ~Stream();
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    // Decompressed images are then counted against budget (which must
    // outlive the stream) and may be freed by it while the stream waits.
    void set_budget(ImageBudget *budget) { budget_ = budget; }
    // Makes the current record's bytes present again (after release_image)
    // and marks the stream as just used. Call before reading record bytes.
    void use_image();
    // Frees the decompressed image; the position in the buffer is kept.
    void release_image();

    // A failing Status is an I/O error.
    Status advance(Event &event);

    BufferSource &source() const { return *source_; }
    const format::Record &record() const { return record_; }
    const std::vector<format::ExtendedItem> &items() const { return items_; }
    // FILETIME of the record, for merging, then its raw timestamp: records of
    // one file whose clock ticks finer than 100 ns (QPC, the cycle counter)
    // keep their order within a FILETIME tick. Records without a timestamp
    // take their predecessor's so they stay in place.
    struct Key {
        std::int64_t filetime = 0, raw = 0;
        bool operator<(const Key &o) const { return filetime != o.filetime ? filetime < o.filetime : raw < o.raw; }
    };
    Key key() const { return key_; }
    const BufferState &buffer() const { return buffer_; }

private:
    Status fetch(bool &have);
    void begin_buffer();
    void note(const format::Problem &problem);
    void warn(const format::Problem &warning);
    void forget_image();

    BufferSource *source_;
    format::TimeConverter time_; // the source's clock, prepared once
    bool sequential_;
    std::vector<BufferLocation> locations_;
    std::size_t next_location_ = 0;
    bool loaded_ = false;
    BufferState buffer_;
    format::Record record_;
    std::vector<format::ExtendedItem> items_;
    Key key_;
    Key last_key_;
    ImageBudget *budget_ = nullptr;
    bool image_released_ = false;
    std::uint32_t resume_at_ = 0; // reader position when the image was released
};

} // namespace openetw::consumer
