// Bounded mutation fuzzing of the decoder: seeds are the TraceLogging
// metadata and payloads of the real samples plus hand-built ones of every
// in-type, arrays and nested structs; mutated (bit flips, interesting
// bytes, truncation, insertion) and decoded through the whole EventDecoder,
// every value formatted as text and JSON. Sanitizer builds turn any
// out-of-bounds access into a failure; the checks below that every node
// stays inside the payload and every parent precedes its children.
// Manifest text (our demo's and the real HttpService one) is mutated too:
// a load either succeeds or gives a status and a "line N:" message, and
// what loads decodes mutated payloads within bounds. A real provider binary
// (provider_binaries.hpp) is mutated in its headers, resource directory and
// WEVT_TEMPLATE: a load succeeds or gives a status and a message.
// usage: decode_fuzz SECONDS [SEED]
#include "decode_helpers.hpp"

#include "decode/kernel_classes.hpp"
#include "decode/manifest.hpp"
#include "tmf_fuzz.hpp"
#include "decode/wevt.hpp"
#include "provider_binaries.hpp"

#include <openetw/openetw.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>

using namespace dectest;

namespace {

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "decode_fuzz: invariant broken: %s\n", what);
    std::abort();
}

struct Seed {
    std::vector<std::uint8_t> meta, traits, payload;
};

std::vector<Seed> g_seeds;

int32_t collect(void *, const etw_record *r)
{
    Seed s;
    for (std::uint32_t i = 0; i < r->extended_count; ++i) {
        const etw_extended_item &e = r->extended[i];
        if (e.ext_type == kExtTypeEventSchemaTl)
            s.meta.assign(e.data, e.data + e.data_size);
        else if (e.ext_type == kExtTypeProvTraits)
            s.traits.assign(e.data, e.data + e.data_size);
    }
    if (!s.meta.empty()) {
        s.payload.assign(r->payload, r->payload + r->payload_size);
        g_seeds.push_back(std::move(s));
    }
    return 0;
}

void sample_seeds()
{
    for (const char *name :
         {"etlparser_lxcore_kernel.etl", "pv_SelfDescribingSingleEvent.etl", "etlparser_AMSITrace.etl"}) {
        const std::string path = std::string(OPENETW_SAMPLES_DIR) + "/" + name;
        etw_consumer_options o{};
        o.struct_size = sizeof o;
        o.record = collect;
        etw_consumer *c = nullptr;
        const char *paths[] = {path.c_str()};
        if (etw_consumer_open(&c, paths, 1, &o) != ETW_OK)
            fail("a sample does not open");
        etw_consumer_process(c);
        etw_consumer_close(c);
    }
}

void synthetic_seeds()
{
    Bytes f;
    for (std::uint8_t t = 1; t <= 25; ++t) {
        if (t == 16 || t == 24)
            continue;
        f.str("f").u8(t);
    }
    f.str("arr").u8(7 | 0x40).str("fixed").u8(1 | 0x20).u16(2);
    f.str("s").u8(24 | 0x80).u8(2).str("x").u8(4 | 0x40).str("in").u8(24 | 0x40 | 0x80).u8(1).str("y").u8(19);
    f.str("chars").u8(6 | 0x40 | 0x80).u8(2).str("custom").u8(0x60).u16(2).u16(0);
    Bytes p;
    for (int i = 0; i < 400; ++i)
        p.u8(std::uint8_t(i * 7 % 5));
    g_seeds.push_back(Seed{tl_metadata("Synthetic", f), {}, p.b});
}

