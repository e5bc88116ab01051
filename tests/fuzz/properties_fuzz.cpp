// Mutation fuzzer for etw_properties_import. Seeds are valid blocks of every
// mode and layout; each round mutates one (bit flips, byte values, offsets
// and sizes set to edge values, truncation, extension) and imports it. Any
// accepted block must export and re-import to the same bytes. A sanitizer
// build turns any out-of-bounds access into a failure. Bounded by time.
//
// usage: properties_fuzz SECONDS [SEED]
#include <openetw/openetw.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes export_of(const etw_properties *p)
{
    size_t size = 0;
    etw_properties_export(nullptr, 0, &size, p);
    Bytes b(size);
    if (etw_properties_export(b.data(), b.size(), &size, p) != ETW_OK)
        std::abort();
    return b;
}

Bytes seed(const char *name, const char *file, std::uint32_t mode, std::uint32_t max_size)
{
    etw_properties *p = nullptr;
    etw_properties_create(&p, name);
    etw_properties_set_log_file_name(p, file);
    etw_properties_set_log_file_mode(p, mode);
    etw_properties_set_maximum_file_size(p, max_size);
    Bytes b = export_of(p);
    etw_properties_destroy(p);
    return b;
}

std::vector<Bytes> seeds()
{
    std::vector<Bytes> s = {
        seed("S", nullptr, ETW_REAL_TIME_MODE, 0),
        seed("Seq", "/tmp/a.etl", ETW_FILE_MODE_SEQUENTIAL, 1),
        seed("Circ \xCE\xA9", "/tmp/c.etl", ETW_FILE_MODE_CIRCULAR, 4),
        seed("New", "/tmp/n%d.etl", ETW_FILE_MODE_NEWFILE, 2),
        seed("Priv", "/tmp/p.etl", ETW_PRIVATE_LOGGER_MODE | ETW_PRIVATE_IN_PROC, 0),
        seed("Buf", nullptr, ETW_BUFFERING_MODE, 0),
    };
    // A Windows-style block with fixed room for both names.
    Bytes w(120 + 512, 0);
    etw_event_trace_properties r{};
    r.Wnode.BufferSize = static_cast<std::uint32_t>(w.size());
    r.Wnode.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    r.BufferSize = 64;
    r.LogFileMode = ETW_FILE_MODE_SEQUENTIAL;
    r.LoggerNameOffset = 120;
    r.LogFileNameOffset = 120 + 256;
    std::memcpy(w.data(), &r, sizeof r);
    w[120] = 'W';
    w[120 + 256] = 'f';
    s.push_back(w);
    return s;
}

const std::uint32_t kEdges[] = {0,      1,      2,       3,          118,         119,         120,
                                121,    122,    0x7F,    0x80,       0xFF,        0x100,       0x7FFF,
                                0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
// Offsets of Wnode.BufferSize, Flags, ClientContext, BufferSize, MaximumFileSize, LogFileMode,
// EnableFlags and the two name offsets: the fields worth hitting with edge values.
const std::size_t kFields[] = {0x00,
                               0x2C,
                               0x28,
                               0x30,
                               0x3C,
                               0x40,
                               0x48,
                               sizeof(etw_event_trace_properties) - (UINTPTR_MAX == 0xFFFFFFFFu ? 12 : 8),
                               sizeof(etw_event_trace_properties) - (UINTPTR_MAX == 0xFFFFFFFFu ? 8 : 4)};

void put32(Bytes &b, std::size_t at, std::uint32_t v)
{
    if (at + 4 <= b.size())
        std::memcpy(b.data() + at, &v, 4);
}

void mutate(Bytes &b, std::mt19937_64 &rng)
{
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % (n ? n : 1)); };
    switch (pick(7)) {
    case 0: // flip bits
        for (std::size_t i = 0, n = 1 + pick(4); i < n && !b.empty(); ++i)
            b[pick(b.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
        break;
    case 1: // random byte
        if (!b.empty())
            b[pick(b.size())] = static_cast<std::uint8_t>(rng());
        break;
    case 2: // edge value in a known field
        put32(b, kFields[pick(std::size(kFields))], kEdges[pick(std::size(kEdges))]);
        break;
    case 3: // a name offset pointing somewhere in or near the block
        put32(b, kFields[7 + pick(2)], static_cast<std::uint32_t>(pick(b.size() + 16)));
        break;
    case 4: // truncate
        b.resize(pick(b.size() + 1));
        break;
    case 5: // extend with garbage or zeros
        for (std::size_t i = 0, n = 1 + pick(64); i < n; ++i)
            b.push_back(pick(2) ? 0 : static_cast<std::uint8_t>(rng()));
        break;
    default: // unpaired surrogate or stray character inside the names area
        if (b.size() > 122) {
            std::size_t at = 120 + 2 * pick((b.size() - 120) / 2);
            std::uint16_t unit = pick(2) ? 0xD800 : static_cast<std::uint16_t>(rng());
            if (at + 2 <= b.size())
                std::memcpy(b.data() + at, &unit, 2);
        }
        break;
    }
}

const std::set<etw_status> kDocumented = {ETW_OK,
                                          ETW_ERROR_BAD_LENGTH,
                                          ETW_ERROR_INVALID_PARAMETER,
                                          ETW_ERROR_INVALID_NAME,
                                          ETW_ERROR_NO_UNICODE_TRANSLATION,
                                          ETW_ERROR_BAD_PATHNAME};

} // namespace

int main(int argc, char **argv)
{
    const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
    const std::uint64_t rng_seed =
        argc > 2 ? std::strtoull(argv[2], nullptr, 0) : static_cast<std::uint64_t>(std::random_device{}());
    std::printf("properties_fuzz: %.1f s, seed %llu\n", seconds, static_cast<unsigned long long>(rng_seed));
    std::mt19937_64 rng(rng_seed);
    const auto corpus = seeds();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    unsigned long rounds = 0, accepted = 0, failures = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        for (int batch = 0; batch < 256; ++batch, ++rounds) {
            Bytes b = corpus[rng() % corpus.size()];
            for (std::size_t k = 0, n = 1 + rng() % 4; k < n; ++k)
                mutate(b, rng);
            etw_properties *p = nullptr;
            const etw_status s = etw_properties_import(&p, b.data(), b.size());
            if (!kDocumented.count(s) || (s == ETW_OK) != (p != nullptr) || etw_last_error_status() != s) {
                std::printf("round %lu: undocumented outcome %u (%s)\n", rounds, s, etw_last_error_message());
                ++failures;
            }
            if (s == ETW_OK) {
                ++accepted;
                const Bytes once = export_of(p);
                etw_properties *q = nullptr;
                if (etw_properties_import(&q, once.data(), once.size()) != ETW_OK || export_of(q) != once) {
                    std::printf("round %lu: export of an accepted block does not round-trip (%s)\n", rounds,
                                etw_last_error_message());
                    ++failures;
                }
                etw_properties_destroy(q);
            }
            etw_properties_destroy(p);
        }
    }
    std::printf("%lu rounds, %lu accepted\n%lu passed, %lu failed\n", rounds, accepted, rounds - failures, failures);
    return failures == 0 ? 0 : 1;
}
