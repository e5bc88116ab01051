// Build ids live (root, as CI): a system logger with IMAGE_LOAD records the
// build id of a program it saw start, exactly the one it was linked with
// (and readelf -n shows); etwdump's profile then symbolizes by that id: a
// stripped program is named from the debug file of its id in a .build-id
// directory, and a program replaced by another build after the trace is
// reported and not named from the file now there.
#include "command_output.hpp"
#include "system_logger_live.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace syslogtest;
namespace fs = std::filesystem;

namespace {

using kerneltest::run;

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

std::string linked_id(const char *variable)
{
    std::string v = env(variable);
    return v.rfind("0x", 0) == 0 ? v.substr(2) : v;
}

pid_t run_program(const std::string &path, const char *seconds)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execl(path.c_str(), "busy", seconds, static_cast<char *>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << path << " did not run: " << status;
    return pid;
}

// The build id DbgID_RSDS carries, as hex: GuidSig's bytes as stored (the
// text shows Data1..Data3 little-endian) then Age's four, little-endian.
std::string recorded_id(const Seen &s)
{
    std::string g = s.value("GuidSig");
    std::erase_if(g, [](char c) { return c == '{' || c == '}' || c == '-'; });
    if (g.size() != 32)
        return "<no GuidSig: " + s.value("GuidSig") + ">";
    auto bytes_reversed = [&](std::size_t at, std::size_t n) {
        std::string out;
        for (std::size_t i = n; i-- > 0;)
            out += g.substr(at + 2 * i, 2);
        return out;
    };
    std::string id = bytes_reversed(0, 4) + bytes_reversed(8, 2) + bytes_reversed(12, 2) + g.substr(16);
    const unsigned long age = std::strtoul(s.value("Age").c_str(), nullptr, 10);
    char tail[16];
    std::snprintf(tail, sizeof tail, "%02lX%02lX%02lX%02lX", age & 0xFF, age >> 8 & 0xFF, age >> 16 & 0xFF,
                  age >> 24 & 0xFF);
    id += tail;
    for (char &c : id)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return id;
}

// The rows of process pid's section of a profile: "<function> <module>".
std::vector<std::string> functions_of(const std::string &profile, pid_t pid)
{
    std::vector<std::string> rows;
    std::istringstream in(profile);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("process ", 0) == 0) {
            inside = line.rfind("process " + std::to_string(pid) + " ", 0) == 0;
            continue;
        }
        if (!inside || line.find("inclusive") != std::string::npos)
            continue;
        std::istringstream row(line);
        std::string samples, percent, function, module;
        row >> samples >> percent >> function >> module;
        rows.push_back(function + " " + module);
    }
    return rows;
}

} // namespace

TEST(BuildIdLive, TheKernelLoggerRecordsTheProgramsBuildId)
{
    const std::string program = fs::canonical(env("BUILD_ID_PROGRAM_A")).string();
    const std::string want = linked_id("BUILD_ID_A");
    ASSERT_EQ(want.size(), 40u);
    const std::string file = temp_file("build-id-live");
    Props props("OpenETW build id live " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD), ETW_OK)
        << etw_last_error_message();
    const pid_t child = run_program(program, "0.05");
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK) << etw_last_error_message();
    etw_session_close(s);

    const std::vector<Seen> all = read_back(file);
    const Seen *image = nullptr;
    for (const Seen *i : named(all, "Image/Load", "ProcessId", child))
        if (i->value("FileName") == program)
            image = i;
    ASSERT_NE(image, nullptr) << "no Image/Load of " << program;
    const Seen *id = nullptr;
    for (const Seen *d : named(all, "ImageID/DbgID_RSDS", "ProcessId", child))
        if (d->value("PdbFileName") == program && d->value("ImageBase") == image->value("ImageBase"))
            id = d;
    ASSERT_NE(id, nullptr) << "no DbgID_RSDS for " << program;
    EXPECT_EQ(id->problem, "");
    EXPECT_EQ(id->timestamp_raw, image->timestamp_raw) << "written with its image's record";
    EXPECT_EQ(recorded_id(*id), want);
    // And readelf agrees, where it is installed.
    const std::string readelf = run("readelf -n '" + program + "' 2>/dev/null");
    if (const std::size_t at = readelf.find("Build ID: "); at != std::string::npos) {
        EXPECT_EQ(readelf.substr(at + 10, 40), want);
    }
    fs::remove(file);
}

