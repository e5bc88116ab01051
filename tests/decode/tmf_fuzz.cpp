// The TMF part of decode_fuzz: mutated TMF text (our demo's and the CldFlt
// one) is parsed; failures must carry a status and name their line; what
// loads decodes random argument bytes and formats its messages within bounds.
#include "tmf_fuzz.hpp"

#include "decode/payload.hpp"
#include "decode/wpp.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

using namespace openetw::decode;

namespace {

std::vector<std::vector<std::uint8_t>> g_tmfs;

[[noreturn]] void fail(const char *what)
{
    std::fprintf(stderr, "decode_fuzz (tmf): invariant broken: %s\n", what);
    std::abort();
}

} // namespace

void tmf_seeds()
{
    for (const char *name : {"demo.tmf", "cldflt_43.tmf"}) {
        std::ifstream in(std::string(OPENETW_TMF_DIR) + "/" + name, std::ios::binary);
        g_tmfs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (g_tmfs.back().size() < 200)
            fail("a TMF seed is missing");
    }
}

bool fuzz_tmf(std::mt19937 &rng, void (*mutate)(std::vector<std::uint8_t> &, std::mt19937 &))
{
    std::vector<std::uint8_t> text = g_tmfs[rng() % g_tmfs.size()];
    const int rounds = 1 + int(rng() % 3);
    for (int i = 0; i < rounds; ++i)
        mutate(text, rng);
    TmfMessages messages;
    openetw::format::Problem problem;
    if (!parse_tmf(text, messages, problem)) {
        if (problem.code == ETW_OK || problem.detail.empty())
            fail("a TMF failure without a status and message");
        if (problem.code == ETW_ERROR_INVALID_DATA && problem.detail.rfind("line ", 0) != 0)
            fail("a TMF failure without its line");
        return false;
    }
    DecodedEvent event;
    std::string out;
    for (const auto &[key, m] : messages) {
        if (m->numbers.size() != m->schema.fields.size())
            fail("TMF arguments and fields differ");
        std::vector<std::uint8_t> args(rng() % 96);
        for (auto &b : args)
            b = std::uint8_t(rng() % 4 ? rng() : 0);
        event.schema = &m->schema;
        event.payload = args;
        event.pointer_size = (rng() & 1) ? 8 : 4;
        if (!decode_payload(m->schema, event.payload, event.pointer_size, event.nodes, problem, &event.consumed)) {
            if (problem.code == ETW_OK || problem.detail.empty())
                fail("a TMF argument failure without a status and message");
            continue;
        }
        if (event.nodes.size() != m->schema.fields.size())
            fail("TMF arguments are not one node each");
        WppContext context;
        context.timestamp = rng();
        out.clear();
        format_wpp_message(*m, event, context, out);
        if (out.size() > m->format.size() * 600 + 4096 + args.size() * 8)
            fail("a message text out of bounds");
    }
    return true;
}
