// Caps the memory of the decompressed buffer images that the streams of one
// time-order merge hold at once. A compressed buffer expands to as much as
// the header's BufferSize (up to 16 MiB), so one image per stream would let a
// small file with many processor streams claim gigabytes. Over the cap, the
// least recently used images of other streams are freed; their streams
// decompress again when the merge next takes a record from them.
#pragma once

#include <cstddef>
#include <list>
#include <unordered_map>
#include <utility>

namespace openetw::consumer {

class Stream;

class ImageBudget {
public:
    // Enough for four images of the largest buffers, and for every stream of a
    // typical file (64 processors with 64 KB to 1 MB buffers) without eviction.
    static constexpr std::size_t kDefaultBytes = std::size_t(64) << 20;

    explicit ImageBudget(std::size_t limit = kDefaultBytes) : limit_(limit) {}
    ImageBudget(const ImageBudget &) = delete;
    ImageBudget &operator=(const ImageBudget &) = delete;

    // s now holds an image of `bytes`; frees other streams' images (least
    // recently used first) until the total fits the limit or s is alone.
    void hold(Stream *s, std::size_t bytes);
    // s was used: it becomes the most recently used.
    void touch(Stream *s);
    // s holds no image any more.
    void drop(Stream *s);

private:
    using Entry = std::pair<Stream *, std::size_t>;

    std::size_t limit_;
    std::size_t total_ = 0;
    std::list<Entry> lru_; // least recently used first
    std::unordered_map<Stream *, std::list<Entry>::iterator> where_;
};

} // namespace openetw::consumer