void mutate(std::vector<std::uint8_t> &v, std::mt19937 &rng)
{
    static const std::uint8_t interesting[] = {0x00, 0x01, 0x7F, 0x80, 0xFF, 0x18, 0x98, 0x40, 0x20, 0x60, 0x0E, 0x13};
    const int n = 1 + int(rng() % 4);
    for (int k = 0; k < n; ++k) {
        switch (rng() % 5) {
        case 0:
            if (!v.empty())
                v[rng() % v.size()] ^= std::uint8_t(1u << (rng() % 8));
            break;
        case 1:
            if (!v.empty())
                v[rng() % v.size()] = interesting[rng() % sizeof interesting];
            break;
        case 2:
            if (!v.empty())
                v.resize(rng() % v.size());
            break;
        case 3:
            v.insert(v.begin() + (v.empty() ? 0 : long(rng() % v.size())), std::uint8_t(rng()));
            break;
        default:
            if (v.size() > 2)
                v.erase(v.begin() + long(rng() % v.size()));
        }
    }
}

void check(const DecodedEvent &e)
{
    std::string text, scratch;
    for (std::size_t i = 0; i < e.nodes.size(); ++i) {
        const Node &n = e.nodes[i];
        if (n.field >= e.schema->fields.size())
            fail("node of no field");
        if (std::uint64_t(n.offset) + n.size > e.payload.size())
            fail("node outside the payload");
        if (n.parent != kNoParent && n.parent >= i)
            fail("parent after child");
        if (n.kind == NodeKind::Value) {
            const Field &f = e.schema->fields[n.field];
            text.clear();
            format_value(f, nullptr, e.payload.data() + n.offset, n.size, e.pointer_size, text);
            format_json(f, nullptr, e.payload.data() + n.offset, n.size, e.pointer_size, text, scratch);
        }
    }
}

// Decodes r; a failure must carry a status (and a message unless it is
// NOT_FOUND), and whatever was decoded must be well formed.
bool decode_checked(EventDecoder &decoder, const etw_record &r, DecodedEvent &event, const char *what)
{
    openetw::format::Problem problem;
    const bool ok = decoder.decode(r, event, problem);
    if (!ok && (problem.code == ETW_OK || (problem.code != ETW_ERROR_NOT_FOUND && problem.detail.empty())))
        fail((std::string(what) + " failure without a status and message").c_str());
    if (ok || event.schema)
        check(event);
    return ok;
}

std::vector<std::vector<std::uint8_t>> g_manifests;

void manifest_seeds()
{
    for (const char *name : {"openetw-demo.man", "Microsoft-Windows-HttpService.xml"}) {
        std::ifstream in(std::string(OPENETW_MANIFESTS_DIR) + "/" + name, std::ios::binary);
        g_manifests.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (g_manifests.back().size() < 1000)
            fail("a manifest seed is missing");
    }
}

// Loads a mutated manifest; what loads decodes mutated payloads of its events.
bool fuzz_manifest(std::mt19937 &rng)
{
    std::vector<std::uint8_t> text = g_manifests[rng() % g_manifests.size()];
    const int rounds = 1 + int(rng() % 3);
    for (int i = 0; i < rounds; ++i)
        mutate(text, rng);
    auto schemas = std::make_shared<ManifestSchemas>();
    openetw::format::Problem problem;
    if (!schemas->load(text, problem)) {
        if (problem.code == ETW_OK || problem.detail.empty())
            fail("a manifest failure without a status and message");
        if (problem.code == ETW_ERROR_INVALID_DATA && problem.detail.rfind("line ", 0) != 0 &&
            problem.detail.rfind("the document has", 0) != 0)
            fail("a manifest failure without its line");
        return false;
    }
    EventDecoder decoder;
    decoder.add_source(schemas);
    DecodedEvent event;
    static const etw_guid providers[] = {
        {0x6f70656eu, 0x6574u, 0x7764u, {0x64, 0x65, 0x6d, 0x6f, 0x00, 0x00, 0x00, 0x01}},
        {0xdd5ef90au, 0x6398u, 0x47a4u, {0xad, 0x34, 0x4d, 0xce, 0xcd, 0xef, 0x79, 0x5f}}};
    for (int k = 0; k < 16; ++k) {
        Seed s = g_seeds[rng() % g_seeds.size()];
        mutate(s.payload, rng);
        etw_record r{};
        r.struct_size = sizeof r;
        r.kind = (rng() & 1) ? ETW_RECORD_KIND_EVENT : ETW_RECORD_KIND_FULL;
        r.guid = providers[rng() & 1];
        r.event_id = std::uint16_t(rng() % 64);
        r.opcode = std::uint8_t(rng() % 64);
        r.version = std::uint16_t(rng() % 2);
        r.pointer_size = (rng() & 1) ? 8 : 4;
        r.payload = s.payload.data();
        r.payload_size = std::uint32_t(s.payload.size());
        decode_checked(decoder, r, event, "a manifest event");
    }
    return true;
}

