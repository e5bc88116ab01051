// A system logger session recording FileIo (DISK_FILE_IO | FILE_IO |
// FILE_IO_INIT) while this thread creates a file in a folder of its own,
// writes it in known chunks, seeks, reads it back, flushes, closes,
// renames and deletes it, and opens a file that is not there: the .etl
// read back holds the Create with the exact path and the CREATE
// disposition, each Write and Read with its size and offset for that
// FileObject and an OperationEnd with the bytes done, the Flush, Cleanup
// and Close, the Rename and Delete (with FileDelete), the Name records
// mapping every FileKey to its path, the missing file's
// STATUS_OBJECT_NAME_NOT_FOUND, the FileRundown of a file still open at
// the stop, and nothing lost. Runs as root (as CI).
#include "system_logger_live.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

namespace {

using namespace syslogtest;

constexpr std::uint32_t kFileIo = ETW_FLAG_DISK_FILE_IO | ETW_FLAG_FILE_IO | ETW_FLAG_FILE_IO_INIT;

struct Ops {
    std::vector<const Seen *> all;
    std::vector<const Seen *> of(const std::string &name, const std::string &field = {}, long long value = 0) const
    {
        std::vector<const Seen *> out;
        for (const Seen *s : all)
            if (s->event_name == name && (field.empty() || number(*s, field) == value))
                out.push_back(s);
        return out;
    }
    // The OperationEnd of an operation (by its IrpPtr): exactly one.
    const Seen *end_of(const Seen &op) const
    {
        const auto ends = of("FileIo/OperationEnd", "IrpPtr", number(op, "IrpPtr"));
        EXPECT_EQ(ends.size(), 1u) << op.event_name << " IrpPtr " << op.value("IrpPtr");
        return ends.empty() ? nullptr : ends[0];
    }
};

} // namespace

