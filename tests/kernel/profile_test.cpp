// The sampled profile (EVENT_TRACE_FLAG_PROFILE) as a user meets it: a
// system logger session samples every processor; etwdump --format profile
// names a busy program's hot function, from the trace's own image events
// and the program's ELF symbols; the interval is an option with Windows'
// range. Runs as root (as CI).
#include "command_output.hpp"
#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using kerneltest::run;

const char *env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

std::string temp_file(const std::string &stem)
{
    return (std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()) + ".etl")).string();
}

struct Session {
    etw_properties *props = nullptr;
    etw_session *s = nullptr;
    ~Session()
    {
        if (s) {
            etw_session_stop(s, nullptr);
            etw_session_close(s);
        }
        etw_properties_destroy(props);
    }
    // A system logger of its own name (SYSTEM_LOGGER_MODE), in this process.
    etw_status start(const std::string &name, const std::string &file, std::uint32_t flags, std::uint32_t interval)
    {
        EXPECT_EQ(etw_properties_create(&props, name.c_str()), ETW_OK);
        etw_properties_set_log_file_name(props, file.c_str());
        etw_properties_set_log_file_mode(props, ETW_FILE_MODE_SEQUENTIAL | ETW_SYSTEM_LOGGER_MODE);
        etw_properties_set_enable_flags(props, flags);
        etw_session_options o{};
        o.struct_size = sizeof o;
        o.flags = ETW_SESSION_IN_PROCESS;
        o.profile_interval = interval;
        return etw_session_start_ex(&s, props, &o);
    }
};

pid_t run_busy(double seconds)
{
    const std::string arg = std::to_string(seconds);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execl(env("BUSY_PROGRAM"), "busy_function", arg.c_str(), static_cast<char *>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "busy_function did not run: " << status;
    return pid;
}

// The lines of the profile's section of process pid: its header, then its functions.
std::vector<std::string> section(const std::string &profile, pid_t pid)
{
    std::vector<std::string> lines;
    std::istringstream in(profile);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("process ", 0) == 0)
            inside = line.rfind("process " + std::to_string(pid) + " ", 0) == 0;
        if (inside)
            lines.push_back(line);
    }
    return lines;
}

TEST(Profile, TheBusyFunctionTopsItsProcessInTheSummary)
{
    const std::string file = temp_file("profile");
    Session session;
    ASSERT_EQ(session.start("OpenETW profile test " + std::to_string(::getpid()), file,
                            ETW_FLAG_PROFILE | ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD, 0),
              ETW_OK)
        << etw_last_error_message();
    const pid_t busy = run_busy(1.0);
    ASSERT_EQ(etw_session_stop(session.s, nullptr), ETW_OK) << etw_last_error_message();

    const std::string profile = run(std::string(env("ETWDUMP")) + " --format profile --top 3 " + file);
    const std::vector<std::string> lines = section(profile, busy);
    ASSERT_GE(lines.size(), 2u) << "no section for process " << busy << " in:\n" << profile;
    EXPECT_NE(lines[0].find("busy_function"), std::string::npos) << lines[0];
    // "  <samples> <percent>%  <function>  <module>": the top entry is the function.
    std::istringstream top(lines[1]);
    std::string samples, percent, function, module;
    top >> samples >> percent >> function >> module;
    EXPECT_EQ(function, "spin_in_busy_function") << profile;
    EXPECT_EQ(module, "busy_function") << profile;
    // A second of processor time at 1 ms: most of a thousand samples.
    EXPECT_GT(std::atoi(samples.c_str()), 500) << profile;
    std::filesystem::remove(file);
}

