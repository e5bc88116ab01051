// etwctl's output: a session's properties described as "key: value" lines
// or JSON, and the context of one command (its streams, failures, usage
// errors and results).
#pragma once

#include <openetw/openetw.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace etwctl::detail {

// s as a JSON string literal, quotes included.
std::string json_string(const std::string &s);

// One output object: ordered key/value pairs, printed as "key: value" lines
// or as a JSON object.
struct Fields {
    std::vector<std::pair<std::string, std::string>> kv; // value already JSON-encoded
    void str(const char *k, const std::string &v) { kv.emplace_back(k, json_string(v)); }
    void num(const char *k, std::uint64_t v) { kv.emplace_back(k, std::to_string(v)); }
    void boolean(const char *k, bool v) { kv.emplace_back(k, v ? "true" : "false"); }
    std::string json() const;
    void print_text(std::FILE *out, const char *indent = "") const;
};

// The properties p (and, given session, its host and options) as fields.
Fields describe(etw_properties *p, etw_session *session);

// One command being run: where it writes, and how it reports.
struct Ctx {
    std::FILE *out;
    std::FILE *err;
    bool json = false;
    std::string command;

    // Reports a failing call (st, with what or else the last error message); returns 1.
    int fail(etw_status st, const std::string &what = {});
    // Reports a malformed command line, with the usage text; returns 2.
    int usage(const std::string &msg);
    // Reports success with f (text: under title).
    void ok(const Fields &f, const char *title = nullptr);
};

} // namespace etwctl::detail
