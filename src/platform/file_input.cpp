// std::FILE with 64-bit offsets; UTF-8 paths become UTF-16 on Windows.
#if !defined(_WIN32)
#define _FILE_OFFSET_BITS 64
#endif

#include "platform/file_input.hpp"

#include "base/utf.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <sys/types.h>
#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace openetw::platform {

namespace {

#if defined(_WIN32)
int seek64(std::FILE *f, std::uint64_t off) { return _fseeki64(f, static_cast<__int64>(off), SEEK_SET); }
#else
int seek64(std::FILE *f, std::uint64_t off) { return fseeko(f, static_cast<off_t>(off), SEEK_SET); }
#endif

class FileInput final : public RandomAccessInput {
public:
    FileInput(std::FILE *f, std::uint64_t size, std::string path) : f_(f), size_(size), path_(std::move(path)) {}
    ~FileInput() override { std::fclose(f_); }
    FileInput(const FileInput &) = delete;
    FileInput &operator=(const FileInput &) = delete;

    std::uint64_t size() const override { return size_; }

    Status read_at(std::uint64_t offset, std::uint8_t *dst, std::size_t n, std::size_t &got) override
    {
        got = 0;
        if (offset >= size_ || n == 0)
            return Status::ok();
        // Sequential reads need no seek; skipping one keeps stdio's buffer.
        if (offset != position_ && seek64(f_, offset) != 0)
            return Fail(ETW_ERROR_READ_FAULT,
                        path_ + ": cannot seek to offset " + std::to_string(offset) + ": " + std::strerror(errno));
        position_ = offset;
        got = std::fread(dst, 1, n, f_);
        position_ += got;
        if (got < n && std::ferror(f_)) {
            std::clearerr(f_);
            position_ = UINT64_MAX;
            return Fail(ETW_ERROR_READ_FAULT,
                        path_ + ": read error at offset " + std::to_string(offset) + ": " + std::strerror(errno));
        }
        return Status::ok();
    }

private:
    std::FILE *f_;
    std::uint64_t size_;
    std::string path_;
    std::uint64_t position_ = 0;
};

class MemoryInput final : public RandomAccessInput {
public:
    explicit MemoryInput(std::vector<std::uint8_t> bytes) : bytes_(std::move(bytes)) {}
    std::uint64_t size() const override { return bytes_.size(); }
    Status read_at(std::uint64_t offset, std::uint8_t *dst, std::size_t n, std::size_t &got) override
    {
        got = 0;
        if (offset >= bytes_.size())
            return Status::ok();
        const std::size_t avail = bytes_.size() - static_cast<std::size_t>(offset);
        got = n < avail ? n : avail;
        if (got)
            std::memcpy(dst, bytes_.data() + offset, got);
        return Status::ok();
    }

private:
    std::vector<std::uint8_t> bytes_;
};

Status open_error(const std::string &path, int err)
{
    const std::string why = path + ": cannot open: " + std::strerror(err);
    if (err == ENOENT || err == ENOTDIR)
        return Fail(ETW_ERROR_FILE_NOT_FOUND, why);
    if (err == EACCES || err == EPERM || err == EISDIR)
        return Fail(ETW_ERROR_ACCESS_DENIED, why);
    return Fail(ETW_ERROR_READ_FAULT, why);
}

} // namespace

Status read_whole(const std::string &path, std::uint64_t limit, const char *what, std::vector<std::uint8_t> &bytes)
{
    std::unique_ptr<RandomAccessInput> input;
    if (Status st = open_file_input(path, input); !st)
        return st;
    const std::uint64_t size = input->size();
    if (size > limit)
        return Fail(ETW_ERROR_INVALID_DATA, std::string(what) + " '" + path + "' has " + std::to_string(size) +
                                                " bytes; at most " + std::to_string(limit) + " are read");
    bytes.resize(static_cast<std::size_t>(size));
    std::size_t got = 0;
    if (Status st = input->read_at(0, bytes.data(), bytes.size(), got); !st)
        return st;
    if (got != bytes.size())
        return Fail(ETW_ERROR_READ_FAULT, path + ": the file shrank while it was read");
    return Status::ok();
}

Status open_file_input(const std::string &path, std::unique_ptr<RandomAccessInput> &out)
{
#if defined(_WIN32)
    const auto wide = utf8_to_utf16(path);
    if (!wide)
        return Fail(ETW_ERROR_NO_UNICODE_TRANSLATION, "the path is not valid UTF-8");
    const wchar_t *wpath = reinterpret_cast<const wchar_t *>(wide->c_str());
    std::FILE *f = _wfopen(wpath, L"rb");
    if (!f) {
        const int err = errno;
        struct _stat64 info;
        // Windows refuses to open folders with varying errno values: say what it is.
        if (_wstat64(wpath, &info) == 0 && (info.st_mode & _S_IFDIR))
            return Fail(ETW_ERROR_ACCESS_DENIED, path + ": not a regular file");
        return open_error(path, err);
    }
    struct _stat64 st;
    if (_fstat64(_fileno(f), &st) != 0) {
        const int err = errno;
        std::fclose(f);
        return open_error(path, err);
    }
    const bool regular = (st.st_mode & _S_IFREG) != 0;
#else
    // O_NONBLOCK: opening a FIFO with no writer (or a device) would block
    // forever; it is refused below as not a regular file. The flag is
    // cleared again for reading.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return open_error(path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return open_error(path, err);
    }
    const bool regular = S_ISREG(st.st_mode);
    if (!regular) {
        ::close(fd);
        return Fail(ETW_ERROR_ACCESS_DENIED, path + ": not a regular file");
    }
    std::FILE *f = nullptr;
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 || (f = fdopen(fd, "rb")) == nullptr) {
        const int err = errno;
        ::close(fd);
        return open_error(path, err);
    }
#endif
    if (!regular) {
        std::fclose(f);
        return Fail(ETW_ERROR_ACCESS_DENIED, path + ": not a regular file");
    }
    out = std::make_unique<FileInput>(f, static_cast<std::uint64_t>(st.st_size), path);
    return Status::ok();
}

std::unique_ptr<RandomAccessInput> memory_input(std::vector<std::uint8_t> bytes)
{
    return std::make_unique<MemoryInput>(std::move(bytes));
}

} // namespace openetw::platform
