#include "kernel/ftrace_page.hpp"

#include "format/etl_layout.hpp"

#include <algorithm>

namespace openetw::kernel {

namespace {

constexpr std::uint64_t kMissedEvents = 1u << 31; // RB_MISSED_EVENTS
constexpr std::uint64_t kMissedStored = 1u << 30; // RB_MISSED_STORED: the count follows the data
constexpr std::uint64_t kCommitMask = (1u << 30) - 1;
constexpr std::uint32_t kTypePadding = 29, kTypeTimeExtend = 30, kTypeTimeStamp = 31;
constexpr unsigned kDeltaBits = 27;
constexpr unsigned kStampBits = 59; // an absolute stamp's bits; the page time gives the others

} // namespace

FtracePageCounts parse_ftrace_page(std::span<const std::uint8_t> page, std::size_t header_size,
                                   const std::function<void(std::uint64_t, std::span<const std::uint8_t>)> &each)
{
    FtracePageCounts c;
    if (header_size < 16 || page.size() < header_size) {
        c.malformed = true;
        return c;
    }
    std::uint64_t time = etl::rd_le<std::uint64_t>(page.data());
    const std::uint64_t commit_word = etl::rd_le<std::uint64_t>(page.data() + 8);
    const std::size_t commit = std::size_t(commit_word & kCommitMask);
    const std::span<const std::uint8_t> data = page.subspan(header_size);
    if (commit > data.size()) {
        c.malformed = true;
        return c;
    }
    if (commit_word & kMissedEvents) {
        c.missed = 1;
        if ((commit_word & kMissedStored) && commit + 8 <= data.size())
            c.missed = std::max<std::uint64_t>(1, etl::rd_le<std::uint64_t>(data.data() + commit));
    }
    std::size_t at = 0;
    while (at + 4 <= commit) {
        const std::uint32_t head = etl::rd_le<std::uint32_t>(data.data() + at);
        const std::uint32_t type_len = head & 0x1F;
        const std::uint64_t delta = head >> 5;
        at += 4;
        if (type_len == kTypeTimeExtend || type_len == kTypeTimeStamp) {
            if (at + 4 > commit) {
                c.malformed = true;
                break;
            }
            const std::uint64_t v = delta | (std::uint64_t(etl::rd_le<std::uint32_t>(data.data() + at)) << kDeltaBits);
            at += 4;
            if (type_len == kTypeTimeExtend)
                time += v;
            else
                time = (time & ~((std::uint64_t(1) << kStampBits) - 1)) | v;
            continue;
        }
        if (type_len == kTypePadding) {
            if (delta == 0)
                break; // the rest of the page is unused
            if (at + 4 > commit) {
                c.malformed = true;
                break;
            }
            // A discarded event: its length counts the word that holds it,
            // not the head; its delta only marks it (the time stays).
            const std::uint32_t len = etl::rd_le<std::uint32_t>(data.data() + at);
            if (len < 4 || len > commit - at) {
                c.malformed = true;
                break;
            }
            at += len;
            continue;
        }
        std::size_t len;
        if (type_len == 0) {
            if (at + 4 > commit) {
                c.malformed = true;
                break;
            }
            // The length word counts itself.
            const std::uint32_t n = etl::rd_le<std::uint32_t>(data.data() + at);
            if (n < 4) {
                c.malformed = true;
                break;
            }
            at += 4;
            len = n - 4;
        } else {
            len = std::size_t(type_len) * 4;
        }
        if (len > commit - at) {
            c.malformed = true;
            break;
        }
        time += delta;
        each(time, data.subspan(at, len));
        ++c.events;
        at += (len + 3) & ~std::size_t(3);
    }
    return c;
}

} // namespace openetw::kernel
