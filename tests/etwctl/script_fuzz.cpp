// Bounded mutation fuzzing of etwctl's script parser (tools/etwctl/script.hpp):
// seeds of real scripts and of the defect inputs, mutated with bytes and
// the tokens that decide parsing (quotes, blanks, CR, LF, NUL, #, --json,
// script, long runs), parsed whole and line by line from a stream. Checks:
// the stream reader and the whole-text parser agree; every line is taken
// whole (no fragment of a line is ever a command); no command is a nested
// script in any form; quoting the words again gives the same words; errors
// name their line. usage: etwctl_script_fuzz SECONDS [SEED]
#include "script.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace sc = etwctl::script;

namespace {

[[noreturn]] void fail(const char *what, const std::string &input)
{
    std::fprintf(stderr, "etwctl_script_fuzz: invariant broken: %s\ninput (%zu bytes): ", what, input.size());
    for (unsigned char c : input.substr(0, 400))
        std::fprintf(stderr, c >= 0x20 && c < 0x7F ? "%c" : "\\x%02x", c);
    std::fprintf(stderr, "\n");
    std::abort();
}

// The lines of text as a reader sees them, split here independently of the parser.
std::vector<std::string> split_lines(const std::string &text)
{
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos)
            end = text.size();
        lines.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return lines;
}

// Windows' C runtime names tmpfile()'s files in the drive's root from one
// counter, so they collide with another test's under a parallel `meson test`
// (seen under wine): one named scratch file per process instead.
const std::string &scratch_path()
{
    static const std::string path = [] {
        std::random_device rd;
        const std::string unique = std::to_string(rd()) + "-" + std::to_string(rd());
        return (std::filesystem::temp_directory_path() / ("etwctl-script-fuzz-" + unique + ".txt")).string();
    }();
    return path;
}

std::vector<sc::Line> parse_stream(const std::string &text, std::size_t max_line)
{
    std::FILE *f = std::fopen(scratch_path().c_str(), "w+b");
    if (!f)
        fail("opening the scratch file", text);
    std::fwrite(text.data(), 1, text.size(), f);
    std::rewind(f);
    std::vector<sc::Line> lines;
    std::string line;
    unsigned number = 0;
    while (sc::read_line(f, line, max_line)) {
        sc::Line l;
        if (sc::parse_line(line, ++number, l, max_line)) {
            lines.push_back(l);
            if (l.status == 2)
                break;
        }
    }
    std::fclose(f);
    return lines;
}

bool same(const sc::Line &a, const sc::Line &b)
{
    return a.number == b.number && a.text == b.text && a.words == b.words && a.status == b.status && a.error == b.error;
}

void check(const std::string &text, std::size_t max_line, bool stream)
{
    const std::vector<sc::Line> lines = sc::parse(text, max_line);
    const std::vector<std::string> raw = split_lines(text);
    unsigned last = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const sc::Line &l = lines[i];
        if (l.number <= last || l.number > raw.size())
            fail("line numbers out of order or beyond the text", text);
        last = l.number;
        std::string whole = raw[l.number - 1];
        if (l.status == 2 && i + 1 != lines.size())
            fail("lines parsed after a refused line", text);
        if (l.status != 0 && l.error.rfind("line " + std::to_string(l.number) + ": ", 0) != 0)
            fail("an error that does not name its line", text);
        if (whole.size() > max_line) {
            if (l.status != 2 || !l.text.empty() || !l.words.empty())
                fail("a too-long line not refused whole", text);
            continue;
        }
        while (!whole.empty() && (whole.back() == '\r'))
            whole.pop_back();
        if (l.status == 2 && whole.find('\0') != std::string::npos)
            continue;
        if (l.text != whole)
            fail("a line taken in part", text);
        if (l.status != 0) {
            if (!l.words.empty())
                fail("a refused line with words", text);
            continue;
        }
        if (l.words.empty() || (!l.words[0].empty() && l.words[0][0] == '#'))
            fail("an empty or comment command", text);
        std::size_t w = 0;
        while (w < l.words.size() && l.words[w] == "--json")
            ++w;
        if (w < l.words.size() && l.words[w] == "script")
            fail("a nested script accepted", text);
        std::string quoted;
        for (const std::string &word : l.words) {
            if (word.find_first_of(std::string("\"\n\0", 3)) != std::string::npos)
                fail("a word holding a quote, LF or NUL", text);
            quoted += (quoted.empty() ? "\"" : " \"") + word + "\"";
        }
        sc::Line again;
        if (!sc::parse_line(quoted, 1, again, max_line + 3 * l.words.size() + 16) || again.status != 0 ||
            again.words != l.words)
            fail("quoting the words again changes them", text);
    }
    // Nothing but blank and comment lines may be skipped before a refusal or the end.
    std::size_t expected = 0;
    for (std::size_t n = 0; n < raw.size(); ++n) {
        std::string r = raw[n];
        if (r.size() > max_line || r.find('\0') != std::string::npos) {
            ++expected;
            break;
        }
        while (!r.empty() && r.back() == '\r')
            r.pop_back();
        bool balanced = true;
        const std::vector<std::string> w = sc::words(r, &balanced);
        if (!w.empty() && !(w[0].size() && w[0][0] == '#')) {
            ++expected;
            std::size_t k = 0;
            while (k < w.size() && w[k] == "--json")
                ++k;
            if (balanced && k < w.size() && w[k] == "script")
                break; // a nested script is refused: the parse stops here
        }
    }
    if (lines.size() != expected)
        fail("lines lost or invented", text);
    if (stream) {
        const std::vector<sc::Line> streamed = parse_stream(text, max_line);
        if (streamed.size() != lines.size())
            fail("the stream reader and the parser disagree on the count", text);
        for (std::size_t i = 0; i < lines.size(); ++i)
            if (!same(streamed[i], lines[i]))
                fail("the stream reader and the parser disagree", text);
    }
}

