// What a shell command line prints on its standard output (the live tests
// run etwdump and readelf this way); empty when it cannot be started.
#pragma once

#include <cstdio>
#include <string>

namespace kerneltest {

inline std::string run(const std::string &command)
{
    std::string out;
    if (std::FILE *p = ::popen(command.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;)
            out.append(buf, n);
        ::pclose(p);
    }
    return out;
}

} // namespace kerneltest
