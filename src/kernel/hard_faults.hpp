// PageFault/HardFault from Linux's events of one fault (MEMORY_HARD_FAULTS):
// Windows writes a HardFault when a fault's page is read from a file, with
// when the fault began, the file and offset, and the bytes read. Linux
// gives these in the faulting thread, in this order:
//
//   filemap:mm_filemap_fault             the fault's start (InitialTime): the file (dev,
//                                        inode) and page (index) it wants; fired in
//                                        filemap_fault, microseconds after the exception
//   filemap:mm_filemap_add_to_page_cache the pages read in for it (order: 2^order pages each)
//   perf's PERF_COUNT_SW_PAGE_FAULTS_MAJ the fault's end (address), when the kernel counted
//                                        it major
//
// No event says when a file fault ends minor, nor that a major fault had no
// file fault (swap, shared memory): HardFaultPairing keeps each thread's
// latest file fault start, not yet used, in a fixed table (kSlots, indexed
// by thread id: memory does not grow with threads, a thread whose slot
// another took loses its start) and pairs the thread's next major fault end
// with it; an end uses the start (a start pairs once). A file fault of
// another page replaces the start (the previous one ended minor, unseen); one
// of the same page keeps it (the fault retried after dropping the mmap lock
// to wait for its read asks again). The adds of the start's file in the
// thread between start and end are its bytes. A check (HardFaultFiles::check)
// then reads the page the address maps (/proc/PID/maps) and refuses a pair
// whose address maps another file or page or no file. A major fault with no
// start (swap-in, shared memory: no filemap_fault), or whose pair the check
// refused for no file, makes none (no_file); one whose start is another
// fault's (the check refused another file or page; a start later than the
// end) none either (unpaired); one that read nothing itself (it waited for a
// read another thread or readahead began: Windows counts such a collision as
// no hard fault of its own) none (no_read).
//
// Lost samples (PERF_RECORD_LOST, counted in EventsLost) make a record wrong
// only so: a lost start whose thread's previous file fault was minor and of
// the very page the end's address maps (or a fault of that page that
// get_user_pages took: it has no end) gives the record that earlier start's
// InitialTime, and its ByteCount the thread's adds of the file since; a lost
// end leaves its start pending, so a later major fault of the thread on the
// same page (no file fault between) takes that start's InitialTime and both
// faults' bytes; a lost add makes ByteCount smaller (none: not written). Any
// other loss leaves a fault unwritten (a lost start whose stale predecessor
// maps elsewhere: refused by the check), never written wrong, while the
// faulting process lives for the check; a process gone before the drain
// leaves its pairs unchecked (written as paired). Without a loss, a
// stale start (a minor or get_user_pages fault's) pairs with a swap-in
// (no start of its own) and is written only when the check passes it: a
// private file mapping's page, written and swapped out, read back after
// the thread's file fault of that very page and a fill of the file since.
//
// Samples wait in a queue until settle applies them in time order: it
// holds what arrives between two drains and the margin, never more.
// HardFaultFiles gives the FileObject a file's records carry. Not
// thread-safe: the logger thread's.
#pragma once

#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace openetw::kernel {

// One hard fault, in the perf clock's ns.
struct HardFaultRead {
    std::uint64_t initial_ns = 0; // the fault's start
    std::uint64_t end_ns = 0;     // its end (the record's time)
    std::uint32_t pid = 0, tid = 0;
    std::uint64_t address = 0;
    std::uint32_t dev = 0; // the file's device, as the kernel's dev_t (major << 20 | minor)
    std::uint64_t ino = 0;
    std::uint64_t read_offset = 0; // the wanted page's offset in the file
    std::uint64_t bytes = 0;       // read into the page cache for it
    std::string path;              // the file's, from the mapping the check read (empty: unchecked)
};

struct HardFaultCounts {
    std::uint64_t written = 0;  // HardFaultReads made
    std::uint64_t unpaired = 0; // major faults whose start was another fault's (or lost to another thread's slot)
    std::uint64_t no_file = 0;  // major faults without a file fault (swap, shared memory; or their start lost)
    std::uint64_t no_read = 0;  // major faults that read nothing themselves
};

// What a major fault's address maps against its pair's file page (HardFaultFiles::check).
enum class MappedPage : std::uint8_t {
    Unknown, // unchecked: the process or the mapping is gone
    Same,    // the pair's file (inode) and page
    Other,   // another file or page: the start was another fault's
    NoFile,  // no file (anonymous, a heap or stack): a swap-in paired with another fault's start
};

class HardFaultPairing {
public:
    // What the address of pid maps against (inode ino, page index), its
    // path when Same.
    using Check = std::function<MappedPage(std::uint32_t pid, std::uint64_t address, std::uint64_t ino,
                                           std::uint64_t index, std::string *path)>;
    // page_shift: the page cache's page (12: x86's and most arm64 kernels').
    // Without check every pair is written.
    explicit HardFaultPairing(std::uint32_t page_shift = 12, Check check = {});

    // A file fault in tid wants page index of (dev, ino): the thread's
    // start, replacing an unused one of another page (that fault ended
    // minor); one of the same page is its retry (the start stays).
    void filemap_fault(std::uint32_t tid, std::uint64_t time_ns, std::uint32_t dev, std::uint64_t ino,
                       std::uint64_t index);
    // A folio of 2^order pages of (dev, ino) entered the page cache in tid.
    void page_cache_add(std::uint32_t tid, std::uint32_t dev, std::uint64_t ino, std::uint32_t order);
    // A major fault ended in tid at address: its HardFaultRead with the
    // thread's start, or empty (counted by why). The start is used.
    std::optional<HardFaultRead> completed(std::uint32_t pid, std::uint32_t tid, std::uint64_t time_ns,
                                           std::uint64_t address);