TEST(Profile, TheIntervalSetsTheRateAndIsCheckedAgainstWindowsRange)
{
    const std::string file = temp_file("profile-rate");
    {
        Session session;
        // 10 ms: a second of the busy program's processor time is about 100 samples, not 1000.
        ASSERT_EQ(session.start("OpenETW profile rate " + std::to_string(::getpid()), file,
                                ETW_FLAG_PROFILE | ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD, 100000),
                  ETW_OK)
            << etw_last_error_message();
        etw_session_options got{};
        got.struct_size = sizeof got;
        ASSERT_EQ(etw_session_get_options(&got, session.s), ETW_OK);
        EXPECT_EQ(got.profile_interval, 100000u);
        const pid_t busy = run_busy(1.0);
        ASSERT_EQ(etw_session_stop(session.s, nullptr), ETW_OK) << etw_last_error_message();
        const std::vector<std::string> lines =
            section(run(std::string(env("ETWDUMP")) + " --format profile --top 1 " + file), busy);
        ASSERT_GE(lines.size(), 2u);
        const int samples = std::atoi(lines[1].c_str());
        EXPECT_GT(samples, 50) << lines[1];
        EXPECT_LT(samples, 200) << lines[1];
    }
    for (std::uint32_t bad : {1220u, 10000001u}) {
        Session session;
        EXPECT_EQ(session.start("OpenETW profile bad " + std::to_string(::getpid()), file, ETW_FLAG_PROFILE, bad),
                  ETW_ERROR_INVALID_PARAMETER);
        EXPECT_NE(std::string(etw_last_error_message()).find("1221 to 10000000"), std::string::npos)
            << etw_last_error_message();
    }
    std::filesystem::remove(file);
}

// The samples of process pid in the profile of file (its top function's count).
int samples_of(const std::string &file, pid_t pid)
{
    const std::vector<std::string> lines =
        section(run(std::string(env("ETWDUMP")) + " --format profile --top 1 " + file), pid);
    return lines.size() >= 2 ? std::atoi(lines[1].c_str()) : -1;
}

std::uint32_t interval_of(etw_session *s)
{
    etw_session_options got{};
    got.struct_size = sizeof got;
    EXPECT_EQ(etw_session_get_options(&got, s), ETW_OK) << etw_last_error_message();
    return got.profile_interval;
}

