#include "kernel/pagefault_records.hpp"

#include "kernel/payload_bytes.hpp"

namespace openetw::kernel {

Bytes page_fault_payload(const PageFaultFields &f, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.ptr(f.virtual_address).ptr(f.program_counter);
    return w.take();
}

Bytes page_fault_record(PageFaultType type, HeaderFields header, const PageFaultFields &f, std::uint32_t pointer_size)
{
    header.hook_id = hook_id(kGroupMemory, std::uint8_t(type));
    header.version = kPageFaultVersion;
    return encode_record(HeaderKind::System, header, pointer_size, page_fault_payload(f, pointer_size));
}

Bytes hard_fault_payload(const HardFaultFields &f, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.u64(std::uint64_t(f.initial_time)).u64(f.read_offset).ptr(f.virtual_address).ptr(f.file_object);
    w.u32(f.thread_id).u32(f.byte_count);
    return w.take();
}

Bytes hard_fault_record(std::int64_t timestamp, const HardFaultFields &f, std::uint32_t pointer_size)
{
    return perfinfo_record(hook_id(kGroupMemory, kTypeHardFault), kPageFaultVersion, timestamp, pointer_size,
                           hard_fault_payload(f, pointer_size));
}

PageFaultType page_fault_type(std::uint64_t error_code)
{
    constexpr std::uint64_t kPresent = 0x1, kWrite = 0x2, kReserved = 0x8, kFetch = 0x10, kKey = 0x20;
    if (error_code & (kReserved | kKey))
        return PageFaultType::AccessViolation;
    if (!(error_code & kPresent))
        return PageFaultType::DemandZeroFault;
    if ((error_code & kWrite) && !(error_code & kFetch))
        return PageFaultType::CopyOnWrite;
    return PageFaultType::AccessViolation;
}

std::optional<PageFaultSample> page_fault_from_sample(const TracepointFormat &format,
                                                      std::span<const std::uint8_t> sample)
{
    const auto address = format.u(sample, "address");
    const auto ip = format.u(sample, "ip");
    const auto error_code = format.u(sample, "error_code");
    if (!address || !ip || !error_code)
        return std::nullopt;
    PageFaultSample out;
    out.type = page_fault_type(*error_code);
    out.fields.virtual_address = *address;
    out.fields.program_counter = *ip;
    return out;
}

Bytes page_fault_record_from_sample(const TracepointFormat &format, const TracepointSample &sample,
                                    const PerfClock &clock, std::uint32_t pointer_size)
{
    const auto f = page_fault_from_sample(format, sample.raw);
    if (!f)
        return {};
    HeaderFields h;
    h.thread_id = sample.tid;
    h.process_id = sample.pid;
    h.timestamp = clock.to_session(sample.time);
    return page_fault_record(f->type, h, f->fields, pointer_size);
}

} // namespace openetw::kernel
