// The OTLP headers rules (src/otlp/headers.hpp): the environment's
// baggage-like lists, percent-decoded; the logs variable instead of the
// general one; a headers file replacing names; every malformed entry
// refused with its place named and its value never shown.
#include "otlp/headers.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace openetw::otlp;

namespace {

struct Env {
    std::map<std::string, std::string> vars;
    const char *operator()(const char *name) const
    {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    }
};

Headers list(const std::string &text)
{
    Headers h;
    std::string error;
    EXPECT_TRUE(parse_header_list(text, "VAR", &h, error)) << error;
    return h;
}

std::string refused(const std::string &text)
{
    Headers h;
    std::string error;
    EXPECT_FALSE(parse_header_list(text, "VAR", &h, error)) << text;
    return error;
}

} // namespace

TEST(OtlpHeaders, AListIsKeyValuePairsTrimmedAndPercentDecoded)
{
    EXPECT_EQ(list("api-key=abc123"), (Headers{{"api-key", "abc123"}}));
    EXPECT_EQ(list(" a = 1 ,\tb=2 "), (Headers{{"a", "1"}, {"b", "2"}}));
    EXPECT_EQ(list("Authorization=Basic%20dXNlcjpwdw%3D%3D"), (Headers{{"Authorization", "Basic dXNlcjpwdw=="}}));
    EXPECT_EQ(list("k=a+b"), (Headers{{"k", "a+b"}})) << "'+' is a plus, not a space";
    EXPECT_EQ(list("k=x=y"), (Headers{{"k", "x=y"}})) << "the first '=' ends the key";
    EXPECT_EQ(list("k="), (Headers{{"k", ""}}));
    EXPECT_EQ(list(""), Headers{});
    EXPECT_EQ(list("  "), Headers{});
}

TEST(OtlpHeaders, EachMalformedEntryIsNamedWithoutItsValue)
{
    EXPECT_EQ(refused("a=1,secretvalue"), "VAR: entry 2 is not key=value");
    EXPECT_EQ(refused("a=1,,b=2"), "VAR: entry 2 is not key=value");
    EXPECT_EQ(refused("=s3cret"), "VAR: entry 1 has no name");
    EXPECT_NE(refused("bad key=s3cret").find("not an HTTP token"), std::string::npos);
    const std::string bad_escape = refused("k=s3cret%zz");
    EXPECT_EQ(bad_escape, "VAR: entry 1 (k) has a '%' in its value that is not %XX (two hex digits)");
    EXPECT_EQ(refused("k=s3cret%2"), bad_escape);
    EXPECT_EQ(refused("k=s3cret%0D%0AX-Evil: 1"), "VAR: entry 1 (k) has a control character in its value")
        << "CR LF would split the request";
    EXPECT_EQ(refused("Content-Type=text/plain"),
              "VAR: entry 1 (Content-Type) names a header the exporter sets itself");
    for (const char *text : {"a=1,secretvalue", "k=s3cret%zz", "k=s3cret%0D%0A"})
        EXPECT_EQ(refused(text).find("s3cret"), std::string::npos) << text;
}

TEST(OtlpHeaders, TheLogsVariableIsTakenInsteadOfTheGeneralOne)
{
    Env env;
    Headers h;
    std::string error;
    env.vars[kHeadersVariable] = "a=general,b=2";
    ASSERT_TRUE(resolve_headers(env, "", "", &h, error)) << error;
    EXPECT_EQ(h, (Headers{{"a", "general"}, {"b", "2"}}));
    env.vars[kLogsHeadersVariable] = "a=logs";
    ASSERT_TRUE(resolve_headers(env, "", "", &h, error)) << error;
    EXPECT_EQ(h, (Headers{{"a", "logs"}}));
    env.vars[kLogsHeadersVariable] = "";
    ASSERT_TRUE(resolve_headers(env, "", "", &h, error)) << error;
    EXPECT_EQ(h, Headers{}) << "set, even empty, it is the setting";
    env.vars[kLogsHeadersVariable] = "x";
    EXPECT_FALSE(resolve_headers(env, "", "", &h, error));
    EXPECT_EQ(error, "OTEL_EXPORTER_OTLP_LOGS_HEADERS: entry 1 is not key=value");
}

TEST(OtlpHeaders, AHeadersFileAddsAndReplacesByNameCaseInsensitively)
{
    Env env;
    env.vars[kHeadersVariable] = "api-key=from-env,tenant=t1";
    Headers h;
    std::string error;
    ASSERT_TRUE(resolve_headers(env, "h.txt", "# keys\n\nAPI-Key: from file%20kept\r\nX-Scope : a b \n", &h, error))
        << error;
    EXPECT_EQ(h, (Headers{{"tenant", "t1"}, {"API-Key", "from file%20kept"}, {"X-Scope", "a b"}}));
    EXPECT_FALSE(resolve_headers(env, "h.txt", "ok: 1\nno colon here\n", &h, error));
    EXPECT_EQ(error, "h.txt:2 is not \"Name: value\"");
    EXPECT_FALSE(resolve_headers(env, "h.txt", ": s3cret\n", &h, error));
    EXPECT_EQ(error, "h.txt:1 has no name");
    EXPECT_FALSE(resolve_headers(env, "h.txt", "Content-Length: 5\n", &h, error));
    EXPECT_EQ(error, "h.txt:1 (Content-Length) names a header the exporter sets itself");
}