TEST(SystemLoggerFileIo, ACreatedWrittenReadRenamedAndDeletedFileArrivesAsWindowsFileIo)
{
    char folder[] = "/tmp/openetw-fileio-XXXXXX";
    ASSERT_NE(::mkdtemp(folder), nullptr);
    const std::string dir = folder, path = dir + "/data.bin", renamed = dir + "/renamed.bin",
                      missing = dir + "/missing.bin", kept = dir + "/kept.txt";
    const std::string file = temp_file("openetw-syslog-fileio");
    Props props("OpenETW system logger fileio " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, kFileIo), ETW_OK) << etw_last_error_message();
    // The writes' stacks (FileIo class, type 68).
    const etw_classic_event_id write_stacks = {
        {0x90cbdc39, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}},
        68,
        {}};
    ASSERT_EQ(etw_session_set_stack_tracing(s, &write_stacks, 1), ETW_OK) << etw_last_error_message();
    const auto tid = std::uint32_t(::syscall(SYS_gettid));

    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    ASSERT_GE(fd, 0);
    const std::size_t chunks[] = {1000, 2000, 3000, 4096};
    std::vector<char> bytes(4096, 'x');
    for (std::size_t n : chunks)
        ASSERT_EQ(::write(fd, bytes.data(), n), ssize_t(n));
    ASSERT_EQ(::lseek(fd, 1000, SEEK_SET), 1000);
    ASSERT_EQ(::read(fd, bytes.data(), 2000), 2000);
    ASSERT_EQ(::pread(fd, bytes.data(), 100, 5000), 100);
    ASSERT_EQ(::fsync(fd), 0);
    ASSERT_EQ(::close(fd), 0);
    ASSERT_EQ(::rename(path.c_str(), renamed.c_str()), 0);
    ASSERT_EQ(::unlink(renamed.c_str()), 0);
    ASSERT_LT(::open(missing.c_str(), O_RDONLY), 0);
    const int still_open = ::open(kept.c_str(), O_CREAT | O_WRONLY, 0600);
    ASSERT_GE(still_open, 0);

    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    ::close(still_open);
    ::unlink(kept.c_str());
    ::rmdir(folder);
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);

    Ops mine;                                            // this thread's operations
    std::map<long long, std::vector<std::string>> names; // FileKey -> the Name records' paths
    std::size_t file_io = 0;
    for (const Seen &r : seen) {
        if ((r.hook_id >> 8) != 0x04)
            continue;
        ++file_io;
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;
        if (r.event_name == "FileIo/Name")
            names[number(r, "FileObject")].push_back(r.value("FileName"));
        if (r.thread_id == tid) {
            EXPECT_EQ(r.process_id, std::uint32_t(::getpid())) << r.event_name;
            mine.all.push_back(&r);
        }
    }
    std::printf("FileIo records: %zu in all, %zu of this thread\n", file_io, mine.all.size());
    const auto name_of = [&](long long key) {
        const auto n = names.find(key);
        return n == names.end() || n->second.empty() ? std::string("<no Name>") : n->second.back();
    };

    // The create: the exact path, FILE_CREATE asked, FILE_CREATED done.
    const auto creates = mine.of("FileIo/Create");
    const Seen *create = nullptr;
    for (const Seen *c : creates)
        if (c->value("OpenPath") == path)
            create = c;
    ASSERT_NE(create, nullptr) << "no Create of " << path;
    EXPECT_EQ(number(*create, "CreateOptions") >> 24, 2) << "FILE_CREATE (O_CREAT | O_EXCL)";
    EXPECT_EQ(number(*create, "TTID"), tid);
    const long long object = number(*create, "FileObject");
    if (const Seen *end = mine.end_of(*create)) {
        EXPECT_EQ(number(*end, "ExtraInfo"), 2) << "FILE_CREATED";
        EXPECT_EQ(number(*end, "NtStatus"), 0);
    }

    // The writes: their sizes at their offsets, each done whole.
    const auto writes = mine.of("FileIo/Write", "FileObject", object);
    ASSERT_EQ(writes.size(), 4u);
    long long offset = 0, key = number(*writes[0], "FileKey");
    for (std::size_t i = 0; i < 4; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(number(*writes[i], "Offset"), offset);
        EXPECT_EQ(number(*writes[i], "IoSize"), (long long)chunks[i]);
        EXPECT_EQ(number(*writes[i], "FileKey"), key);
        EXPECT_EQ(number(*writes[i], "IoFlags") & 0x200, 0x200) << "IRP_WRITE_OPERATION";
        if (const Seen *end = mine.end_of(*writes[i])) {
            EXPECT_EQ(number(*end, "ExtraInfo"), (long long)chunks[i]);
            EXPECT_EQ(number(*end, "NtStatus"), 0);
        }
        offset += (long long)chunks[i];
    }
    EXPECT_EQ(name_of(key), path) << "the Name record of the writes' FileKey";
    EXPECT_EQ(mine.of("FileIo/FileCreate", "FileObject", key).size(), 1u) << "the file was made by the open";

    // Each write followed by its StackWalk (this thread's), and no walk
    // after the events not asked for.
    std::size_t walks = 0;
    for (std::size_t i = 0; i < seen.size(); ++i) {
        if (seen[i].event_name != "StackWalk/Stack")
            continue;
        ++walks;
        ASSERT_GT(i, 0u);
        EXPECT_EQ(seen[i - 1].event_name, "FileIo/Write") << "a walk follows only the asked events";
        EXPECT_EQ(number(seen[i], "EventTimeStamp"), seen[i - 1].timestamp_raw);
    }
    for (const Seen *w : writes) {
        const auto at = std::size_t(w - seen.data());
        ASSERT_LT(at + 1, seen.size());
        const Seen &walk = seen[at + 1];
        ASSERT_EQ(walk.event_name, "StackWalk/Stack")
            << "no StackWalk after the write at offset " << w->value("Offset");
        EXPECT_EQ(number(walk, "StackThread"), tid);
        EXPECT_EQ(number(walk, "StackProcess"), ::getpid());
        // A system call's tracepoint fires on the user's registers: the
        // stack is the caller's, from the write's own return address.
        EXPECT_GT(number(walk, "Stacks[0]"), 0);
        EXPECT_LT((unsigned long long)number(walk, "Stacks[0]"), 0x800000000000ull) << "a user frame first";
    }
    EXPECT_GE(walks, writes.size());

    // The reads: after lseek, at 1000; pread at its own position.
    const auto reads = mine.of("FileIo/Read", "FileObject", object);
    ASSERT_EQ(reads.size(), 2u);
    EXPECT_EQ(number(*reads[0], "Offset"), 1000);
    EXPECT_EQ(number(*reads[0], "IoSize"), 2000);
    EXPECT_EQ(number(*reads[1], "Offset"), 5000);
    EXPECT_EQ(number(*reads[1], "IoSize"), 100);
    if (const Seen *end = mine.end_of(*reads[0])) {
        EXPECT_EQ(number(*end, "ExtraInfo"), 2000);
    }
    if (const Seen *end = mine.end_of(*reads[1])) {
        EXPECT_EQ(number(*end, "ExtraInfo"), 100);
    }

    // Flush, then Cleanup and Close of the same FileObject, each ended.
    for (const char *op : {"FileIo/Flush", "FileIo/Cleanup", "FileIo/Close"}) {
        const auto ops = mine.of(op, "FileObject", object);
        ASSERT_EQ(ops.size(), 1u) << op;
        EXPECT_EQ(number(*ops[0], "FileKey"), key) << op;
        if (const Seen *end = mine.end_of(*ops[0])) {
            EXPECT_EQ(number(*end, "NtStatus"), 0) << op;
        }
    }

    // Rename and Delete: FileRenameInformation of the old name,
    // FileDispositionInformation of the new, which FileDelete then names.
    const auto renames = mine.of("FileIo/Rename");
    ASSERT_EQ(renames.size(), 1u);
    EXPECT_EQ(number(*renames[0], "InfoClass"), 10);
    EXPECT_EQ(name_of(number(*renames[0], "FileKey")), path);
    const auto deletes = mine.of("FileIo/Delete");
    ASSERT_EQ(deletes.size(), 1u);
    EXPECT_EQ(number(*deletes[0], "InfoClass"), 13);
    const long long deleted = number(*deletes[0], "FileKey");
    EXPECT_EQ(name_of(deleted), renamed);
    const auto gone = mine.of("FileIo/FileDelete", "FileObject", deleted);
    ASSERT_EQ(gone.size(), 1u);
    EXPECT_EQ(gone[0]->value("FileName"), renamed);
    for (const Seen *op : {renames[0], deletes[0]})
        if (const Seen *end = mine.end_of(*op)) {
            EXPECT_EQ(number(*end, "NtStatus"), 0) << op->event_name;
        }

    // The missing file: its Create, ended with STATUS_OBJECT_NAME_NOT_FOUND.
    const Seen *absent = nullptr;
    for (const Seen *c : creates)
        if (c->value("OpenPath") == missing)
            absent = c;
    ASSERT_NE(absent, nullptr) << "no Create of " << missing;
    if (const Seen *end = mine.end_of(*absent)) {
        EXPECT_EQ(number(*end, "NtStatus"), 0xC0000034);
        EXPECT_EQ(number(*end, "ExtraInfo"), 0);
    }

    // The file still open at the stop: named again by the rundown.
    std::size_t rundown = 0;
    for (const Seen &r : seen)
        rundown += r.event_name == "FileIo/FileRundown" && r.value("FileName") == kept;
    EXPECT_EQ(rundown, 1u) << "FileRundown of " << kept;
}
