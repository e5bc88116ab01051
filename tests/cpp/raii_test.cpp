// openetw.hpp: sessions stop when their starter is destroyed unless detached,
// errors carry their status, callback exceptions come back from process().
#include <openetw/openetw.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

int failures = 0;
#define EXPECT(cond)                                                                                                   \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);                                            \
            ++failures;                                                                                                \
        }                                                                                                              \
    } while (0)

std::string unique(const char *what) { return std::string("hpp ") + what + " " + std::to_string(getpid()); }

etw_status status_of_open(const std::string &name)
{
    try {
        openetw::session::open(name);
        return ETW_OK;
    } catch (const openetw::error &e) {
        return e.status();
    }
}

openetw::properties file_props(const std::string &name, const std::string &path)
{
    openetw::properties p(name);
    p.log_file_name(path).log_file_mode(ETW_FILE_MODE_SEQUENTIAL);
    return p;
}

} // namespace

int main()
{
    const std::string dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    const etw_guid guid = openetw::guid_from_string("{1d6f1c6b-2a3b-4c5d-8e9f-a0b1c2d3e4f5}");

    { // destroying the starter stops the session
        const std::string name = unique("stops");
        auto props = file_props(name, dir + "/hpp-stops.etl");
        {
            auto s = openetw::session::start(props);
            EXPECT(s.stops_on_destruction());
            EXPECT(status_of_open(name) == ETW_OK);
        }
        EXPECT(status_of_open(name) == ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    }
    { // a detached session runs on until stopped by name
        const std::string name = unique("detached");
        auto props = file_props(name, dir + "/hpp-detached.etl");
        {
            auto s = openetw::session::start(props);
            s.detach();
        }
        EXPECT(status_of_open(name) == ETW_OK);
        openetw::session::open(name).stop();
        EXPECT(status_of_open(name) == ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    }
    { // errors carry the status and the library's message
        try {
            openetw::properties p("");
            EXPECT(false);
        } catch (const openetw::error &e) {
            EXPECT(e.status() == ETW_ERROR_INVALID_NAME);
            EXPECT(std::string(e.what()).find("ETW_ERROR_INVALID_NAME") != std::string::npos);
        }
        try {
            openetw::guid_from_string("not a guid");
            EXPECT(false);
        } catch (const openetw::error &e) {
            EXPECT(e.status() == ETW_ERROR_INVALID_PARAMETER);
        }
    }
    { // a file round trip through provider, session and consumer; a callback's exception comes back
        const std::string name = unique("file"), path = dir + "/hpp-file.etl";
        int enabled_level = -1;
        openetw::provider provider(
            guid, [&](const etw_provider_enable_info &i) { enabled_level = i.is_enabled ? int(i.level) : 0; });
        auto props = file_props(name, path);
        {
            auto s = openetw::session::start(props);
            s.enable_provider(guid, ETW_LEVEL_WARNING);
            EXPECT(enabled_level == ETW_LEVEL_WARNING);
            provider.write(11, ETW_LEVEL_ERROR, "kept", 2);
            provider.write(11, ETW_LEVEL_VERBOSE, "filtered");
        } // stopped here: the file is complete
        EXPECT(enabled_level == 0);
        int seen = 0;
        auto c = openetw::consumer::open_files({path}, [&](const openetw::event &e) {
            seen += e.text() == "kept" && e.type() == 11 && e.level() == ETW_LEVEL_ERROR && e.version() == 2;
        });
        c.process();
        EXPECT(seen == 1);
        auto thrower = openetw::consumer::open_files(
            {path}, [](const openetw::event &) { throw std::out_of_range("from the callback"); });
        try {
            thrower.process();
            EXPECT(false);
        } catch (const std::out_of_range &) {
        }
    }
    std::printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
