// etwctl scripts: one command per line, run in one process. The parser is a
// pure function over text (fuzzed by tests/etwctl/script_fuzz.cpp); the
// runner (etwctl::run_script) reads a stream line by line with the same
// rules, so that commands run as their lines arrive.
#pragma once

#include "output.hpp"

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace etwctl::script {

// The longest line a script may hold, in bytes without its end of line. A
// longer line is refused as a whole: no part of it ever runs as a command.
inline constexpr std::size_t kMaxLineBytes = std::size_t(1) << 20;

// One line of a script that is neither blank nor a comment.
struct Line {
    unsigned number = 0;            // 1-based
    std::string text;               // the line without its end of line (empty when too long)
    std::vector<std::string> words; // the command's words, when status is 0
    int status = 0;                 // 0 a command; 1 the line fails (unbalanced quote);
                                    // 2 the script is refused at this line (too long, NUL byte, nested script)
    std::string error;              // why, when status is not 0: "line N: ..."
};

// Splits text into words: blanks (space, tab, CR) separate them, "double
// quotes" group (and are removed). *balanced is false when a quote is open.
std::vector<std::string> words(std::string_view text, bool *balanced);

// Parses one line (without its \n; trailing CRs are dropped) numbered
// number into out. Returns false (out untouched) for a blank line or a
// comment (first word starting with #).
bool parse_line(std::string_view text, unsigned number, Line &out, std::size_t max_line = kMaxLineBytes);

// Parses a whole script: lines end at \n (the last may lack it). Stops after
// the first line of status 2, as the runner does.
std::vector<Line> parse(std::string_view text, std::size_t max_line = kMaxLineBytes);

// Reads the next line of in (without its \n) into line. Stops reading once
// the line is longer than max (line then holds max + 1 bytes, which
// parse_line refuses). Returns false at the end of the stream (or on a read
// error: check std::ferror) when no byte was read.
bool read_line(std::FILE *in, std::string &line, std::size_t max = kMaxLineBytes);

// `script FILE|- [--keep-going]`: a = the command line, "script" first.
int cmd_script(detail::Ctx &c, const std::vector<std::string> &a);

} // namespace etwctl::script
