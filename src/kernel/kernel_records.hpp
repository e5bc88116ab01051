// Windows kernel event records as the NT Kernel Logger writes them: the
// system-logger headers (SYSTEM_TRACE_HEADER, its compact form,
// PERFINFO_TRACE_HEADER; ETL_FORMAT.md 3.1-3.2) followed by the MOF payload
// of a kernel class (Process V4, Thread V3, Image V3), for 64- and 32-bit
// pointer layouts. Pure functions over bytes: no I/O, no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openetw::kernel {

using Bytes = std::vector<std::uint8_t>;

// EVENT_TRACE_GROUP_* >> 8: the high byte of a HookId.
inline constexpr std::uint8_t kGroupDiskIo = 0x01;
inline constexpr std::uint8_t kGroupMemory = 0x02;
inline constexpr std::uint8_t kGroupProcess = 0x03;
inline constexpr std::uint8_t kGroupFile = 0x04;
inline constexpr std::uint8_t kGroupThread = 0x05;
inline constexpr std::uint8_t kGroupTcpIp = 0x06;
inline constexpr std::uint8_t kGroupRegistry = 0x09;
inline constexpr std::uint8_t kGroupUdpIp = 0x11;
inline constexpr std::uint8_t kGroupImage = 0x14;
inline constexpr std::uint8_t kGroupPerfInfo = 0x0F;

// HookId = group << 8 | event type, as Windows composes it.
constexpr std::uint16_t hook_id(std::uint8_t group, std::uint8_t type) { return std::uint16_t(group << 8 | type); }

// The event types these classes share (EVENT_TRACE_TYPE_START...).
enum class Opcode : std::uint8_t { Start = 1, End = 2, DCStart = 3, DCEnd = 4, Load = 10 };

// Event versions of the Windows 10 classes written here.
inline constexpr std::uint16_t kProcessVersion = 4; // Process_V4_TypeGroup1
inline constexpr std::uint16_t kThreadVersion = 3;  // Thread_V3_TypeGroup1
inline constexpr std::uint16_t kImageVersion = 3;   // Image_Load (V3)

// The largest record: Size is 16 bits. A session with small buffers passes
// a smaller limit (a record must stay below its buffer size - 0x48).
inline constexpr std::size_t kMaxRecordSize = 0xFFF8;

// The header fields a record's writer knows; Size and HeaderType are the encoder's.
struct HeaderFields {
    std::uint16_t hook_id = 0;
    std::uint16_t version = 0; // the event version (the low bits of the Version word)
    std::uint32_t thread_id = 0;
    std::uint32_t process_id = 0;
    std::int64_t timestamp = 0;    // raw session clock
    std::uint32_t kernel_time = 0; // SYSTEM only: CPU time in clock ticks
    std::uint32_t user_time = 0;
};

enum class HeaderKind : std::uint8_t {
    System,   // SYSTEM_TRACE_HEADER, 0x20 bytes (HeaderType 1/2)
    Compact,  // compact SYSTEM_TRACE_HEADER, 0x18 bytes, no CPU times (HeaderType 3/4)
    PerfInfo, // PERFINFO_TRACE_HEADER, 0x10 bytes, no thread or process id (HeaderType 0x10/0x11)
};

// A whole record: header then payload (unpadded; the writer aligns records
// to 8). pointer_size (4 or 8) selects the 32- or 64-bit HeaderType, which
// tells readers the width of the payload's pointers. Empty when the record
// would exceed kMaxRecordSize.
Bytes encode_record(HeaderKind kind, const HeaderFields &header, std::uint32_t pointer_size, const Bytes &payload);
// The same with a PERFINFO header, which holds only the hook, the version
// and the time (the classes that name their thread in the payload).
Bytes perfinfo_record(std::uint16_t hook, std::uint16_t version, std::int64_t timestamp, std::uint32_t pointer_size,
                      const Bytes &payload);

