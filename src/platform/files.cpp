// What File does alike on every OS, around the system calls that
// posix/files_posix.cpp and windows/files_windows.cpp make (files.hpp).
#include "platform/files.hpp"

namespace openetw::platform {

File::~File() { close(); }

File::File(File &&other) noexcept : handle_(other.handle_) { other.handle_ = -1; }

File &File::operator=(File &&other) noexcept
{
    if (this != &other) {
        close();
        handle_ = other.handle_;
        other.handle_ = -1;
    }
    return *this;
}

etw_status File::open(const std::string &path, OpenMode mode) noexcept
{
    close();
    if (!parent_directory_exists(path))
        return ETW_ERROR_PATH_NOT_FOUND;
    return open_handle(path, mode);
}

void File::close() noexcept
{
    if (handle_ >= 0)
        close_handle();
    handle_ = -1;
}

namespace {
// All len bytes at offset, in as many calls of some (File::write_some or
// read_some) as it takes; a call that moves nothing ends it with none.
template <typename Byte, typename Some>
etw_status transfer(std::uint64_t offset, Byte *p, std::size_t len, etw_status none, Some some) noexcept
{
    while (len > 0) {
        std::size_t n = 0;
        if (const etw_status st = some(offset, p, len, &n); st != ETW_OK)
            return st;
        if (n == 0)
            return none;
        p += n;
        len -= n;
        offset += n;
    }
    return ETW_OK;
}
} // namespace

etw_status File::write_at(std::uint64_t offset, const void *data, std::size_t len) noexcept
{
    return transfer(offset, static_cast<const std::uint8_t *>(data), len, ETW_ERROR_DISK_FULL,
                    [this](std::uint64_t at, const std::uint8_t *p, std::size_t n, std::size_t *done) {
                        return write_some(at, p, n, done);
                    });
}

etw_status File::read_at(std::uint64_t offset, void *data, std::size_t len) noexcept
{
    return transfer(offset, static_cast<std::uint8_t *>(data), len, ETW_ERROR_HANDLE_EOF,
                    [this](std::uint64_t at, std::uint8_t *p, std::size_t n, std::size_t *done) {
                        return read_some(at, p, n, done);
                    });
}

} // namespace openetw::platform
