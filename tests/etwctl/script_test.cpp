// etwctl scripts: every form of nested script is refused with status 2 (none
// escapes the no-nesting check), a line is read whole or refused whole (a
// long line's tail never runs as a command), a NUL byte refuses the script,
// a script that cannot be read fails.
#include "etwctl.hpp"
#include "ctl_run.hpp"
#include "script.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace ctltest;

// Sessions the scripts started in this process (as etwctl's main does at
// exit): stopped and their handles closed once every test has run.
class StopStartedSessions : public ::testing::Environment {
public:
    void TearDown() override { etwctl::stop_started_sessions(); }
};
::testing::Environment *const g_stop_started = ::testing::AddGlobalTestEnvironment(new StopStartedSessions);

bool running(const std::string &n)
{
    etw_session *s = nullptr;
    const bool found = etw_session_open(&s, n.c_str()) == ETW_OK;
    etw_session_close(s);
    return found;
}

void stop(const std::string &n)
{
    etw_session *s = nullptr;
    if (etw_session_open(&s, n.c_str()) == ETW_OK) {
        etw_session_stop(s, nullptr);
        etw_session_close(s);
    }
}

struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string &stem) : path(std::filesystem::temp_directory_path() / name(stem.c_str()))
    {
        std::filesystem::create_directories(path);
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string write(const std::string &file, const std::string &text) const
    {
        const std::string p = (path / file).string();
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
};

} // namespace

// defects/etwctl/script_nest_bypass.txt: `--json script FILE` in a script
// would run the script again without end. Every way of writing the command,
// with the global option anywhere, is refused at its line before it runs.
TEST(EtwctlScript, NestedScriptIsRefusedInEveryForm)
{
    const TempDir dir("etwctl-nest");
    const std::string self = (dir.path / "self.script").string();
    const std::vector<std::string> forms = {
        "script " + self,
        "--json script " + self,
        "script --json " + self,
        "script " + self + " --json",
        "--json --json script " + self,
        "\"script\" " + self,
        "--json \"script\" -",
        "script " + self + " --keep-going",
        "script",
    };
    for (const std::string &form : forms) {
        dir.write("self.script", "list\n" + form + "\nlist\n");
        for (const bool json : {false, true}) {
            std::vector<std::string> args = {"script", self};
            if (json)
                args.insert(args.begin(), "--json");
            const CtlRun r = ctl(args);
            EXPECT_EQ(r.code, 2) << form << "\n" << r.err;
            EXPECT_TRUE(has(r.err, "etwctl script: line 2: scripts do not nest")) << form << "\n" << r.err;
            // The line before ran once, the refused line and those after not at all.
            const std::string listed = json ? "\"command\": \"list\"" : "> list";
            const std::size_t first = r.out.find(listed);
            EXPECT_NE(first, std::string::npos) << form << "\n" << r.out;
            EXPECT_EQ(r.out.find(listed, first + 1), std::string::npos) << form << "\n" << r.out;
            // The same through run_script, as a program drives it.
            const CtlRun s = script("list\n" + form + "\nlist\n", json);
            EXPECT_EQ(s.code, 2) << form;
            EXPECT_TRUE(has(s.err, "line 2: scripts do not nest")) << form << "\n" << s.err;
        }
    }
}

TEST(EtwctlScript, ParserRefusesNestingAndNumbersLines)
{
    std::vector<etwctl::script::Line> lines =
        etwctl::script::parse("# comment\n\n  list  \nquery \"a b\"\nstop \"x\n--json script f\nlist\n");
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0].number, 3u);
    EXPECT_EQ(lines[0].words, std::vector<std::string>{"list"});
    EXPECT_EQ(lines[1].words, (std::vector<std::string>{"query", "a b"}));
    EXPECT_EQ(lines[2].status, 1);
    EXPECT_EQ(lines[2].error, "line 5: unbalanced quote");
    EXPECT_EQ(lines[3].status, 2);
    EXPECT_EQ(lines[3].number, 6u);
    EXPECT_TRUE(lines[3].words.empty());
}

// defects/etwctl/script_longline_split.txt: a line over 8,191 bytes is read
// whole, so its tail (here: a start) never runs as a command of its own.
TEST(EtwctlScript, LongLineIsReadWholeAndItsTailNeverRuns)
{
    const std::string injected = name("ctl-injected");
    const std::string line = "list" + std::string(9000, ' ') + "start " + injected + " --real-time";
    for (const bool keep_going : {false, true}) {
        const CtlRun r = script(line + "\n", false, keep_going);
        EXPECT_EQ(r.code, 2) << r.err; // list takes no arguments: the whole line is one command
        EXPECT_TRUE(has(r.err, "list takes no arguments")) << r.err;
        EXPECT_FALSE(running(injected));
        stop(injected);
    }
    EXPECT_EQ(etwctl::stop_started_sessions(), 0u); // the script stopped every session it started

    // A long line that is a good command runs as one.
    const std::string n = name("ctl-longline");
    ASSERT_EQ(ctl({"start", n, "--real-time"}).code, 0);
    CtlRun r = script("query" + std::string(20000, ' ') + n + "\r\n");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "query " + n)) << r.out.substr(0, 200);
    EXPECT_EQ(ctl({"stop", n}).code, 0);
}

TEST(EtwctlScript, TooLongLineIsRefusedWholeNamingTheLine)
{
    const std::string injected = name("ctl-toolong");
    const std::string huge = "list" + std::string(etwctl::script::kMaxLineBytes, ' ') + "start " + injected;
    for (const bool keep_going : {false, true}) {
        const CtlRun r = script("list\n" + huge + "\nlist\n", false, keep_going);
        EXPECT_EQ(r.code, 2);
        EXPECT_TRUE(has(r.err, "etwctl script: line 2: longer than 1048576 bytes")) << r.err.substr(0, 300);
        EXPECT_EQ(r.out.find("> list"), r.out.rfind("> list")) << "only the first line runs";
        EXPECT_FALSE(running(injected));
        stop(injected);
    }
}

// A NUL byte would cut a word short (C strings): "stop NAME\0..." would stop NAME.
TEST(EtwctlScript, NulByteRefusesTheScript)
{
    const std::string n = name("ctl-nul");
    ASSERT_EQ(ctl({"start", n, "--real-time"}).code, 0);
    const CtlRun r = script("stop " + n + std::string(1, '\0') + "-other\n");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(has(r.err, "line 1: holds a NUL byte")) << r.err;
    EXPECT_TRUE(running(n));
    EXPECT_EQ(ctl({"stop", n}).code, 0);
}

// A directory opens (on POSIX) but cannot be read: that is no empty script.
TEST(EtwctlScript, UnreadableScriptFails)
{
    const TempDir dir("etwctl-dir");
    const CtlRun r = ctl({"script", dir.path.string()});
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_TRUE(has(r.err, "etwctl script")) << r.err;
}
