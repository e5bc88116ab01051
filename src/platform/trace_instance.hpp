// An ftrace instance of the system logger's own (tracefs
// instances/<name>): a set of per-processor ring buffers, apart from the
// system's and from other users', with chosen tracepoints enabled, read
// page by page through per_cpu/cpuN/trace_pipe_raw. Used for tracepoints
// whose perf samples the kernel does not deliver (kernel/ftrace_source.hpp
// says when). The clock is "mono" (CLOCK_MONOTONIC, as the perf events);
// a full ring drops new events (overwrite off), and the pages say how many.
// posix/trace_instance_posix.cpp (Linux); windows/ answers NOT_SUPPORTED.
#pragma once

#include "base/status.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace openetw::platform {

class TraceInstance {
public:
    TraceInstance() = default;
    TraceInstance(const TraceInstance &) = delete;
    TraceInstance &operator=(const TraceInstance &) = delete;
    ~TraceInstance() { close(); }

    // Makes instances/<prefix>-<pid>-<n> (and removes those of prefix
    // whose process is gone), sets its clock, buffer_kb of ring per
    // processor, and enables events ({system, name}). ETW_ERROR_NOT_SUPPORTED
    // naming what this kernel lacks; ETW_ERROR_ACCESS_DENIED when instances
    // may not be made (root). On failure nothing is left behind.
    Status open(const std::string &prefix, const std::vector<std::pair<std::string, std::string>> &events,
                std::uint32_t buffer_kb);
    // Every page each processor's ring holds now, whole: each(cpu, page).
    Status drain(const std::function<void(std::uint32_t cpu, std::span<const std::uint8_t> page)> &each);
    // Stops recording (what the rings hold can still be drained).
    void disable() noexcept;
    // Disables and removes the instance.
    void close() noexcept;
    // Bytes before a page's first event (events/header_page's data offset).
    std::size_t page_header_size() const noexcept { return header_size_; }
    const std::string &dir() const noexcept { return dir_; }

private:
    std::string dir_;
    std::vector<std::pair<std::uint32_t, int>> rings_; // processor, open trace_pipe_raw
    std::size_t page_size_ = 4096;
    std::size_t header_size_ = 16;
    std::vector<std::uint8_t> page_;
};

} // namespace openetw::platform