const char *const kTokens[] = {"script",
                               "--json",
                               "\"",
                               "#",
                               "\n",
                               "\r",
                               "\r\n",
                               " ",
                               "\t",
                               "list",
                               "start",
                               "stop",
                               "--keep-going",
                               "-",
                               "\"script\"",
                               "\"\"",
                               "--json script ",
                               "\n--json script x\n",
                               "sleep 0",
                               "query \"a b\""};

class Mutator {
public:
    explicit Mutator(std::uint64_t seed) : rng_(seed) {}
    std::size_t pick(std::size_t n) { return n ? std::size_t(rng_() % n) : 0; }

    void mutate(std::string &s, const std::vector<std::string> &seeds)
    {
        const int rounds = 1 + int(pick(8));
        for (int i = 0; i < rounds; ++i) {
            const std::size_t at = pick(s.size() + 1);
            switch (pick(9)) {
            case 0:
                if (!s.empty())
                    s[pick(s.size())] ^= char(1u << pick(8));
                break;
            case 1:
                if (!s.empty())
                    s[pick(s.size())] = char(rng_());
                break;
            case 2:
                s.insert(at, 1, '\0');
                break;
            case 3:
            case 4:
                s.insert(at, kTokens[pick(std::size(kTokens))]);
                break;
            case 5:
                s.insert(at, pick(20000), pick(2) ? ' ' : 'x');
                break; // long lines, across the caps below (8,191 among them)
            case 6:
                s.erase(at, pick(64));
                break;
            case 7: {
                const std::string &o = seeds[pick(seeds.size())];
                const std::size_t from = pick(o.size());
                s.insert(at, o.substr(from, pick(200)));
                break;
            }
            default:
                if (!s.empty())
                    s.resize(pick(s.size()));
                break;
            }
        }
        if (s.size() > (std::size_t(1) << 18))
            s.resize(std::size_t(1) << 18);
    }

private:
    std::mt19937_64 rng_;
};

std::vector<std::string> seeds()
{
    return {
        "# a flight recorder\nstart \"rec ünïcode\" --mode buffering,no-per-processor --min-buffers 4\n"
        "query \"rec ünïcode\"\nflush rec --file /tmp/x.etl\nstop rec\n",
        "--json script defects/script_nest_bypass.txt\n",
        "list\nscript --json self\n",
        "query nosuch" + std::string(8200, ' ') + "start injected --real-time\nlist\n",
        "sleep 10\r\nenable s CAFE0001-0001-0002-0102-030405060708 --level 3\r\n\r\n  # note\n\tlist",
        "stop \"unbalanced\nlist\n\"\"\n",
        "",
    };
}

} // namespace

int main(int argc, char **argv)
{
    const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
    const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10)
                                        : std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    const std::vector<std::string> base = seeds();
    std::printf("etwctl_script_fuzz: %zu seeds, %.0f s, seed %llu\n", base.size(), seconds, (unsigned long long)seed);
    std::fflush(stdout);
    const std::size_t caps[] = {8, 64, 8191, sc::kMaxLineBytes};
    for (const std::string &s : base)
        for (std::size_t cap : caps)
            check(s, cap, true);
    Mutator m(seed);
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t iterations = 0, refused = 0, commands = 0;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        std::string input = base[m.pick(base.size())];
        m.mutate(input, base);
        const std::size_t cap = caps[m.pick(std::size(caps))];
        check(input, cap, iterations % 4 == 0); // the stream costs a temporary file: every fourth input
        for (const sc::Line &l : sc::parse(input, cap)) {
            refused += l.status == 2;
            commands += l.status == 0;
        }
        ++iterations;
    }
    std::printf("etwctl_script_fuzz: %llu iterations, %llu commands, %llu refusals\n", (unsigned long long)iterations,
                (unsigned long long)commands, (unsigned long long)refused);
    std::remove(scratch_path().c_str());
    return 0;
}
