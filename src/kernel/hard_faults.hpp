// PageFault/HardFault from Linux's events of one fault (MEMORY_HARD_FAULTS):
// Windows writes a HardFault when a fault's page is read from a file, with
// when the fault began, the file and offset, and the bytes read. Linux
// gives these in the faulting thread, in this order:
//
//   exceptions:page_fault_user/_kernel   the fault's start (InitialTime), its address
//   filemap:mm_filemap_fault             the file (dev, inode) and page (index) it wants
//   filemap:mm_filemap_add_to_page_cache the pages read in for it (order: 2^order pages each)
//   perf's PERF_COUNT_SW_PAGE_FAULTS_MAJ the fault's end, when the kernel counted it major
//
// HardFaultPairing keeps each thread's fault in progress in a fixed table
// (kSlots, indexed by thread id: memory does not grow with threads, a
// thread whose slot another took loses its fault, counted as unpaired) and
// makes a HardFaultRead at the end of a major fault whose start it saw at
// the same address. A major fault with no file (an anonymous page read
// back from swap, shared memory) or that read nothing itself (it waited for
// a read another thread or readahead began: Windows counts such a
// collision as no hard fault of its own) makes none, counted. A lost start
// (PERF_RECORD_LOST) makes its end unpaired; a lost page-cache add makes
// the bytes fewer. Samples wait in a queue until settle applies them in
// time order: it holds what arrives between two drains and the margin,
// never more. HardFaultFiles gives the FileObject a file's records carry.
// Not thread-safe: the logger thread's.
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
};

struct HardFaultCounts {
    std::uint64_t written = 0;  // HardFaultReads made
    std::uint64_t unpaired = 0; // major faults whose start was not seen (lost, or the slot retaken)
    std::uint64_t no_file = 0;  // major faults without a file (swap, shared memory)
    std::uint64_t no_read = 0;  // major faults that read nothing themselves
};

class HardFaultPairing {
public:
    // page_shift: the page cache's page (12 on x86, the only architecture
    // with the fault tracepoints).
    explicit HardFaultPairing(std::uint32_t page_shift = 12);

    // A fault begins in tid: it replaces whatever the thread's slot held
    // (a minor fault ends unseen: its successor's start says so).
    void entry(std::uint32_t tid, std::uint64_t time_ns, std::uint64_t address);
    // The fault in progress in tid wants page index of (dev, ino); the
    // first one counts (a retried fault asks again).
    void filemap_fault(std::uint32_t tid, std::uint32_t dev, std::uint64_t ino, std::uint64_t index);
    // A folio of 2^order pages of (dev, ino) entered the page cache in tid.
    void page_cache_add(std::uint32_t tid, std::uint32_t dev, std::uint64_t ino, std::uint32_t order);
    // A major fault ended in tid at address: its HardFaultRead, or empty
    // (counted by why).
    std::optional<HardFaultRead> completed(std::uint32_t pid, std::uint32_t tid, std::uint64_t time_ns,
                                           std::uint64_t address);

    // The same, from samples, queued until settle: page_fault_user/_kernel
    // (address), mm_filemap_fault (s_dev, i_ino, index),
    // mm_filemap_add_to_page_cache (s_dev, i_ino, order), the major faults'
    // event (its addr; its processor and call chain kept for the record).
    // False when a field is missing.
    bool on_entry(const TracepointFormat &format, const TracepointSample &sample);
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
        bool active = false;   // a fault began and has not ended
        bool has_file = false; // mm_filemap_fault seen in it
        std::uint32_t dev = 0;
        std::uint64_t entry_ns = 0, address = 0, ino = 0, index = 0, bytes = 0;
    };
    Slot *in_fault(std::uint32_t tid);
    struct Queued {
        enum class Kind : std::uint8_t { Entry, File, Add, End } kind = Kind::Entry;
        std::uint64_t time = 0;
        std::uint32_t pid = 0, tid = 0, cpu = 0, dev = 0;
        std::uint64_t a = 0, b = 0; // Entry, End: address; File: ino, index; Add: ino, order
        std::vector<std::uint64_t> frames;
    };

    std::uint32_t page_shift_;
    std::vector<Slot> slots_;
    std::vector<Queued> queue_; // samples not yet settled: a drain's and its margin's
    HardFaultCounts counts_;
};

// The FileObject of a hard fault's file. On Windows it is the file's, as
// FileIo_Name records name it; here: the FileKey the FileIo table
// (file_objects.hpp) holds for the file's path while some descriptor has
// it open (so HardFault and FileIo records of one file join), else a key
// of its own per (dev, inode), from a range FileIo's counters do not reach
// (kOwnKeyBase), whose name the caller writes once as a FileIo/Name record
// when DISK_FILE_IO is on. The path is that of the faulting process's
// mapping at the address (/proc/PID/maps), checked against the inode. At
// most kMaxFiles files are kept; past that the table starts over (files
// met again get new keys and Names).
class HardFaultFiles {
public:
    // The path of pid's mapping holding address, if it maps (dev, ino).
    using MappedPath = std::function<bool(std::uint32_t pid, std::uint64_t address, std::uint32_t dev,
                                          std::uint64_t ino, std::string *path)>;
    // FileIo's key of an open path, 0 when none is open (or FileIo is off).
    using HeldKey = std::function<std::uint64_t(const std::string &path)>;
    HardFaultFiles(MappedPath mapped, HeldKey held) : mapped_(std::move(mapped)), held_(std::move(held)) {}

    struct Key {
        std::uint64_t file_object = 0;
        bool new_name = false; // a key of its own just made for a known path: its Name is due
        std::string path;
    };
    Key key_of(std::uint32_t pid, std::uint64_t address, std::uint32_t dev, std::uint64_t ino);
    void set_held(HeldKey held) { held_ = std::move(held); }
    std::size_t size() const noexcept { return files_.size(); }

    static constexpr std::uint64_t kOwnKeyBase = 0x40000000; // fits a 32-bit pointer too
    static constexpr std::uint64_t kKeyStep = 0x40;          // pointer-aligned, as FileIo's
    static constexpr std::size_t kMaxFiles = 4096;

private:
    struct File {
        std::uint64_t own_key = 0;
        std::string path;
    };
    MappedPath mapped_;
    HeldKey held_;
    std::map<std::pair<std::uint32_t, std::uint64_t>, File> files_; // by (dev, ino)
    std::uint64_t next_ = kOwnKeyBase;
};

} // namespace openetw::kernel
