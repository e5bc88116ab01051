// etwctl's command-line words: numbers, log file modes, GUIDs, the --options
// of a command and the global options of a whole line.
#pragma once

#include <openetw/openetw.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace etwctl::detail {

// A log file mode as names joined by | ("file" when 0); unnamed bits in hex.
std::string mode_text(std::uint32_t mode);

// Unsigned numbers in C notation (0x..., 0...); no sign, no trailing text.
bool parse_u32(const std::string &s, std::uint32_t *out);
bool parse_u64(const std::string &s, std::uint64_t *out);

// Mode names (or numbers) joined by , or |; case and _/- do not matter.
bool parse_modes(const std::string &s, std::uint32_t *out);

// xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, with or without braces.
bool parse_guid(std::string s, etw_guid *g);
std::string guid_text(const etw_guid &g);

// What enable and capture-state give a provider: --level, --flags (or
// --keywords) and --all-flags.
struct LevelKeywords {
    std::uint32_t level = 0;
    std::uint64_t any = 0, all = 0;
    // True when key is one of those options; *error then names a bad value
    // (empty when it parsed).
    bool take(const std::string &key, const std::string &value, std::string *error);
};

// A command's words after its name: options as --key value or --key=value
// (flags take no value), the rest positional.
struct Args {
    std::vector<std::string> positional;
    std::vector<std::pair<std::string, std::string>> options; // value "" for flags
    std::string error;                                        // set when an option lacks its value
    bool has(const std::string &k) const;
};
Args split(const std::vector<std::string> &a, std::size_t from, const std::vector<std::string> &flags);

// Takes the global options (--json, in any position) out of a command line;
// what remains starts with the command. Both run() and the script parser use
// it, so that they always agree on which command a line names.
std::vector<std::string> strip_global(const std::vector<std::string> &args, bool *json);

} // namespace etwctl::detail