TEST(BuildIdLive, EtwdumpSymbolizesByTheRecordedBuildIdOnly)
{
    const std::string a = linked_id("BUILD_ID_A"), b = linked_id("BUILD_ID_B"), c = linked_id("BUILD_ID_C");
    const fs::path dir = fs::temp_directory_path() / ("openetw-build-id-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    // The program, and a stripped program whose code is not at its file
    // offset (its debug file's segments, emptied, cannot place it).
    const std::string program = (dir / "busy_copy").string(), stripped = (dir / "busy_stripped").string();
    fs::copy_file(env("BUILD_ID_PROGRAM_A"), program);
    fs::copy_file(env("BUILD_ID_PROGRAM_C_STRIPPED"), stripped);
    const std::string file = temp_file("build-id-profile");
    Props props("OpenETW build id profile " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_PROFILE | ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD),
              ETW_OK)
        << etw_last_error_message();
    const pid_t busy = run_program(program, "0.4");
    const pid_t busy_stripped = run_program(stripped, "0.4");
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK) << etw_last_error_message();
    etw_session_close(s);

    const std::string etwdump = env("ETWDUMP") + " --format profile --top 3 --debug-dir " + (dir / "debug").string();
    auto top = [&](const std::string &profile, pid_t pid) {
        const std::vector<std::string> rows = functions_of(profile, pid);
        return rows.empty() ? "<no section for " + std::to_string(pid) + ">" : rows[0];
    };
    // The files as traced: the program named from itself; the stripped one not at all.
    std::string profile = run(etwdump + " " + file + " 2>&1");
    EXPECT_EQ(top(profile, busy), "spin_in_busy_function busy_copy") << profile;
    EXPECT_EQ(top(profile, busy_stripped), "? busy_stripped") << profile;
    EXPECT_EQ(profile.find("changed since the trace"), std::string::npos) << profile;

    // The debug files of the recorded ids, in GDB's .build-id layout (objcopy
    // --only-keep-debug's where the build has objcopy): the stripped program
    // named, its symbols placed by its own segments.
    auto debug_file = [&](const std::string &id) {
        return dir / "debug" / ".build-id" / id.substr(0, 2) / (id.substr(2) + ".debug");
    };
    const fs::path debug = debug_file(a);
    for (const auto &[id, from] : {std::pair{a, env("BUILD_ID_DEBUG_A")}, std::pair{c, env("BUILD_ID_DEBUG_C")}}) {
        fs::create_directories(debug_file(id).parent_path());
        fs::copy_file(from, debug_file(id));
    }
    profile = run(etwdump + " " + file + " 2>&1");
    EXPECT_EQ(top(profile, busy_stripped), "spin_in_busy_function busy_stripped") << profile;
    EXPECT_EQ(top(profile, busy), "spin_in_busy_function busy_copy") << profile;

    // Both replaced by another build: reported; named from the debug files
    // of their ids alone (the stripped one's code placed where the linker
    // put it, its debug file's offsets being gone)...
    for (const std::string &p : {program, stripped}) {
        fs::remove(p);
        fs::copy_file(env("BUILD_ID_PROGRAM_B"), p);
    }
    profile = run(etwdump + " " + file + " 2>&1");
    const std::string changed = "image " + program + " changed since the trace (build id " + b + " != " + a + "): ";
    EXPECT_NE(profile.find(changed + "named from its debug file " + debug.string()), std::string::npos) << profile;
    EXPECT_NE(profile.find("image " + stripped + " changed since the trace (build id " + b + " != " + c +
                           "): named from its debug file " + debug_file(c).string()),
              std::string::npos)
        << profile;
    EXPECT_EQ(top(profile, busy), "spin_in_busy_function busy_copy") << profile;
    EXPECT_EQ(top(profile, busy_stripped), "spin_in_busy_function busy_stripped") << profile;

    // ... and without one not named at all, never from the other build.
    fs::remove_all(dir / "debug");
    profile = run(etwdump + " " + file + " 2>&1");
    EXPECT_NE(profile.find(changed + "its functions are not named"), std::string::npos) << profile;
    EXPECT_EQ(top(profile, busy), "? busy_copy") << profile;
    for (const std::string &r : functions_of(profile, busy))
        EXPECT_EQ(r.rfind("busy_other_build", 0), std::string::npos) << "named from the other build: " << profile;

    fs::remove_all(dir);
    fs::remove(file);
}
