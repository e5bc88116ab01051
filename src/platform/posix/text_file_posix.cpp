#include "platform/posix/text_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace openetw::platform::posix {

int read_text_file(const std::string &path, std::string *out)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    out->clear();
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int e = errno;
            ::close(fd);
            return e;
        }
        if (n == 0)
            break;
        out->append(buf, std::size_t(n));
    }
    ::close(fd);
    return 0;
}

} // namespace openetw::platform::posix
