// Bounded mutation fuzzing of the .etl reader, without clang or libFuzzer:
// seeds from the real samples and synthetic files of every record kind,
// mutated (bit flips, interesting values in header fields, truncation,
// splicing) and read by the whole consumer in both orders, plus the format
// functions directly. Sanitizer builds turn any out-of-bounds access into a
// failure; the callbacks check that every view stays inside its record.
// usage: reader_fuzz SECONDS [SEED]
#include "consumer/consumer.hpp"
#include "etl_builder.hpp"
#include "format/buffer_header.hpp"
#include "format/etl_layout.hpp"
#include "format/logfile_header.hpp"
#include "format/record_reader.hpp"
#include "format/xpress.hpp"

#include <openetw/constants.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

using namespace etltest;
namespace fmt = openetw::format;
namespace cons = openetw::consumer;

namespace {

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "reader_fuzz: invariant broken: %s\n", what);
    std::abort();
}

volatile std::uint8_t g_sink;

void touch(const std::uint8_t *p, std::size_t n)
{
    std::uint8_t x = 0;
    for (std::size_t i = 0; i < n; ++i)
        x ^= p[i];
    g_sink = x;
}

int32_t check_record(void *, const etw_record *r)
{
    if (r->size < r->header_size)
        fail("size < header_size");
    if (r->payload < r->bytes || r->payload + r->payload_size != r->bytes + r->size)
        fail("payload outside its record");
    for (uint32_t i = 0; i < r->extended_count; ++i) {
        const etw_extended_item &e = r->extended[i];
        if (e.data < r->bytes || e.data + e.data_size > r->payload)
            fail("extended item outside its record");
    }
    touch(r->bytes, r->size);
    return 0;
}

int32_t check_buffer(void *, const etw_buffer_info *b)
{
    touch(b->data, b->stored_size);
    if (b->image) {
        touch(b->image, b->image_size);
        if (b->filled_size > b->image_size)
            fail("filled size beyond the image");
        if (b->image_size > openetw::etl::kMaxBufferBytes)
            fail("image larger than a buffer can be");
    }
    if ((b->status == ETW_OK) != (b->message[0] == '\0'))
        fail("status and message disagree");
    return 0;
}

int32_t check_event(void *, const etw_classic_event *e)
{
    touch(e->payload, e->payload_size);
    return 0;
}

std::map<etw_status, std::uint64_t> g_statuses;

void read_whole(const Bytes &bytes, std::uint32_t flags)
{
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = flags;
    o.record = check_record;
    o.buffer = check_buffer;
    o.event = check_event;
    cons::Consumer consumer(o);
    const openetw::Status open = consumer.add_input("fuzz.etl", openetw::platform::memory_input(bytes));
    if (!open) {
        ++g_statuses[open.code];
        if (open.message.empty())
            fail("a failing open without a message");
        return;
    }
    const openetw::Status st = consumer.process();
    ++g_statuses[st.code];
    if (!st.is_ok() && st.message.empty())
        fail("a failing process without a message");
}

// The format layer alone, on each buffer-sized slice.
void read_buffers(const Bytes &bytes)
{
    std::vector<std::uint8_t> scratch;
    std::size_t at = 0;
    for (int i = 0; i < 64 && at + 0x48 <= bytes.size(); ++i) {
        std::span<const std::uint8_t> rest(bytes.data() + at, bytes.size() - at);
        const fmt::BufferHeader h = fmt::parse_buffer_header(rest);
        fmt::BufferImage image;
        fmt::Problem p;
        if (fmt::make_buffer_image(rest, h, {65536, 3}, scratch, image, p)) {
            fmt::RecordReader reader(image.bytes, image.filled);
            fmt::Record r;
            std::vector<fmt::ExtendedItem> items;
            for (int n = 0; n < 100000; ++n) {
                const auto step = reader.next(r, items, p);
                if (step == fmt::RecordReader::Step::End || step == fmt::RecordReader::Step::StopCorrupt)
                    break;
                if (step == fmt::RecordReader::Step::Record) {
                    if (std::size_t(r.offset) + r.size > image.filled)
                        fail("record beyond the filled end");
                    if (fmt::is_logfile_header_record(r)) {
                        fmt::LogfileHeader lh;
                        fmt::parse_logfile_header(image.bytes.subspan(r.offset, r.size), r, lh, p);
                    }
                }
            }
        }
        if (h.buffer_size < 0x48)
            break;
        at += h.buffer_size;
    }
}

const std::uint32_t kInteresting[] = {
    0,          1,          7,          8,          0x47,       0x48,       0x49,       0x7F,      0x80,
    0xFF,       0x100,      0xFFF,      0x1000,     0x7FFF,     0x8000,     0xFFFF,     0x10000,   0x1000000,
    0x1000001u, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF, 0xC0140000, 0x90000000, 0xC0020002};

class Mutator {
public:
    explicit Mutator(std::uint64_t seed) : rng_(seed) {}

    std::size_t pick(std::size_t n) { return n ? std::size_t(rng_() % n) : 0; }