TEST(Profile, TheIntervalChangesWhileTheSessionRuns)
{
    const std::string file = temp_file("profile-change");
    Session session;
    ASSERT_EQ(session.start("OpenETW profile change " + std::to_string(::getpid()), file,
                            ETW_FLAG_PROFILE | ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD, 0),
              ETW_OK)
        << etw_last_error_message();
    EXPECT_EQ(interval_of(session.s), ETW_DEFAULT_PROFILE_INTERVAL);
    const pid_t at_1ms = run_busy(1.0);
    // 10 ms from now on: the next second of processor time gives about 100 samples.
    ASSERT_EQ(etw_session_set_profile_interval(session.s, 100000), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(interval_of(session.s), 100000u);
    const pid_t at_10ms = run_busy(1.0);
    ASSERT_EQ(etw_session_stop(session.s, nullptr), ETW_OK) << etw_last_error_message();

    const int before = samples_of(file, at_1ms), after = samples_of(file, at_10ms);
    // The first run's samples came from the source the change closed.
    EXPECT_GT(before, 800) << "the first second was not sampled at 1 ms";
    EXPECT_GT(after, 50);
    EXPECT_LT(after, 200) << "the interval did not change";
    std::filesystem::remove(file);
}

TEST(Profile, AnIntervalSetWithoutTheProfileServesWhenTheFlagComesOn)
{
    const std::string file = temp_file("profile-later");
    Session session;
    const std::uint32_t others = ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD;
    ASSERT_EQ(session.start("OpenETW profile later " + std::to_string(::getpid()), file, others, 0), ETW_OK)
        << etw_last_error_message();
    ASSERT_EQ(etw_session_set_profile_interval(session.s, 100000), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(interval_of(session.s), 100000u);
    ASSERT_EQ(etw_session_query(session.s, session.props), ETW_OK);
    ASSERT_EQ(etw_properties_set_enable_flags(session.props, others | ETW_FLAG_PROFILE), ETW_OK);
    ASSERT_EQ(etw_session_update(session.s, session.props), ETW_OK) << etw_last_error_message();
    const pid_t busy = run_busy(1.0);
    ASSERT_EQ(etw_session_stop(session.s, nullptr), ETW_OK) << etw_last_error_message();
    const int samples = samples_of(file, busy);
    EXPECT_GT(samples, 50);
    EXPECT_LT(samples, 200) << "the profile started at another interval than the one set";
    std::filesystem::remove(file);
}

TEST(Profile, TheIntervalRefusesWhatItCannotServe)
{
    const std::string file = temp_file("profile-interval-refusals");
    Session system;
    ASSERT_EQ(
        system.start("OpenETW profile interval refusals " + std::to_string(::getpid()), file, ETW_FLAG_PROFILE, 20000),
        ETW_OK)
        << etw_last_error_message();
    for (std::uint32_t bad : {0u, 1220u, 10000001u}) {
        EXPECT_EQ(etw_session_set_profile_interval(system.s, bad), ETW_ERROR_INVALID_PARAMETER) << bad;
        EXPECT_NE(std::string(etw_last_error_message()).find("1221 to 10000000"), std::string::npos)
            << etw_last_error_message();
        EXPECT_EQ(interval_of(system.s), 20000u) << "a refused interval changed the one in force";
    }
    EXPECT_EQ(etw_session_set_profile_interval(nullptr, 10000), ETW_ERROR_INVALID_PARAMETER);
    // Both ends of the range are taken.
    EXPECT_EQ(etw_session_set_profile_interval(system.s, ETW_MIN_PROFILE_INTERVAL), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_set_profile_interval(system.s, ETW_MAX_PROFILE_INTERVAL), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(interval_of(system.s), ETW_MAX_PROFILE_INTERVAL);
    ASSERT_EQ(etw_session_stop(system.s, nullptr), ETW_OK);
    EXPECT_EQ(etw_session_set_profile_interval(system.s, 10000), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);

    // A session that is not a system logger has no profile.
    etw_properties *props = nullptr;
    ASSERT_EQ(etw_properties_create(&props, ("OpenETW plain interval " + std::to_string(::getpid())).c_str()), ETW_OK);
    etw_properties_set_log_file_name(props, temp_file("profile-plain-interval").c_str());
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_IN_PROCESS;
    etw_session *plain = nullptr;
    ASSERT_EQ(etw_session_start_ex(&plain, props, &o), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_set_profile_interval(plain, 10000), ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(etw_last_error_message()).find("system logger"), std::string::npos)
        << etw_last_error_message();
    EXPECT_EQ(etw_session_stop(plain, nullptr), ETW_OK);
    etw_session_close(plain);
    etw_properties_destroy(props);
    std::filesystem::remove(temp_file("profile-plain-interval"));
    std::filesystem::remove(file);
}

const etw_classic_event_id kSampledProfile = {
    {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}}, 46, {}};

TEST(Profile, SamplesAskedForCarryTheirStacksAndEtwdumpNamesTheCallers)
{
    const std::string file = temp_file("profile-stacks");
    Session session;
    ASSERT_EQ(session.start("OpenETW profile stacks " + std::to_string(::getpid()), file,
                            ETW_FLAG_PROFILE | ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD, 0),
              ETW_OK)
        << etw_last_error_message();
    ASSERT_EQ(etw_session_set_stack_tracing(session.s, &kSampledProfile, 1), ETW_OK) << etw_last_error_message();
    const pid_t busy = run_busy(1.0);
    ASSERT_EQ(etw_session_stop(session.s, nullptr), ETW_OK) << etw_last_error_message();

    const std::string profile = run(std::string(env("ETWDUMP")) + " --format profile --top 5 " + file);
    const std::vector<std::string> lines = section(profile, busy);
    // Self: the busy function; inclusive: main calls it, so both hold nearly every sample.
    std::size_t at = 0;
    while (at < lines.size() && lines[at].find("inclusive") == std::string::npos)
        ++at;
    ASSERT_LT(at, lines.size()) << "no inclusive part for process " << busy << " in:\n" << profile;
    bool main_seen = false, busy_seen = false;
    for (std::size_t i = at + 1; i < lines.size(); ++i) {
        std::istringstream row(lines[i]);
        std::string samples, percent, function;
        row >> samples >> percent >> function;
        if (function == "main" || function == "spin_in_busy_function") {
            EXPECT_GT(std::atof(percent.c_str()), 90.0) << lines[i];
            (function == "main" ? main_seen : busy_seen) = true;
        }
    }
    EXPECT_TRUE(main_seen && busy_seen) << profile;
    std::filesystem::remove(file);
}

TEST(Profile, StackTracingRefusesWhatItCannotServe)
{
    const std::string file = temp_file("profile-refusals");
    Session system;
    ASSERT_EQ(system.start("OpenETW profile refusals " + std::to_string(::getpid()), file, ETW_FLAG_PROCESS, 0), ETW_OK)
        << etw_last_error_message();
    // Process/Start (perf's side-band FORK has no call chain), DiskIo/Read
    // (read through ftrace), a type no source writes (PageFault's
    // HardPageFault) and a GUID of no kernel class: each refused, naming it.
    const etw_guid process = {0x3d6fa8d0, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
    const etw_guid disk = {0x3d6fa8d4, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
    const etw_guid fault = {0x3d6fa8d3, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
    const etw_guid other = {0x12345678, 0x1234, 0x1234, {1, 2, 3, 4, 5, 6, 7, 8}};
    const struct {
        etw_classic_event_id id;
        const char *named, *why;
    } refused[] = {{{process, 1, {}}, "type 1", "side-band"},
                   {{disk, 10, {}}, "type 10", "ftrace"},
                   {{fault, 14, {}}, "type 14", "not written here"},
                   {{other, 1, {}}, "12345678-1234-1234-0102-030405060708", "no kernel event class"}};
    for (const auto &r : refused) {
        const etw_classic_event_id both[] = {kSampledProfile, r.id};
        EXPECT_EQ(etw_session_set_stack_tracing(system.s, both, 2), ETW_ERROR_NOT_SUPPORTED) << r.named;
        const std::string message = etw_last_error_message();
        EXPECT_NE(message.find(r.named), std::string::npos) << message;
        EXPECT_NE(message.find(r.why), std::string::npos) << message;
    }
    const etw_classic_event_id both[] = {kSampledProfile, refused[0].id};
    EXPECT_EQ(etw_session_set_stack_tracing(system.s, nullptr, 1), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_session_set_stack_tracing(system.s, both, ETW_MAX_STACK_TRACING_EVENTS + 1),
              ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_session_set_stack_tracing(nullptr, both, 1), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_session_set_stack_tracing(system.s, nullptr, 0), ETW_OK); // stacks off

    // A session that is not a system logger has no kernel events to stack.
    etw_properties *props = nullptr;
    ASSERT_EQ(etw_properties_create(&props, ("OpenETW plain " + std::to_string(::getpid())).c_str()), ETW_OK);
    etw_properties_set_log_file_name(props, temp_file("profile-plain").c_str());
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_IN_PROCESS;
    etw_session *plain = nullptr;
    ASSERT_EQ(etw_session_start_ex(&plain, props, &o), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_set_stack_tracing(plain, &kSampledProfile, 1), ETW_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(etw_session_stop(plain, nullptr), ETW_OK);
    etw_session_close(plain);
    etw_properties_destroy(props);
    std::filesystem::remove(temp_file("profile-plain"));
    std::filesystem::remove(file);
}

} // namespace
