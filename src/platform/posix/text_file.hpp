// The whole of a small text file whose size is not known before reading
// (/proc, /sys, tracefs report 0): the POSIX files' shared reader.
#pragma once

#include <string>
#include <string_view>

namespace openetw::platform::posix {

// Reads path into *out; 0, or the errno of the open or read that failed.
int read_text_file(const std::string &path, std::string *out);

// Calls each with every line of text, without its '\n' (the last one too
// when unterminated).
template <class Each>
void for_each_line(std::string_view text, Each &&each)
{
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        each(text.substr(at, end - at));
        at = end + 1;
    }
}

} // namespace openetw::platform::posix
