// nats:// URLs: what they accept, and the status and sentence of each refusal.
#include "export/export_url.hpp"

#include <gtest/gtest.h>

using namespace openetw;
using namespace openetw::exporter;

namespace {

Status parse(const std::string &text, ExportUrl *u = nullptr)
{
    ExportUrl local;
    return parse_export_url(text, u ? u : &local);
}

void expect_refused(const std::string &text, etw_status code, const std::string &fragment)
{
    const Status st = parse(text);
    EXPECT_EQ(st.code, code) << text << ": " << st.message;
    EXPECT_NE(st.message.find(fragment), std::string::npos) << text << ": " << st.message;
}

} // namespace

TEST(ExportUrl, HostPortAndStreamAreRead)
{
    ExportUrl u;
    ASSERT_TRUE(parse("nats://127.0.0.1:14222/ETW_fleet-1", &u));
    EXPECT_EQ(u.host, "127.0.0.1");
    EXPECT_EQ(u.port, 14222);
    EXPECT_EQ(u.stream, "ETW_fleet-1");
    EXPECT_EQ(u.since_unix_ns, 0);
    EXPECT_EQ(u.server(), "nats://127.0.0.1:14222");
    EXPECT_EQ(u.text(), "nats://127.0.0.1:14222/ETW_fleet-1");
}

TEST(ExportUrl, ThePortDefaultsTo4222AndIpv6HostsKeepTheirBrackets)
{
    ExportUrl u;
    ASSERT_TRUE(parse("nats://collector.example/S", &u));
    EXPECT_EQ(u.port, 4222);
    ASSERT_TRUE(parse("nats://[::1]:5000/S", &u));
    EXPECT_EQ(u.host, "[::1]");
    EXPECT_EQ(u.port, 5000);
    EXPECT_EQ(u.server(), "nats://[::1]:5000");
}

TEST(ExportUrl, SinceIsAUtcTimeInNanosecondsSince1970)
{
    ExportUrl u;
    ASSERT_TRUE(parse("nats://h:1/S?since=2026-11-29T04:00:00Z", &u));
    EXPECT_EQ(u.since_unix_ns, 1795924800ll * 1000000000ll);
    ASSERT_TRUE(parse("nats://h:1/S?since=1970-01-01T00:00:01Z", &u));
    EXPECT_EQ(u.since_unix_ns, 1000000000ll);
}

TEST(ExportUrl, FollowIsAQueryOfItsOwnOrWithSince)
{
    ExportUrl u;
    ASSERT_TRUE(parse("nats://h:1/S", &u));
    EXPECT_FALSE(u.follow);
    ASSERT_TRUE(parse("nats://h:1/S?follow=1", &u));
    EXPECT_TRUE(u.follow);
    EXPECT_EQ(u.since_unix_ns, 0);
    ASSERT_TRUE(parse("nats://h:1/S?since=1970-01-01T00:00:01Z&follow=1", &u));
    EXPECT_TRUE(u.follow);
    EXPECT_EQ(u.since_unix_ns, 1000000000ll);
    ASSERT_TRUE(parse("nats://h:1/S?follow=0&since=1970-01-01T00:00:01Z", &u));
    EXPECT_FALSE(u.follow);
    EXPECT_EQ(u.since_unix_ns, 1000000000ll);
}

TEST(ExportUrl, CredentialsInTheUrlAreRefusedWithoutEchoingThem)
{
    const Status st = parse("nats://alice:s3cret@127.0.0.1:4222/S");
    EXPECT_EQ(st.code, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(st.message.find("credentials file"), std::string::npos) << st.message;
    EXPECT_EQ(st.message.find("s3cret"), std::string::npos) << st.message;
}

TEST(ExportUrl, EachMalformedPartHasItsStatusAndSentence)
{
    expect_refused("http://127.0.0.1:4222/S", ETW_ERROR_INVALID_PARAMETER, "is not a NATS URL");
    expect_refused("nats://:4222/S", ETW_ERROR_INVALID_PARAMETER, "names no host");
    expect_refused("nats://h:/S", ETW_ERROR_INVALID_PARAMETER, "the port after ':' is empty");
    expect_refused("nats://h:0/S", ETW_ERROR_INVALID_PARAMETER, "is not a number in 1..65535");
    expect_refused("nats://h:65536/S", ETW_ERROR_INVALID_PARAMETER, "is not a number in 1..65535");
    expect_refused("nats://h:12x/S", ETW_ERROR_INVALID_PARAMETER, "is not a number in 1..65535");
    expect_refused("nats://[::1/S", ETW_ERROR_INVALID_PARAMETER, "does not close");
    expect_refused("nats://h:4222", ETW_ERROR_INVALID_PARAMETER, "names no stream");
    expect_refused("nats://h:4222/", ETW_ERROR_INVALID_NAME, "names no stream");
    expect_refused("nats://h:4222/a.b", ETW_ERROR_INVALID_NAME, "may hold only letters");
    expect_refused("nats://h:4222/a*", ETW_ERROR_INVALID_NAME, "may hold only letters");
    expect_refused("nats://h:4222/" + std::string(65, 'S'), ETW_ERROR_INVALID_NAME, "longer than 64");
    expect_refused("nats://h:4222/S?from=1", ETW_ERROR_INVALID_PARAMETER, "(not \"from=1\")");
    expect_refused("nats://h:4222/S?follow=yes", ETW_ERROR_INVALID_PARAMETER, "(not \"follow=yes\")");
    expect_refused("nats://h:4222/S?follow=1&follow=1", ETW_ERROR_INVALID_PARAMETER, "each once");
    expect_refused("nats://h:4222/S?follow=1&", ETW_ERROR_INVALID_PARAMETER, "(not \"\")");
    expect_refused("nats://h:4222/S?since=yesterday", ETW_ERROR_INVALID_PARAMETER, "must be a UTC time");
    expect_refused("nats://h:4222/S?since=2026-13-01T00:00:00Z", ETW_ERROR_INVALID_PARAMETER, "must be a UTC time");
}

TEST(ExportUrl, OnlyTheNatsSchemeNamesAStream)
{
    EXPECT_TRUE(is_nats_url("nats://anything"));
    EXPECT_FALSE(is_nats_url("/tmp/nats://x.etl"));
    EXPECT_FALSE(is_nats_url("trace.etl"));
}

TEST(ExportUrl, SeveralServersAreTheNodesOfOneClusterInTheOrderWritten)
{
    ExportUrl u;
    ASSERT_TRUE(parse("nats://a:4001,b,[::1]:4003/S", &u));
    EXPECT_EQ(u.host, "a");
    EXPECT_EQ(u.port, 4001);
    EXPECT_EQ(u.more_servers, (std::vector<std::string>{"b:4222", "[::1]:4003"}));
    EXPECT_EQ(u.server(), "nats://a:4001,nats://b:4222,nats://[::1]:4003");
    EXPECT_EQ(u.text(), "nats://a:4001,b:4222,[::1]:4003/S");
    expect_refused("nats://a:4001,/S", ETW_ERROR_INVALID_PARAMETER, "names no host");
    expect_refused("nats://a,b:0/S", ETW_ERROR_INVALID_PARAMETER, "is not a number in 1..65535");
}
