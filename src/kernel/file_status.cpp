#include "kernel/file_status.hpp"

#include "kernel/syscall_records.hpp"

namespace openetw::kernel {

namespace {

struct ErrnoStatus {
    std::uint16_t errno_value;
    std::uint32_t status;
};
// Where a file request's status differs from the general table: a file
// system refuses with STATUS_ACCESS_DENIED whether a mode bit or a
// capability is missing, and names a missing folder on the way apart.
constexpr ErrnoStatus kFileStatus[] = {
    {1, 0xC0000022},  // EPERM -> STATUS_ACCESS_DENIED
    {2, 0xC0000034},  // ENOENT -> STATUS_OBJECT_NAME_NOT_FOUND
    {13, 0xC0000022}, // EACCES -> STATUS_ACCESS_DENIED
    {17, 0xC0000035}, // EEXIST -> STATUS_OBJECT_NAME_COLLISION
    {20, 0xC000003A}, // ENOTDIR -> STATUS_OBJECT_PATH_NOT_FOUND
    {40, 0xC0000280}, // ELOOP -> STATUS_REPARSE_POINT_NOT_RESOLVED
};

} // namespace

std::uint32_t file_nt_status(std::int64_t ret)
{
    if (ret < 0 && ret >= -4095)
        for (const ErrnoStatus &m : kFileStatus)
            if (m.errno_value == std::uint32_t(-ret))
                return m.status;
    return nt_status_from_linux_return(ret);
}

} // namespace openetw::kernel
