// Memory regions: a process's private anonymous mapping, or a file mapped
// shared between processes (system-wide sessions, docs/SYSTEM_SESSIONS.md).
//
// Rules (every header of src/platform): nothing here is on the
// event-writing path; nothing throws; failures are etw_status values.
// posix/region_posix.cpp and windows/region_windows.cpp implement it
// (Windows: private regions only; the shared ones fail with
// ETW_ERROR_NOT_SUPPORTED, host.hpp's shared_registry_supported()).
#pragma once

#include <openetw/status.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace openetw::platform {

// A block of address space whose pages are backed on first touch. The
// engine addresses everything inside by offsets, so a later named,
// cross-process region can replace the private anonymous one unchanged.
struct Region {
    void *base = nullptr;
    std::size_t size = 0;
    std::intptr_t fd = -1; // the file of a shared region (-1: private)
};
// Maps size bytes, zero-filled, readable and writable, lazily backed
// (commit-on-touch; nothing is reserved against the commit limit).
etw_status region_map_private(Region *out, std::size_t size) noexcept;
// Makes [offset, offset+len) usable before first touch: a shared region
// reserves the file's blocks, so touching them later cannot fault when the
// file system is full (no-op for private regions, committed on touch).
// ETW_ERROR_DISK_FULL when there is no room, ETW_ERROR_NOT_ENOUGH_MEMORY
// when the kernel has no memory for it, ETW_ERROR_WRITE_FAULT otherwise.
etw_status region_commit(const Region &region, std::size_t offset, std::size_t len) noexcept;
// Unmaps the region and closes its file, if any.
void region_unmap(Region *region) noexcept;
// Backs the pages of [p, p+len) (inside a region) now, without changing
// what they hold, so that first writes there take no page fault; safe while
// other threads write there. Linux 5.14+ (MADV_POPULATE_WRITE); elsewhere,
// and when the kernel refuses, nothing happens (pages are backed on touch).
void memory_prefault(void *p, std::size_t len) noexcept;

// Session regions (docs/SYSTEM_SESSIONS.md): a file of size bytes at path,
// created owner-only (a stale file of that name is replaced) and mapped
// shared, its first `backed` bytes reserved (region_commit) before it is
// mapped: nothing in them can fault when touched, here or in a process the
// region is handed to. Statuses of region_commit; no file is left when it
// fails. out->fd stays open so the host can hand the region to the
// processes it admits (channel_send with its descriptor, channel.hpp).
etw_status shared_region_create(Region *out, const std::string &path, std::size_t size, std::size_t backed) noexcept;
// Maps a region file by name (a stopped host's, for recovery) or from a
// descriptor received from its host (fd is adopted), whole, shared.
// ETW_ERROR_FILE_NOT_FOUND, ETW_ERROR_ACCESS_DENIED.
etw_status shared_region_open(Region *out, const std::string &path) noexcept;
etw_status shared_region_adopt(Region *out, std::intptr_t fd) noexcept;
// Closes a descriptor received from another process.
void close_fd(std::intptr_t fd) noexcept;

} // namespace openetw::platform
