// The whole of a small text file whose size is not known before reading
// (/proc, /sys, tracefs report 0): the POSIX files' shared reader.
#pragma once

#include <string>

namespace openetw::platform::posix {

// Reads path into *out; 0, or the errno of the open or read that failed.
int read_text_file(const std::string &path, std::string *out);

} // namespace openetw::platform::posix
