// Windows part of perf_events.hpp: perf events are Linux's (Windows has its
// own kernel logger), so nothing opens.
#include "platform/perf_events.hpp"

namespace openetw::platform {

namespace {

Status not_supported()
{
    return Fail(ETW_ERROR_NOT_SUPPORTED, "perf events are Linux's: Windows records its kernel with its own logger");
}

} // namespace

struct PerfEventSet::Impl {};

PerfEventSet::PerfEventSet() noexcept = default;
PerfEventSet::~PerfEventSet() = default;
PerfEventSet::PerfEventSet(PerfEventSet &&) noexcept = default;
PerfEventSet &PerfEventSet::operator=(PerfEventSet &&) noexcept = default;
Status PerfEventSet::open(const PerfEventSpec &) { return not_supported(); }
Status PerfEventSet::enable() { return not_supported(); }
Status PerfEventSet::disable() { return not_supported(); }
void PerfEventSet::close() noexcept {}
bool PerfEventSet::is_open() const noexcept { return false; }
std::size_t PerfEventSet::processor_count() const noexcept { return 0; }
Status PerfEventSet::drain(const PerfRecordFn &, PerfDrainCounts *) { return not_supported(); }
Status PerfEventSet::wait(std::int64_t, bool *woken)
{
    *woken = false;
    return not_supported();
}
void PerfEventSet::wake() noexcept {}
std::intptr_t PerfEventSet::wait_handle() const noexcept { return -1; }

} // namespace openetw::platform
