// Helpers shared by system_test.cpp and the crossproc tests.
#pragma once

#include <openetw/openetw.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace systemtest {

struct Props {
    etw_properties *p = nullptr;
    explicit Props(const char *name = "props") { etw_properties_create(&p, name); }
    ~Props() { etw_properties_destroy(p); }
};

// The files a registry brings along next to itself: "<registry>.*" (session
// regions, "<registry>.<slot>.<generation>") and "<registry>-*" (lock files).
inline std::vector<std::string> registry_files(const std::string &registry)
{
    std::vector<std::string> out;
    const std::filesystem::path p(registry);
    const std::string name = p.filename().string();
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(p.parent_path(), ec)) {
        const std::string f = e.path().filename().string();
        if (f.rfind(name + ".", 0) == 0 || f.rfind(name + "-", 0) == 0)
            out.push_back(e.path().string());
    }
    return out;
}

} // namespace systemtest