    void mutate(Bytes &b, const std::vector<Bytes> &seeds)
    {
        const int rounds = 1 + int(pick(6));
        for (int i = 0; i < rounds && !b.empty(); ++i) {
            switch (pick(9)) {
            case 0:
                b[pick(b.size())] ^= std::uint8_t(1u << pick(8));
                break;
            case 1:
                b[pick(b.size())] = std::uint8_t(rng_());
                break;
            case 2:
                write_value(b, near_structure(b), 2);
                break;
            case 3:
                write_value(b, near_structure(b), 4);
                break;
            case 4:
                write_value(b, pick(b.size()), 4);
                break;
            case 5:
                b.resize(pick(b.size() + 1));
                break; // truncate
            case 6: {  // duplicate a chunk
                const std::size_t from = pick(b.size()), len = std::min<std::size_t>(pick(512), b.size() - from);
                b.insert(b.begin() + std::ptrdiff_t(pick(b.size())), b.begin() + std::ptrdiff_t(from),
                         b.begin() + std::ptrdiff_t(from + len));
                break;
            }
            case 7: { // splice from another seed
                const Bytes &o = seeds[pick(seeds.size())];
                if (o.empty())
                    break;
                const std::size_t from = pick(o.size()), len = std::min<std::size_t>(pick(4096), o.size() - from);
                const std::size_t to = pick(b.size());
                for (std::size_t k = 0; k < len && to + k < b.size(); ++k)
                    b[to + k] = o[from + k];
                break;
            }
            default: // a record Size field: in buffer 0 or any 8-aligned spot
                write_value(b, (pick(b.size()) & ~std::size_t(7)) + (pick(2) ? 0 : 4), 2);
                break;
            }
        }
    }

private:
    // Offsets inside buffer headers and the first records are where parsing decides most.
    std::size_t near_structure(const Bytes &b)
    {
        static const std::size_t fields[] = {0x00, 0x04, 0x30, 0x34,        0x28,        0x18,
                                             0x2C, 0x48, 0x4C, 0x68 + 0x24, 0x68 + 0x20, 0x68 + 0x2C};
        const std::size_t buffer = pick(4) == 0 ? 0 : (pick(b.size()) & ~std::size_t(0xFFF));
        return std::min(b.size() - 1, buffer + fields[pick(std::size(fields))]);
    }

    void write_value(Bytes &b, std::size_t at, int width)
    {
        std::uint32_t v = pick(3) ? kInteresting[pick(std::size(kInteresting))] : std::uint32_t(rng_());
        if (pick(4) == 0)
            v += std::uint32_t(int(pick(17)) - 8);
        for (int k = 0; k < width && at + std::size_t(k) < b.size(); ++k)
            b[at + std::size_t(k)] = std::uint8_t(v >> (8 * k));
    }

    std::mt19937_64 rng_;
};

std::vector<Bytes> synthetic_seeds()
{
    std::vector<Bytes> seeds;
    for (int variant = 0; variant < 4; ++variant) {
        LogfileSpec s;
        s.pointer_size = variant == 1 ? 4 : 8;
        s.clock = std::uint32_t(1 + variant % 3);
        FileBuilder f(s);
        f.add_header_record(system_record(0x02, 0x0050, 1, 2, 3, Bytes(48, 0)));
        f.add_header_record(perfinfo_record(0x11, 0x0042, 3, Bytes(9, 'x'), 0x8100));
        BufferSpec b;
        b.sequence = 2;
        b.cpu = 1;
        FullSpec full;
        full.ts = 10;
        FullSpec inst = full;
        inst.header_type = 0x15;
        EventSpec ev;
        ev.ts = 11;
        ev.items = {{0x0C, Bytes(20, 1)}, {0x0B, Bytes(3, 2)}};
        MessageSpec msg;
        msg.flags = 0xAB;
        msg.ts = 12;
        b.records = {full_record(full, Bytes(5, 1)),
                     full_record(inst, {}),
                     event_record(ev, Bytes(7, 3)),
                     message_record(msg, Bytes(6, 4)),
                     system_record(0x03, 0x0101, 1, 1, 13, {}),
                     perfinfo_record(0x10, 0x0F00, 14, Bytes(4, 0))};
        f.add(b);
        BufferSpec c;
        c.sequence = 1;
        c.records = {event_record(ev, Bytes(100, 9)), event_record(ev, {})};
        f.add(c);
        if (variant == 3) {
            f.spec().mode = ETW_COMPRESSED_MODE;
            f.set_compressed(true);
        }
        seeds.push_back(f.build());
    }
    return seeds;
}

} // namespace

int main(int argc, char **argv)
{
    const double seconds = argc > 1 ? std::atof(argv[1]) : 10.0;
    const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10)
                                        : std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    std::vector<Bytes> seeds = synthetic_seeds();
    for (const auto &entry : std::filesystem::directory_iterator(OPENETW_SAMPLES_DIR)) {
        if (entry.path().extension() != ".etl")
            continue;
        Bytes b = read_file(entry.path().string());
        if (b.size() > (1u << 20))
            b.resize(1u << 20); // keep iterations fast; the cut itself is an input worth reading
        seeds.push_back(std::move(b));
    }
    std::printf("reader_fuzz: %zu seeds, %.0f s, seed %llu\n", seeds.size(), seconds, (unsigned long long)seed);
    std::fflush(stdout);

    // Every seed as it is first: all must be read without crashing.
    for (const Bytes &s : seeds) {
        read_whole(s, ETW_CONSUMER_ORDER_FILE);
        read_whole(s, ETW_CONSUMER_ORDER_TIME);
        read_buffers(s);
    }
    Mutator m(seed);
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t iterations = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        Bytes input = seeds[m.pick(seeds.size())];
        m.mutate(input, seeds);
        read_whole(input, (iterations & 1) ? ETW_CONSUMER_ORDER_TIME : ETW_CONSUMER_ORDER_FILE);
        read_buffers(input);
        // The decompressor straight on the mutated bytes.
        std::vector<std::uint8_t> out(m.pick(70000));
        const std::size_t from = m.pick(input.size());
        fmt::xpress_decompress(std::span<const std::uint8_t>(input).subspan(from), out);
        ++iterations;
    }
    std::printf("reader_fuzz: %llu iterations; statuses:", (unsigned long long)iterations);
    for (const auto &[code, n] : g_statuses)
        std::printf(" %u:%llu", unsigned(code), (unsigned long long)n);
    std::printf("\n");
    return 0;
}