std::vector<std::uint8_t> g_binary;
std::size_t g_crim = 0, g_crim_size = 0;

void binary_seed()
{
    const std::string path = provbin::small_binary();
    if (path.empty())
        fail("no provider binary is installed (see tests/decode/provider_binaries.hpp)");
    std::ifstream in(path, std::ios::binary);
    g_binary.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    const std::uint8_t crim[] = {'C', 'R', 'I', 'M'};
    const auto it = std::search(g_binary.begin(), g_binary.end(), crim, crim + 4);
    if (it == g_binary.end())
        fail("the provider binary has no CRIM");
    g_crim = std::size_t(it - g_binary.begin());
    g_crim_size = std::min<std::size_t>(g_binary.size() - g_crim, std::size_t(it[4] | it[5] << 8 | it[6] << 16));
}

// Mutates the headers, the resource area or the WEVT_TEMPLATE of the binary; what loads decodes.
bool fuzz_binary(std::mt19937 &rng)
{
    std::vector<std::uint8_t> image = g_binary;
    std::size_t from = 0, size = std::min<std::size_t>(image.size(), 1024); // DOS/PE headers, sections
    if (rng() % 4 != 0) {
        from = g_crim;
        size = g_crim_size;
    }
    std::vector<std::uint8_t> part(image.begin() + long(from), image.begin() + long(from + size));
    mutate(part, rng);
    image.erase(image.begin() + long(from), image.begin() + long(from + size));
    image.insert(image.begin() + long(from), part.begin(), part.end());
    SchemaEntries loaded;
    openetw::format::Problem problem;
    if (!read_provider_binary(image, loaded, problem)) {
        if (problem.code == ETW_OK || problem.detail.empty())
            fail("a binary failure without a status and message");
        return false;
    }
    auto schemas = std::make_shared<ManifestSchemas>();
    schemas->add(std::move(loaded));
    EventDecoder decoder;
    decoder.add_source(schemas);
    DecodedEvent event;
    etw_guid provider;
    std::memcpy(&provider, g_binary.data() + g_crim + 16, sizeof provider);
    for (int k = 0; k < 16; ++k) {
        Seed s = g_seeds[rng() % g_seeds.size()];
        mutate(s.payload, rng);
        etw_record r{};
        r.struct_size = sizeof r;
        r.kind = ETW_RECORD_KIND_EVENT;
        r.guid = provider;
        r.event_id = std::uint16_t((rng() & 1) ? 27000 + rng() % 8 : rng() % 8);
        r.version = std::uint16_t(rng() % 2);
        r.pointer_size = (rng() & 1) ? 8 : 4;
        r.payload = s.payload.data();
        r.payload_size = std::uint32_t(s.payload.size());
        decode_checked(decoder, r, event, "a binary event");
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    const int seconds = argc > 1 ? std::atoi(argv[1]) : 10;
    const unsigned seed = argc > 2 ? unsigned(std::strtoul(argv[2], nullptr, 10)) : std::random_device{}();
    std::printf("decode_fuzz: %d s, seed %u\n", seconds, seed);
    sample_seeds();
    synthetic_seeds();
    manifest_seeds();
    binary_seed();
    tmf_seeds();
    if (g_seeds.size() < 20)
        fail("too few seeds");
    std::mt19937 rng(seed);
    EventDecoder decoder;
    decoder.add_source(std::make_shared<KernelClasses>());
    DecodedEvent event;
    // Kernel records: every known hook, versions around the known ones.
    static const std::uint16_t hooks[] = {0x0000, 0x0301, 0x0303, 0x0327, 0x030A, 0x0501, 0x0504, 0x140A,
                                          0x010A, 0x0400, 0x0420, 0x060A, 0x060B, 0x0910, 0x020E};
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    std::uint64_t runs = 0, decoded = 0, manifests = 0, manifests_loaded = 0, binaries = 0, binaries_loaded = 0;
    std::uint64_t tmfs = 0, tmfs_loaded = 0;
    while (std::chrono::steady_clock::now() < end) {
        for (int batch = 0; batch < 256; ++batch, ++runs) {
            if (batch % 32 == 0) { // manifests cost more per run: fewer of them
                ++manifests;
                manifests_loaded += fuzz_manifest(rng);
                continue;
            }
            if (batch % 32 == 8) { // TMF text likewise
                ++tmfs;
                tmfs_loaded += fuzz_tmf(rng, mutate);
                continue;
            }
            if (batch % 32 == 16) { // binaries likewise
                ++binaries;
                binaries_loaded += fuzz_binary(rng);
                continue;
            }
            Seed s = g_seeds[rng() % g_seeds.size()];
            if (rng() % 4 == 0) { // a kernel record over a mutated payload
                mutate(s.payload, rng);
                etw_record r{};
                r.struct_size = sizeof r;
                r.kind = ETW_RECORD_KIND_SYSTEM;
                r.hook_id = hooks[rng() % (sizeof hooks / sizeof hooks[0])];
                r.version_word = std::uint16_t(1 + rng() % 4);
                r.pointer_size = (rng() & 1) ? 8 : 4;
                r.payload = s.payload.data();
                r.payload_size = std::uint32_t(s.payload.size());
                const bool ok = decode_checked(decoder, r, event, "a kernel");
                decoded += ok;
                continue;
            }
            switch (rng() % 3) {
            case 0:
                mutate(s.meta, rng);
                break;
            case 1:
                mutate(s.payload, rng);
                break;
            default:
                mutate(s.meta, rng);
                mutate(s.payload, rng);
                mutate(s.traits, rng);
            }
            etw_extended_item items[2]{};
            items[0].ext_type = kExtTypeProvTraits;
            items[0].data = s.traits.data();
            items[0].data_size = std::uint16_t(s.traits.size());
            items[1].ext_type = kExtTypeEventSchemaTl;
            items[1].data = s.meta.data();
            items[1].data_size = std::uint16_t(s.meta.size());
            etw_record r{};
            r.struct_size = sizeof r;
            r.kind = ETW_RECORD_KIND_EVENT;
            r.pointer_size = (rng() & 1) ? 8 : 4;
            r.extended = items;
            r.extended_count = 2;
            r.payload = s.payload.data();
            r.payload_size = std::uint32_t(s.payload.size());
            const bool ok = decode_checked(decoder, r, event, "a");
            decoded += ok;
        }
    }
    std::printf("decode_fuzz: %llu runs, %llu decoded cleanly; %llu manifests, %llu loaded; %llu binaries, %llu "
                "loaded; %llu TMFs, %llu loaded\n",
                static_cast<unsigned long long>(runs), static_cast<unsigned long long>(decoded),
                static_cast<unsigned long long>(manifests), static_cast<unsigned long long>(manifests_loaded),
                static_cast<unsigned long long>(binaries), static_cast<unsigned long long>(binaries_loaded),
                static_cast<unsigned long long>(tmfs), static_cast<unsigned long long>(tmfs_loaded));
    return 0;
}
