#include "kernel/syscall_records.hpp"

#include "kernel/payload_bytes.hpp"

namespace openetw::kernel {

namespace {

Bytes perfinfo(std::uint8_t type, std::int64_t timestamp, std::uint32_t pointer_size, const Bytes &payload)
{
    return perfinfo_record(hook_id(kGroupPerfInfo, type), kSysCallVersion, timestamp, pointer_size, payload);
}

// Linux errno -> the NTSTATUS of the same meaning (ntstatus.h values).
struct ErrnoStatus {
    std::uint16_t errno_value;
    std::uint32_t status;
};
constexpr ErrnoStatus kErrnoStatus[] = {
    {1, 0xC0000061},   // EPERM -> STATUS_PRIVILEGE_NOT_HELD
    {2, 0xC0000034},   // ENOENT -> STATUS_OBJECT_NAME_NOT_FOUND
    {3, 0xC000000B},   // ESRCH -> STATUS_INVALID_CID
    {5, 0xC0000185},   // EIO -> STATUS_IO_DEVICE_ERROR
    {6, 0xC000000E},   // ENXIO -> STATUS_NO_SUCH_DEVICE
    {8, 0xC000007B},   // ENOEXEC -> STATUS_INVALID_IMAGE_FORMAT
    {9, 0xC0000008},   // EBADF -> STATUS_INVALID_HANDLE
    {11, 0xC00000D8},  // EAGAIN -> STATUS_CANT_WAIT
    {12, 0xC0000017},  // ENOMEM -> STATUS_NO_MEMORY
    {13, 0xC0000022},  // EACCES -> STATUS_ACCESS_DENIED
    {14, 0xC0000005},  // EFAULT -> STATUS_ACCESS_VIOLATION
    {16, 0x80000011},  // EBUSY -> STATUS_DEVICE_BUSY
    {17, 0xC0000035},  // EEXIST -> STATUS_OBJECT_NAME_COLLISION
    {18, 0xC00000D4},  // EXDEV -> STATUS_NOT_SAME_DEVICE
    {19, 0xC000000E},  // ENODEV -> STATUS_NO_SUCH_DEVICE
    {20, 0xC0000103},  // ENOTDIR -> STATUS_NOT_A_DIRECTORY
    {21, 0xC00000BA},  // EISDIR -> STATUS_FILE_IS_A_DIRECTORY
    {22, 0xC000000D},  // EINVAL -> STATUS_INVALID_PARAMETER
    {23, 0xC000011F},  // ENFILE -> STATUS_TOO_MANY_OPENED_FILES
    {24, 0xC000011F},  // EMFILE -> STATUS_TOO_MANY_OPENED_FILES
    {25, 0xC0000010},  // ENOTTY -> STATUS_INVALID_DEVICE_REQUEST
    {27, 0xC0000904},  // EFBIG -> STATUS_FILE_TOO_LARGE
    {28, 0xC000007F},  // ENOSPC -> STATUS_DISK_FULL
    {30, 0xC00000A2},  // EROFS -> STATUS_MEDIA_WRITE_PROTECTED
    {32, 0xC000014B},  // EPIPE -> STATUS_PIPE_BROKEN
    {36, 0xC0000106},  // ENAMETOOLONG -> STATUS_NAME_TOO_LONG
    {38, 0xC0000002},  // ENOSYS -> STATUS_NOT_IMPLEMENTED
    {39, 0xC0000101},  // ENOTEMPTY -> STATUS_DIRECTORY_NOT_EMPTY
    {95, 0xC00000BB},  // EOPNOTSUPP -> STATUS_NOT_SUPPORTED
    {98, 0xC000020A},  // EADDRINUSE -> STATUS_ADDRESS_ALREADY_EXISTS
    {101, 0xC000023C}, // ENETUNREACH -> STATUS_NETWORK_UNREACHABLE
    {104, 0xC000020D}, // ECONNRESET -> STATUS_CONNECTION_RESET
    {110, 0xC00000B5}, // ETIMEDOUT -> STATUS_IO_TIMEOUT
    {111, 0xC0000236}, // ECONNREFUSED -> STATUS_CONNECTION_REFUSED
    {113, 0xC000023D}, // EHOSTUNREACH -> STATUS_HOST_UNREACHABLE
    {125, 0xC0000120}, // ECANCELED -> STATUS_CANCELLED
};

} // namespace

Bytes syscall_enter_payload(std::uint64_t syscall_address, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.ptr(syscall_address);
    return w.take();
}

Bytes syscall_enter_record(std::int64_t timestamp, std::uint64_t syscall_address, std::uint32_t pointer_size)
{
    return perfinfo(kTypeSysCallEnter, timestamp, pointer_size, syscall_enter_payload(syscall_address, pointer_size));
}

Bytes syscall_exit_payload(std::uint32_t nt_status)
{
    PayloadBytes w(8);
    w.u32(nt_status);
    return w.take();
}

Bytes syscall_exit_record(std::int64_t timestamp, std::uint32_t nt_status, std::uint32_t pointer_size)
{
    return perfinfo(kTypeSysCallExit, timestamp, pointer_size, syscall_exit_payload(nt_status));
}

std::uint32_t nt_status_from_linux_return(std::int64_t ret)
{
    // The kernel's error range (IS_ERR_VALUE): other values are results,
    // including addresses mmap returns that look negative as signed.
    if (ret >= 0 || ret < -4095)
        return 0; // STATUS_SUCCESS
    const auto e = std::uint32_t(-ret);
    for (const ErrnoStatus &m : kErrnoStatus)
        if (m.errno_value == e)
            return m.status;
    return 0xE0000000u | e;
}

std::optional<std::int64_t> syscall_number(const TracepointFormat &format, std::span<const std::uint8_t> sample)
{
    return format.i(sample, "id");
}

std::optional<std::int64_t> syscall_return(const TracepointFormat &format, std::span<const std::uint8_t> sample)
{
    return format.i(sample, "ret");
}

Bytes syscall_enter_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                                std::uint32_t pointer_size)
{
    const auto number = syscall_number(format, sample.raw);
    if (!number)
        return {};
    return syscall_enter_record(clock.to_session(sample.time), std::uint64_t(*number), pointer_size);
}

Bytes syscall_exit_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                               std::uint32_t pointer_size)
{
    const auto ret = syscall_return(format, sample.raw);
    if (!ret)
        return {};
    return syscall_exit_record(clock.to_session(sample.time), nt_status_from_linux_return(*ret), pointer_size);
}

} // namespace openetw::kernel
