// A small tmpfs for the tests of full file systems (diskfull_test,
// full_tmpfs_test): mounted on a fresh folder in this process's own mount
// namespace (so that it goes with the process, even one that dies of the
// fault a test checks for), unmounted at the end. Needs root; error() says
// why not otherwise.
#pragma once

#include "engine_test_util.hpp"

#include <sched.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

class SmallTmpfs {
public:
    SmallTmpfs(std::size_t bytes, const char *what)
    {
        static const bool private_mounts =
            ::unshare(CLONE_NEWNS) == 0 && ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
        (void)private_mounts;
        dir_ = enginetest::temp_dir() + "/" + enginetest::unique_name(what);
        std::filesystem::create_directories(dir_);
        const std::string options = "size=" + std::to_string(bytes);
        if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) != 0)
            error_ = std::string("mount -t tmpfs ") + dir_ + ": " + std::strerror(errno) + " (needs root)";
    }
    ~SmallTmpfs()
    {
        if (error_.empty())
            ::umount2(dir_.c_str(), MNT_DETACH);
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    SmallTmpfs(const SmallTmpfs &) = delete;
    SmallTmpfs &operator=(const SmallTmpfs &) = delete;
    const std::string &dir() const { return dir_; }
    const std::string &error() const { return error_; }
    // Takes every free byte left, as another user's `dd of=/dev/shm/x` would:
    // the next write that needs space fails.
    void fill() const
    {
        std::ofstream out(dir_ + "/filler", std::ios::binary | std::ios::app);
        const std::string block(4096, 'x');
        while (out.write(block.data(), std::streamsize(block.size())))
            out.flush();
    }
    std::size_t files_named(const std::string &prefix) const
    {
        std::size_t n = 0;
        for (const auto &e : std::filesystem::recursive_directory_iterator(dir_))
            n += e.path().filename().string().rfind(prefix, 0) == 0 ? 1 : 0;
        return n;
    }

private:
    std::string dir_;
    std::string error_;
};