// ---- The SID of a Linux user ----
// S-1-22-1-<uid>: the Unix-user SID form of Samba and SSSD, in the binary
// SID layout (revision, sub-authority count, 48-bit big-endian authority,
// little-endian sub-authorities).
Bytes unix_user_sid(std::uint32_t uid);

// ---- Process_V4_TypeGroup1 ----
struct ProcessFields {
    std::uint64_t unique_process_key = 0; // pointer-sized
    std::uint32_t process_id = 0;
    std::uint32_t parent_id = 0;
    std::uint32_t session_id = 0;
    std::int32_t exit_status = 0;
    std::uint64_t directory_table_base = 0; // pointer-sized
    std::uint32_t flags = 0;
    Bytes user_sid;              // a binary SID, or empty for none
    std::string image_file_name; // ANSI (bytes as given)
    std::u16string command_line;
    std::u16string package_full_name;
    std::u16string application_id;
};
// The payload alone. The command line is shortened (never inside a
// surrogate pair) so that a record of this payload fits max_record - 0x20.
Bytes process_payload(const ProcessFields &p, std::uint32_t pointer_size, std::size_t max_record = kMaxRecordSize);
// Process/<type> with a SYSTEM_TRACE_HEADER (hook 0x03xx, version 4).
Bytes process_record(Opcode type, HeaderFields header, const ProcessFields &p, std::uint32_t pointer_size,
                     std::size_t max_record = kMaxRecordSize);

// ---- Thread_V3_TypeGroup1 ----
struct ThreadFields {
    std::uint32_t process_id = 0;
    std::uint32_t thread_id = 0;
    std::uint64_t stack_base = 0; // pointer-sized from here to win32_start_addr and teb_base
    std::uint64_t stack_limit = 0;
    std::uint64_t user_stack_base = 0;
    std::uint64_t user_stack_limit = 0;
    std::uint64_t affinity = 0;
    std::uint64_t win32_start_addr = 0;
    std::uint64_t teb_base = 0;
    std::uint32_t sub_process_tag = 0;
    std::uint8_t base_priority = 8; // Windows' normal priority
    std::uint8_t page_priority = 5; // MEMORY_PRIORITY_NORMAL
    std::uint8_t io_priority = 2;   // IoPriorityNormal
    std::uint8_t thread_flags = 0;
};
Bytes thread_payload(const ThreadFields &t, std::uint32_t pointer_size);
// Thread/<type> with a SYSTEM_TRACE_HEADER (hook 0x05xx, version 3).
Bytes thread_record(Opcode type, HeaderFields header, const ThreadFields &t, std::uint32_t pointer_size);

// ---- Image_Load (V3) ----
struct ImageFields {
    std::uint64_t image_base = 0; // pointer-sized
    std::uint64_t image_size = 0; // pointer-sized
    std::uint32_t process_id = 0;
    std::uint32_t image_checksum = 0;
    std::uint32_t time_date_stamp = 0;
    std::uint32_t reserved0 = 0;
    std::uint64_t default_base = 0; // pointer-sized
    std::uint32_t reserved[4] = {0, 0, 0, 0};
    std::u16string file_name;
};
// The file name is shortened to fit, as process_payload's command line.
Bytes image_payload(const ImageFields &i, std::uint32_t pointer_size, std::size_t max_record = kMaxRecordSize);
// Image/<type> with a SYSTEM_TRACE_HEADER, version 3. Windows logs a load
// under the process group (hook 0x030A, Opcode::Load) and the others under
// the image group (0x1402 unload, 0x1403 DCStart, 0x1404 DCEnd).
Bytes image_record(Opcode type, HeaderFields header, const ImageFields &i, std::uint32_t pointer_size,
                   std::size_t max_record = kMaxRecordSize);
// The HookId Windows gives Image/<type>.
std::uint16_t image_hook_id(Opcode type);

} // namespace openetw::kernel