    // The same, from samples, queued until settle: mm_filemap_fault (s_dev,
    // i_ino, index), mm_filemap_add_to_page_cache (s_dev, i_ino, order), the
    // major faults' event (its addr; its processor and call chain kept for
    // the record). False when a field is missing.
    bool on_filemap_fault(const TracepointFormat &format, const TracepointSample &sample);
    bool on_page_cache_add(const TracepointFormat &format, const TracepointSample &sample);
    void on_major_fault(const TracepointSample &sample);
    // A major fault's end with what its record needs besides the read.
    struct Ended {
        HardFaultRead read;
        std::uint32_t cpu = 0;
        std::vector<std::uint64_t> frames;
    };
    // Applies the queued samples stamped up to until_ns, in time order, and
    // hands each read made to done. The rings are read one after another,
    // so a drain can hold a thread's later events (read from a ring read
    // later) without its earlier ones (they come with the next drain): the
    // caller settles only what is older than its drain's start, less a margin.
    void settle(std::uint64_t until_ns, const std::function<void(Ended &&)> &done);
    std::size_t queued() const noexcept { return queue_.size(); }

    const HardFaultCounts &counts() const noexcept { return counts_; }
    static constexpr std::size_t kSlots = 4096;

private:
    struct Slot {
        std::uint32_t tid = 0;
        bool active = false; // a file fault began, no major fault of the thread has used it
        std::uint32_t dev = 0;
        std::uint64_t start_ns = 0, ino = 0, index = 0, bytes = 0;
    };
    struct Queued {
        enum class Kind : std::uint8_t { File, Add, End } kind = Kind::File;
        std::uint64_t time = 0;
        std::uint32_t pid = 0, tid = 0, cpu = 0, dev = 0;
        std::uint64_t a = 0, b = 0; // File: ino, index; Add: ino, order; End: address
        std::vector<std::uint64_t> frames;
    };

    std::uint32_t page_shift_;
    Check check_;
    std::vector<Slot> slots_;
    std::vector<Queued> queue_; // samples not yet settled: a drain's and its margin's
    HardFaultCounts counts_;
};

// One mapping of a process (/proc/PID/maps): [start, end) maps the file
// inode from offset; path empty or not absolute for no file.
struct HardFaultMapping {
    std::uint64_t start = 0, end = 0, offset = 0, inode = 0;
    std::string path;
};

// The FileObject of a hard fault's file, and the check of its pair. On
// Windows the FileObject is the file's, as FileIo_Name records name it;
// here: the FileKey the FileIo table (file_objects.hpp) holds for the
// file's path while some descriptor has it open (so HardFault and FileIo
// records of one file join), else a key of its own per (dev, inode), from
// a range FileIo's counters do not reach (kOwnKeyBase), whose name the
// caller writes once as a FileIo/Name record when DISK_FILE_IO is on. The
// path is that of the faulting process's mapping at the address, which
// check reads: the mappings of the last kMaxProcesses processes are kept
// and read again only when they do not show the pair's page at the address
// (a process not kept, a mapping made, changed or gone since). At most
// kMaxFiles files are kept; past that the table starts over (files met
// again get new keys and Names).
class HardFaultFiles {
public:
    // pid's mappings, false when they cannot be read (the process ended).
    using ReadMappings = std::function<bool(std::uint32_t pid, std::vector<HardFaultMapping> *maps)>;
    // FileIo's key of an open path, 0 when none is open (or FileIo is off).
    using HeldKey = std::function<std::uint64_t(const std::string &path)>;
    HardFaultFiles(ReadMappings read, HeldKey held, std::uint32_t page_shift = 12)
        : read_(std::move(read)), held_(std::move(held)), page_shift_(page_shift)
    {}

    // What pid's address maps against page index of inode ino (the device
    // is not compared: btrfs and overlayfs show another in the maps than the
    // page cache's superblock has); the mapping's path when Same.
    MappedPage check(std::uint32_t pid, std::uint64_t address, std::uint64_t ino, std::uint64_t index,
                     std::string *path);
    HardFaultPairing::Check checker()
    {
        return [this](std::uint32_t pid, std::uint64_t address, std::uint64_t ino, std::uint64_t index,
                      std::string *path) { return check(pid, address, ino, index, path); };
    }

    struct Key {
        std::uint64_t file_object = 0;
        bool new_name = false; // a key of its own whose Name is due (its path known)
        std::string path;
    };
    // path: the file's as check gave it, empty when unknown (the first
    // known one is kept).
    Key key_of(std::uint32_t dev, std::uint64_t ino, const std::string &path);
    void set_held(HeldKey held) { held_ = std::move(held); }
    std::size_t size() const noexcept { return files_.size(); }
    std::size_t processes() const noexcept { return maps_.size(); }

    static constexpr std::uint64_t kOwnKeyBase = 0x40000000; // fits a 32-bit pointer too
    static constexpr std::uint64_t kKeyStep = 0x40;          // pointer-aligned, as FileIo's
    static constexpr std::size_t kMaxFiles = 4096;
    static constexpr std::size_t kMaxProcesses = 16;

private:
    struct File {
        std::uint64_t own_key = 0;
        bool named = false; // its own key's Name handed out
        std::string path;
    };
    ReadMappings read_;
    HeldKey held_;
    std::uint32_t page_shift_;
    std::map<std::pair<std::uint32_t, std::uint64_t>, File> files_; // by (dev, ino)
    std::map<std::uint32_t, std::vector<HardFaultMapping>> maps_;   // by pid, sorted by start
    std::uint64_t next_ = kOwnKeyBase;
};

} // namespace openetw::kernel
