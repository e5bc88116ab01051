// The sampled profile's records: PerfInfo/SampledProfile (the instruction a
// processor was running, and its thread, at each tick of the profile
// clock) and StackWalk/Stack (the call stack of an event, logged right
// after it), with the perf samples (PERF_RECORD_SAMPLE of the processor
// clock: IP, TID, TIME, CPU, CALLCHAIN) they are made from.
//
// Windows logs both with a PERFINFO_TRACE_HEADER (no thread or process in
// the header: the payload names them): SampledProfile as hook 0x0F2E
// version 2, StackWalk as hook 0x1820 version 2.
#pragma once

#include "kernel/kernel_records.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace openetw::kernel {

inline constexpr std::uint8_t kGroupStackWalk = 0x18;
inline constexpr std::uint8_t kTypeSampledProfile = 46;
inline constexpr std::uint8_t kTypeStackWalk = 32;
inline constexpr std::uint16_t kSampledProfileVersion = 2;
inline constexpr std::uint16_t kStackWalkVersion = 2;
// StackWalk_Event's Stack1..Stack192: the deepest stack a record carries.
inline constexpr std::size_t kMaxStackFrames = 192;

// SampledProfile: InstructionPointer (pointer), ThreadId, Count (u16: the
// samples this record stands for, always 1 here), Reserved (u16).
Bytes sampled_profile_payload(std::uint64_t instruction_pointer, std::uint32_t thread_id, std::uint32_t pointer_size);
Bytes sampled_profile_record(std::int64_t timestamp, std::uint64_t instruction_pointer, std::uint32_t thread_id,
                             std::uint32_t pointer_size);

// StackWalk_Event: EventTimeStamp (the stacked event's header timestamp,
// which matches the two), StackProcess, StackThread, then the frames,
// innermost first, pointer-sized (at most kMaxStackFrames; more are cut).
struct StackFields {
    std::int64_t event_timestamp = 0;
    std::uint32_t process_id = 0;
    std::uint32_t thread_id = 0;
    std::vector<std::uint64_t> frames;
};
Bytes stack_walk_payload(const StackFields &s, std::uint32_t pointer_size);
Bytes stack_walk_record(std::int64_t timestamp, const StackFields &s, std::uint32_t pointer_size);
// The StackWalk record of an event stamped timestamp, its frames cut to
// what a record of at most max_record bytes holds (innermost kept); empty
// when there are no frames.
Bytes stack_walk_record_within(std::int64_t timestamp, StackFields s, std::uint32_t pointer_size,
                               std::size_t max_record);

// A perf call chain (PERF_SAMPLE_CALLCHAIN: u64 nr, then nr addresses) at
// the start of at: its frames appended, the context markers (kernel, user)
// dropped. The bytes it spans; nullopt when at is shorter than nr says.
std::optional<std::size_t> parse_callchain(std::span<const std::uint8_t> at, std::vector<std::uint64_t> *frames);

// A PERF_RECORD_SAMPLE of the processor clock, sample_type IP|TID|TIME|CPU
// and, when with_callchain, CALLCHAIN: its fields, the call chain's context
// markers (kernel, user) dropped. Empty when the record is too short or is
// not a sample.
struct ProfileSample {
    std::uint64_t ip = 0;
    std::uint32_t pid = 0, tid = 0;
    std::uint64_t time = 0; // perf clock, ns
    std::uint32_t cpu = 0;
    std::vector<std::uint64_t> frames; // innermost first: kernel frames, then user frames
};
std::optional<ProfileSample> parse_profile_sample(std::span<const std::uint8_t> record, bool with_callchain);

} // namespace openetw::kernel
