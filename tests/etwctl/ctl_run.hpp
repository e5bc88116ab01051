// Runs etwctl's commands and scripts in this process and collects what they
// print (tests/etwctl and tests/realtime share it).
#pragma once

#include "etwctl.hpp"

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace ctltest {

struct CtlRun {
    int code = -1;
    std::string out, err;
};

inline std::string slurp(std::FILE *f)
{
    std::rewind(f);
    std::string s;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        s.append(buf, n);
    std::fclose(f);
    return s;
}

inline CtlRun ctl(std::vector<std::string> args)
{
    std::FILE *out = std::tmpfile(), *err = std::tmpfile();
    CtlRun r;
    r.code = etwctl::run(args, out, err);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

inline CtlRun script(const std::string &text, bool json = false, bool keep_going = false)
{
    std::FILE *in = std::tmpfile();
    std::fwrite(text.data(), 1, text.size(), in); // text may hold NUL bytes
    std::rewind(in);
    std::FILE *out = std::tmpfile(), *err = std::tmpfile();
    CtlRun r;
    r.code = etwctl::run_script(in, out, err, json, keep_going);
    std::fclose(in);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

inline bool has(const std::string &hay, const std::string &needle) { return hay.find(needle) != std::string::npos; }

inline std::string name(const char *stem) { return std::string(stem) + "-" + std::to_string(getpid()); }

} // namespace ctltest
