// libFuzzer target: any bytes as an .etl file, read by the whole consumer in
// both orders. Every view a callback gets must stay inside its record or
// buffer (touched byte by byte, so ASan sees any overrun); a failing status
// must come with a message.
#include "consumer/consumer.hpp"
#include "platform/file_input.hpp"

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace {

volatile std::uint8_t g_sink;

void touch(const std::uint8_t *p, std::size_t n)
{
    std::uint8_t x = 0;
    for (std::size_t i = 0; i < n; ++i)
        x ^= p[i];
    g_sink = x;
}

std::int32_t on_record(void *, const etw_record *r)
{
    if (r->size < r->header_size || r->payload + r->payload_size != r->bytes + r->size)
        std::abort();
    for (std::uint32_t i = 0; i < r->extended_count; ++i)
        if (r->extended[i].data < r->bytes || r->extended[i].data + r->extended[i].data_size > r->payload)
            std::abort();
    touch(r->bytes, r->size);
    return 0;
}

std::int32_t on_buffer(void *, const etw_buffer_info *b)
{
    touch(b->data, b->stored_size);
    if (b->image)
        touch(b->image, b->image_size);
    if ((b->status == ETW_OK) != (b->message[0] == '\0'))
        std::abort();
    return 0;
}

void read(const std::uint8_t *data, std::size_t size, std::uint32_t flags)
{
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = flags;
    o.record = on_record;
    o.buffer = on_buffer;
    openetw::consumer::Consumer consumer(o);
    const openetw::Status open =
        consumer.add_input("fuzz.etl", openetw::platform::memory_input(std::vector<std::uint8_t>(data, data + size)));
    if (!open) {
        if (open.message.empty())
            std::abort();
        return;
    }
    const openetw::Status st = consumer.process();
    if (!st.is_ok() && st.message.empty())
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    read(data, size, ETW_CONSUMER_ORDER_FILE);
    read(data, size, ETW_CONSUMER_ORDER_TIME);
    return 0;
}
