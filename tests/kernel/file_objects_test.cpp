// The (process, descriptor) table of the FileIo events: a new FileObject
// per open, one FileKey per path while open, descriptors not seen opened
// resolved once (files by their path and position; sockets and pipes
// remembered as not files), entries gone at close and with their process.
#include "kernel/file_objects.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace openetw::kernel;

namespace {

struct FakeProc {
    std::map<std::pair<std::uint32_t, int>, FdTarget> fds;
    int lookups = 0;
    FdResolver resolver()
    {
        return [this](std::uint32_t pid, int fd, FdTarget *out) {
            ++lookups;
            const auto i = fds.find({pid, fd});
            if (i == fds.end())
                return false;
            *out = i->second;
            return true;
        };
    }
};

} // namespace

TEST(FileObjects, EachOpenIsANewObjectAndEachPathOneKeyWhileOpen)
{
    FakeProc proc;
    FileObjects t(proc.resolver());
    bool new_key = false;
    const OpenFile a = t.opened(10, 3, "/d/a", 0, &new_key);
    EXPECT_TRUE(new_key) << "the first open of a path makes its key";
    EXPECT_EQ(a.offset, 0u);
    const OpenFile a2 = t.opened(11, 5, "/d/a", 0, &new_key);
    EXPECT_FALSE(new_key) << "a second open of the path shares its key";
    EXPECT_EQ(a2.file_key, a.file_key);
    EXPECT_NE(a2.file_object, a.file_object);
    const OpenFile b = t.opened(10, 4, "/d/b", 0, &new_key);
    EXPECT_TRUE(new_key);
    const std::set<std::uint64_t> ids = {a.file_object, a.file_key, a2.file_object, b.file_object, b.file_key};
    EXPECT_EQ(ids.size(), 5u) << "FileObjects and FileKeys never collide";
    EXPECT_EQ(t.key_of("/d/a", &new_key), a.file_key);
    EXPECT_FALSE(new_key);

    ASSERT_TRUE(t.closed(10, 3).has_value());
    EXPECT_EQ(t.key_count(), 2u) << "/d/a is still open as (11, 5)";
    EXPECT_EQ(t.closed(11, 5)->file_object, a2.file_object);
    EXPECT_EQ(t.key_count(), 1u) << "the last close lets the key go";
    const std::uint64_t fresh = t.key_of("/d/a", &new_key);
    EXPECT_TRUE(new_key);
    EXPECT_NE(fresh, a.file_key);
    EXPECT_EQ(t.key_count(), 1u) << "a key nothing holds is not kept";
    EXPECT_FALSE(t.closed(10, 3).has_value()) << "closed twice";
    EXPECT_EQ(proc.lookups, 0) << "opened descriptors need no lookup";

    const auto keys = t.open_keys();
    ASSERT_EQ(keys.size(), 1u);
    EXPECT_EQ(keys[0], (std::pair<std::uint64_t, std::string>{b.file_key, "/d/b"}));
    EXPECT_NE(t.next_irp(), t.next_irp());
}

TEST(FileObjects, DescriptorsNotSeenOpenedAreResolvedOnceAndNonFilesRemembered)
{
    FakeProc proc;
    proc.fds[{20, 1}] = {"/var/log/x.log", 4096, 02000};
    proc.fds[{20, 7}] = {"socket:[1234]", 0, 0};
    FileObjects t(proc.resolver());
    bool new_key = false;
    OpenFile *f = t.find(20, 1, &new_key);
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(new_key);
    EXPECT_EQ(f->path, "/var/log/x.log");
    EXPECT_EQ(f->offset, 4096u) << "the position the resolver read";
    EXPECT_EQ(f->flags, 02000u);
    f->offset += 10;
    EXPECT_EQ(t.find(20, 1, &new_key)->offset, 4106u);
    EXPECT_FALSE(new_key);
    EXPECT_EQ(t.find(20, 7, &new_key), nullptr) << "a socket is not a file";
    EXPECT_EQ(t.find(20, 7, &new_key), nullptr);
    EXPECT_EQ(proc.lookups, 2) << "each descriptor looked up once";
    EXPECT_EQ(t.find(20, 9, &new_key), nullptr) << "unresolvable";
    EXPECT_EQ(t.find(20, 9, &new_key), nullptr);
    EXPECT_EQ(proc.lookups, 4) << "an unresolvable descriptor is not remembered (it may be opened yet)";
    EXPECT_FALSE(t.closed(20, 7).has_value()) << "a socket's close is no file's";
    EXPECT_EQ(t.find(20, 7, &new_key), nullptr);
    EXPECT_EQ(proc.lookups, 5) << "a closed descriptor is looked up anew";
}

TEST(FileObjects, AnEndedProcesssDescriptorsAndKeysAreDropped)
{
    FakeProc proc;
    FileObjects t(proc.resolver());
    bool new_key = false;
    for (int fd = 3; fd < 100; ++fd)
        t.opened(30, fd, "/f" + std::to_string(fd), 0, &new_key);
    t.opened(31, 3, "/f3", 0, &new_key);
    t.opened(32, 3, "/g", 0, &new_key);
    EXPECT_EQ(t.size(), 99u);
    t.forget_ended([](std::uint32_t pid) { return pid != 30; });
    EXPECT_EQ(t.size(), 2u);
    EXPECT_EQ(t.key_count(), 2u) << "/f3 held by 31, /g by 32";
    bool found = false;
    EXPECT_NE(t.find(31, 3, &found), nullptr);
    t.forget_ended([](std::uint32_t) { return false; });
    EXPECT_EQ(t.size(), 0u);
    EXPECT_EQ(t.key_count(), 0u);
}

TEST(FileObjects, AReusedDescriptorLetsItsOldFileGo)
{
    FakeProc proc;
    FileObjects t(proc.resolver());
    bool new_key = false;
    const OpenFile a = t.opened(40, 3, "/a", 0, &new_key);
    const OpenFile b = t.opened(40, 3, "/b", 0, &new_key);
    EXPECT_NE(a.file_object, b.file_object);
    EXPECT_EQ(t.size(), 1u);
    EXPECT_EQ(t.key_count(), 1u) << "/a's key released";
}
