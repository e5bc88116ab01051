// File I/O records: the FileIo classes (group 0x04, event version 2) as the
// NT Kernel Logger writes them, with a SYSTEM_TRACE_HEADER (the thread and
// process of the operation), for 64- and 32-bit pointer layouts:
// FileIo_Name (DISK_FILE_IO), FileIo_Create, FileIo_SimpleOp,
// FileIo_ReadWrite, FileIo_Info (FILE_IO_INIT) and FileIo_OpEnd (FILE_IO).
// Pure functions over bytes; file_io_tracker.hpp says where the values
// come from on Linux.
#pragma once

#include "kernel/kernel_records.hpp"

#include <cstdint>
#include <string>

namespace openetw::kernel {

inline constexpr std::uint16_t kFileIoVersion = 2;

enum class FileIoType : std::uint8_t {
    Name = 0,
    FileCreate = 32,
    FileDelete = 35,
    FileRundown = 36,
    Create = 64,
    Cleanup = 65,
    Close = 66,
    Read = 67,
    Write = 68,
    SetInfo = 69,
    Delete = 70,
    Rename = 71,
    Flush = 73,
    OperationEnd = 76,
};

// The events the file system calls make (Name records are no call's): the
// ones whose stacks may be asked for (stack_events.hpp, logger_tracepoints.hpp).
inline constexpr FileIoType kFileIoCallTypes[] = {FileIoType::Create, FileIoType::Cleanup, FileIoType::Close,
                                                  FileIoType::Read,   FileIoType::Write,   FileIoType::Delete,
                                                  FileIoType::Rename, FileIoType::Flush,   FileIoType::OperationEnd};

// FILE_INFORMATION_CLASS values FileIo_Info carries (wdm.h).
inline constexpr std::uint32_t kFileRenameInformation = 10;
inline constexpr std::uint32_t kFileDispositionInformation = 13;

// The create dispositions (NtCreateFile's CreateDisposition, wdm.h) and
// the results an OperationEnd of a Create carries (IoStatus.Information).
inline constexpr std::uint32_t kFileOpen = 1;
inline constexpr std::uint32_t kFileCreate = 2;
inline constexpr std::uint32_t kFileOpenIf = 3;
inline constexpr std::uint32_t kFileOverwrite = 4;
inline constexpr std::uint32_t kFileOverwriteIf = 5;
inline constexpr std::uint32_t kFileOpened = 1;
inline constexpr std::uint32_t kFileCreated = 2;
inline constexpr std::uint32_t kFileOverwritten = 3;

// ---- FileIo_Name: Name 0, FileCreate 32, FileDelete 35, FileRundown 36 ----
struct FileNameFields {
    std::uint64_t file_object = 0; // pointer-sized: the FileKey of the operations
    std::u16string file_name;
};
// The name is shortened (never inside a surrogate pair) to fit max_record.
Bytes file_name_payload(const FileNameFields &f, std::uint32_t pointer_size, std::size_t max_record = kMaxRecordSize);

// ---- FileIo_Create: Create 64 ----
struct FileCreateFields {
    std::uint64_t irp = 0;  // pointer-sized, as the next two
    std::uint64_t ttid = 0; // the thread's id, pointer-sized as documented
    std::uint64_t file_object = 0;
    std::uint32_t create_options = 0; // CreateDisposition << 24 | CreateOptions
    std::uint32_t file_attributes = 0;
    std::uint32_t share_access = 0;
    std::u16string open_path;
};
Bytes file_create_payload(const FileCreateFields &f, std::uint32_t pointer_size,
                          std::size_t max_record = kMaxRecordSize);

// ---- FileIo_SimpleOp: Cleanup 65, Close 66, Flush 73 ----
struct FileSimpleOpFields {
    std::uint64_t irp = 0; // all four pointer-sized
    std::uint64_t ttid = 0;
    std::uint64_t file_object = 0;
    std::uint64_t file_key = 0;
};
Bytes file_simple_op_payload(const FileSimpleOpFields &f, std::uint32_t pointer_size);

// ---- FileIo_ReadWrite: Read 67, Write 68 ----
struct FileReadWriteFields {
    std::uint64_t offset = 0;
    std::uint64_t irp = 0; // pointer-sized, as the next three
    std::uint64_t ttid = 0;
    std::uint64_t file_object = 0;
    std::uint64_t file_key = 0;
    std::uint32_t io_size = 0;
    std::uint32_t io_flags = 0;
};
Bytes file_read_write_payload(const FileReadWriteFields &f, std::uint32_t pointer_size);

// ---- FileIo_Info: SetInfo 69, Delete 70, Rename 71 ----
struct FileInfoFields {
    std::uint64_t irp = 0; // pointer-sized, as the next four
    std::uint64_t ttid = 0;
    std::uint64_t file_object = 0;
    std::uint64_t file_key = 0;
    std::uint64_t extra_info = 0;
    std::uint32_t info_class = 0;
};
Bytes file_info_payload(const FileInfoFields &f, std::uint32_t pointer_size);

// ---- FileIo_OpEnd: OperationEnd 76 ----
struct FileOpEndFields {
    std::uint64_t irp = 0;        // pointer-sized: the operation's IrpPtr
    std::uint64_t extra_info = 0; // pointer-sized: bytes done, a Create's disposition result
    std::uint32_t nt_status = 0;
};
Bytes file_op_end_payload(const FileOpEndFields &f, std::uint32_t pointer_size);

// A whole record: FileIo/<type> with a SYSTEM_TRACE_HEADER (hook 0x04xx,
// version 2; the header's hook_id and version are set here). Empty when
// the payload is empty or the record would exceed kMaxRecordSize.
Bytes file_io_record(FileIoType type, HeaderFields header, const Bytes &payload, std::uint32_t pointer_size);

} // namespace openetw::kernel
