// etwdump's decoded output: jsonl adds "event_name" and "fields" to the
// records that decode (and nothing to the others), text shows them, and
// --no-decode leaves them out.
#include "provider_binaries.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>
#if !defined(_WIN32)
#include <sys/wait.h>
#endif

namespace {

std::string native(std::string p)
{
#if defined(_WIN32)
    if (!p.empty() && p[0] == '/') {
        p = "Z:" + p;
        for (char &c : p)
            c = c == '/' ? '\\' : c;
    }
#endif
    return p;
}

std::vector<std::string> run(const std::string &args)
{
#if defined(_WIN32)
    const std::string command = "\"\"" + native(ETWDUMP_PATH) + "\" " + args + " 2>NUL\"";
#else
    const std::string command = "\"" + native(ETWDUMP_PATH) + "\" " + args + " 2>/dev/null";
#endif
    std::vector<std::string> lines;
    std::FILE *p = popen(command.c_str(), "r");
    if (!p)
        return lines;
    std::string line;
    char buf[65536];
    while (std::fgets(buf, sizeof buf, p)) {
        line += buf;
        if (line.back() == '\n') {
            line.pop_back();
            lines.push_back(line);
            line.clear();
        }
    }
    pclose(p);
    return lines;
}

std::string sample(const char *name) { return "\"" + native(std::string(OPENETW_SAMPLES_DIR) + "/" + name) + "\""; }

std::vector<std::string> with(const std::vector<std::string> &lines, const std::string &part)
{
    std::vector<std::string> out;
    for (const auto &l : lines)
        if (l.find(part) != std::string::npos)
            out.push_back(l);
    return out;
}

TEST(EtwdumpDecode, JsonlAddsEventNameAndFields)
{
    const auto lines = run("--format jsonl --order file " + sample("pv_SelfDescribingSingleEvent.etl"));
    ASSERT_EQ(lines.size(), 23u);
    const auto decoded = with(lines, "\"event_name\": \"TestEvent\"");
    ASSERT_EQ(decoded.size(), 1u);
    EXPECT_NE(
        decoded[0].find(
            "\"event_id\": 3, \"event_name\": \"TestEvent\", \"fields\": {\"a\":{\"b\":\"Hello\",\"c\":\"World!\"}}, "
            "\"guid\":"),
        std::string::npos)
        << decoded[0];
    EXPECT_EQ(with(lines, "event_name").size(), 2u); // and the header record's EventTrace/Header
    EXPECT_EQ(with(lines, "\"event_name\": \"EventTrace/Header\", \"fields\": {\"BufferSize\":65536,").size(), 1u);

    const auto lx = with(run("--format jsonl --order file " + sample("etlparser_lxcore_kernel.etl")), "BreakPoint");
    ASSERT_EQ(lx.size(), 2u);
    EXPECT_NE(lx[0].find("\"event_name\": \"BreakPoint\", \"fields\": {\"ErrorLevel\":2,"
                         "\"instanceId\":\"{00000000-0000-0000-0000-000000000000}\",\"LxPid\":-1,\"LxTid\":-1,"
                         "\"LxNs\":0,\"ExecutablePath\":\"\",\"Function\":\"LxpInstanceStart\",\"Line\":2659,"
                         "\"Message\":\"[0xc0000034] LxpInstanceInitialize\\n\"}"),
              std::string::npos)
        << lx[0];
}

TEST(EtwdumpDecode, NoDecodeLeavesThemOut)
{
    const auto lines = run("--format jsonl --order file --no-decode " + sample("pv_SelfDescribingSingleEvent.etl"));
    ASSERT_EQ(lines.size(), 23u);
    EXPECT_TRUE(with(lines, "event_name").empty());
    EXPECT_TRUE(with(lines, "fields").empty());
}

TEST(EtwdumpDecode, TextShowsProviderEventAndFields)
{
    const auto lines = run("--format text --order file " + sample("pv_SelfDescribingSingleEvent.etl"));
    ASSERT_EQ(lines.size(), 23u);
    const auto decoded = with(lines, "MySource/TestEvent");
    ASSERT_EQ(decoded.size(), 1u);
    EXPECT_NE(decoded[0].find(" event cpu="), std::string::npos) << decoded[0];
    EXPECT_NE(decoded[0].find(" id=3 opcode=0 level=5 version=0 channel=11 MySource/TestEvent: a={b=Hello, c=World!}"),
              std::string::npos)
        << decoded[0];
    EXPECT_EQ(with(lines, "payload_size=").size(), 21u);
    EXPECT_EQ(with(lines, "MSNT_SystemTrace/EventTrace/Header: BufferSize=65536, ").size(), 1u);
    const auto amsi = with(run("--format text " + sample("etlparser_AMSITrace.etl")), "AmsiTrace/AmsiScript: Engine=");
    EXPECT_EQ(amsi.size(), 19u);
}

TEST(EtwdumpDecode, ManifestOptionDecodesManifestEvents)
{
    const std::string manifest =
        "\"" + native(std::string(OPENETW_MANIFESTS_DIR) + "/Microsoft-Windows-HttpService.xml") + "\"";
    const auto plain = run("--format jsonl --order file " + sample("tx_HTTP_Server.etl"));
    ASSERT_EQ(plain.size(), 2042u);
    EXPECT_TRUE(with(plain, "HTTPRequestTraceTaskParse").empty());
    const auto lines = run("--format jsonl --order file --manifest " + manifest + " " + sample("tx_HTTP_Server.etl"));
    ASSERT_EQ(lines.size(), 2042u);
    EXPECT_EQ(with(lines, "\"event_name\": \"HTTPRequestTraceTask").size(),
              291u * 3 + 289u * 3 + 2u * 3); // ids 1-3, 8/9/12, 4/5/10 (golden)
    const auto parse =
        with(lines, "\"event_name\": \"HTTPRequestTraceTaskParse\", \"fields\": {\"RequestObj\":\"0xFFFFFA80037C4530\","
                    "\"HttpVerb\":4,\"Url\":\"http://georgis2:80/windir.txt\"}");
    EXPECT_FALSE(parse.empty());
    const auto text = run("--format text --order file --manifest " + manifest + " " + sample("tx_HTTP_Server.etl"));
    EXPECT_FALSE(with(text, "Microsoft-Windows-HttpService/HTTPLoggingTraceTaskLogFileWrite: Status=0, ").empty());
    // A manifest that does not load stops etwdump before any output.
    EXPECT_TRUE(
        run("--format jsonl --manifest " + sample("tx_HTTP_Server.etl") + " " + sample("tx_HTTP_Server.etl")).empty());
    EXPECT_TRUE(run("--format jsonl " + sample("tx_HTTP_Server.etl") + " --manifest").empty());
}

TEST(EtwdumpDecode, BinaryOptionLoadsAProviderBinary)
{
    const std::string binary = provbin::small_binary();
    ASSERT_FALSE(binary.empty()) << "no provider binary is installed (see provider_binaries.hpp)";
    // The binary's provider has no events in the sample: the output is as without it.
    const auto plain = run("--format jsonl --order file " + sample("tx_HTTP_Server.etl"));
    const auto lines =
        run("--format jsonl --order file --binary \"" + native(binary) + "\" " + sample("tx_HTTP_Server.etl"));
    EXPECT_EQ(lines, plain);
    EXPECT_EQ(lines.size(), 2042u);
    // A file that is not a PE image, and a missing value, stop etwdump before any output.
    EXPECT_TRUE(
        run("--format jsonl --binary " + sample("tx_HTTP_Server.etl") + " " + sample("tx_HTTP_Server.etl")).empty());
    EXPECT_TRUE(run("--format jsonl " + sample("tx_HTTP_Server.etl") + " --binary").empty());
}

TEST(EtwdumpDecode, TmfOptionDecodesWppMessages)
{
    const std::string tmf = "\"" + native(std::string(OPENETW_TMF_DIR) + "/cldflt_43.tmf") + "\"";
    const std::string etl = sample("s4_CldFlt0-2025-12-21-121418.etl");
    const auto plain = run("--format jsonl --order file " + etl);
    ASSERT_EQ(plain.size(), 17u);
    EXPECT_TRUE(with(plain, "sample_c43").empty());
    const auto lines = run("--format jsonl --order file --tmf " + tmf + " " + etl);
    ASSERT_EQ(lines.size(), 17u);
    EXPECT_EQ(with(lines, "\"event_name\": \"sample_c43\", \"fields\": {\"Object\":\"0xFFFFBB88").size(), 13u);
    EXPECT_EQ(with(lines, "\"event_name\": \"sample_c43\", \"fields\": {\"Object\":\"0xFFFFBB88B0AA7010\","
                          "\"Context\":\"0xFFFFBB88AE321010\",\"Status\":\"0xC01C000F\",\"FormattedString\":"
                          "\" object FFFFBB88B0AA7010 context FFFFBB88AE321010 status 0xC01C000F\","
                          "\"GuidName\":\"CldFlt\",\"GuidTypeName\":\"sample_c43\",\"FunctionName\":\"Unknown\","
                          "\"LevelName\":\"TRACE_LEVEL_ERROR\"}")
                  .size(),
              1u);
    // The directory form, and a TMF that does not load (here: an .etl) stops etwdump before any output.
    EXPECT_EQ(run("--format jsonl --order file --tmf \"" + native(OPENETW_TMF_DIR) + "\" " + etl), lines);
    EXPECT_TRUE(run("--format jsonl --tmf " + etl + " " + etl).empty());
    EXPECT_TRUE(run("--format jsonl " + etl + " --tmf").empty());
}

} // namespace
