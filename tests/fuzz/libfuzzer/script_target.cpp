// libFuzzer target: any bytes as an etwctl script for the parser
// (tools/etwctl/script.hpp). The rules it keeps: a refused line stops the
// parse and names its line; no accepted command holds a NUL byte or is a
// nested `script`; every accepted line's words split again the same way
// from its text; line numbers only grow.
#include "script.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    // A small line limit, so that the too-long rule is reached too.
    const auto lines = etwctl::script::parse(text, 256);
    unsigned last = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const etwctl::script::Line &l = lines[i];
        if (l.number <= last)
            std::abort();
        last = l.number;
        if (l.status == 2 && i + 1 != lines.size())
            std::abort(); // the parse goes on after a refused line
        if (l.status != 0) {
            if (l.error.rfind("line " + std::to_string(l.number) + ": ", 0) != 0)
                std::abort();
            continue;
        }
        if (l.text.find('\0') != std::string::npos || l.text.size() > 256)
            std::abort();
        for (const std::string &w : l.words) {
            if (w == "--json")
                continue; // a global option, wherever it stands
            if (w == "script")
                std::abort(); // a nested script accepted
            break;
        }
        bool balanced = false;
        if (etwctl::script::words(l.text, &balanced) != l.words || !balanced)
            std::abort();
    }
    return 0;
}
