// etwctl scripts. See script.hpp.
#include "script.hpp"

#include "etwctl.hpp"
#include "options.hpp"

#include <cerrno>
#include <cstring>

namespace etwctl::script {

std::vector<std::string> words(std::string_view text, bool *balanced)
{
    std::vector<std::string> w;
    std::string cur;
    bool quoted = false, have = false;
    for (char ch : text) {
        if (ch == '"') {
            quoted = !quoted;
            have = true;
        } else if (!quoted && (ch == ' ' || ch == '\t' || ch == '\r')) {
            if (have)
                w.push_back(cur);
            cur.clear();
            have = false;
        } else {
            cur += ch;
            have = true;
        }
    }
    if (have)
        w.push_back(cur);
    *balanced = !quoted;
    return w;
}

bool parse_line(std::string_view text, unsigned number, Line &out, std::size_t max_line)
{
    const std::string where = "line " + std::to_string(number) + ": ";
    Line l;
    l.number = number;
    if (text.size() > max_line) {
        // Checked first: a reader stops at max_line + 1 bytes, so nothing
        // after them may decide anything (and no tail becomes a command).
        l.status = 2;
        l.error = where + "longer than " + std::to_string(max_line) + " bytes: refused (no part of it runs)";
        out = std::move(l);
        return true;
    }
    while (!text.empty() && (text.back() == '\r' || text.back() == '\n'))
        text.remove_suffix(1);
    if (text.find('\0') != std::string_view::npos) {
        // The command would act on the words cut at the NUL (C strings).
        l.status = 2;
        l.error = where + "holds a NUL byte (not a text script?): refused";
        out = std::move(l);
        return true;
    }
    bool balanced = true;
    std::vector<std::string> w = words(text, &balanced);
    if (w.empty() || w[0][0] == '#')
        return false;
    l.text = std::string(text);
    if (!balanced) {
        l.status = 1;
        l.error = where + "unbalanced quote";
    } else {
        // The command as run() sees it: global options (--json) may come
        // anywhere, so ask the function run() uses rather than look at w[0].
        bool json = false;
        const std::vector<std::string> command = detail::strip_global(w, &json);
        if (!command.empty() && command[0] == "script") {
            l.status = 2;
            l.error = where + "scripts do not nest (a script cannot run `script`)";
        } else {
            l.words = std::move(w);
        }
    }
    out = std::move(l);
    return true;
}

std::vector<Line> parse(std::string_view text, std::size_t max_line)
{
    std::vector<Line> lines;
    unsigned number = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        ++number;
        Line l;
        if (parse_line(text.substr(at, end - at), number, l, max_line)) {
            lines.push_back(std::move(l));
            if (lines.back().status == 2)
                break;
        }
        at = end + 1;
    }
    return lines;
}

bool read_line(std::FILE *in, std::string &line, std::size_t max)
{
    line.clear();
    int ch = 0;
    bool any = false;
    while ((ch = std::getc(in)) != EOF) {
        any = true;
        if (ch == '\n')
            return true;
        line += char(ch);
        if (line.size() > max)
            return true;
    }
    return any;
}

int cmd_script(detail::Ctx &c, const std::vector<std::string> &a)
{
    detail::Args p = detail::split(a, 1, {"keep-going"});
    if (p.positional.size() != 1)
        return c.usage("script takes one file name (or - for standard input)");
    std::FILE *in = p.positional[0] == "-" ? stdin : std::fopen(p.positional[0].c_str(), "r");
    if (!in)
        return c.fail(ETW_ERROR_FILE_NOT_FOUND, "cannot open \"" + p.positional[0] + "\": " + std::strerror(errno));
    const int r = run_script(in, c.out, c.err, c.json, p.has("keep-going"));
    if (in != stdin)
        std::fclose(in);
    return r;
}

} // namespace etwctl::script

namespace etwctl {

int run_script(std::FILE *in, std::FILE *out, std::FILE *err, bool json, bool keep_going)
{
    int result = 0;
    unsigned number = 0;
    std::string text;
    while (script::read_line(in, text)) {
        script::Line line;
        if (!script::parse_line(text, ++number, line))
            continue;
        if (line.status == 2)
            return std::fprintf(err, "etwctl script: %s\n", line.error.c_str()), 2;
        if (line.status != 0) {
            std::fprintf(err, "etwctl script: %s\n", line.error.c_str());
            result = line.status;
        } else {
            if (json)
                line.words.insert(line.words.begin(), "--json");
            else
                std::fprintf(out, "> %s\n", line.text.c_str());
            const int r = run(line.words, out, err);
            if (r != 0) {
                std::fprintf(err, "etwctl script: line %u failed\n", number);
                result = r;
            }
        }
        if (result != 0 && !keep_going)
            return result;
    }
    if (std::ferror(in)) {
        // A directory, say, opens but cannot be read: say so rather than
        // report an empty script that succeeded.
        std::fprintf(err, "etwctl script: cannot read the script after line %u: %s\n", number, std::strerror(errno));
        return 1;
    }
    return result;
}

} // namespace etwctl
