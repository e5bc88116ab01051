// etw_status_name / etw_status_string and the thread-local last error.
#include <openetw/status.h>

#include "api/guard.hpp"
#include "platform/thread_exit.hpp"

#include <new>
#include <string>

namespace {

struct StatusInfo {
    etw_status code;
    const char *name;
    const char *text;
};

constexpr StatusInfo kStatuses[] = {
    {ETW_OK, "ETW_OK", "The operation completed successfully."},
    {ETW_ERROR_FILE_NOT_FOUND, "ETW_ERROR_FILE_NOT_FOUND", "The system cannot find the file specified."},
    {ETW_ERROR_PATH_NOT_FOUND, "ETW_ERROR_PATH_NOT_FOUND", "The system cannot find the path specified."},
    {ETW_ERROR_ACCESS_DENIED, "ETW_ERROR_ACCESS_DENIED", "Access is denied."},
    {ETW_ERROR_INVALID_HANDLE, "ETW_ERROR_INVALID_HANDLE", "The handle is invalid."},
    {ETW_ERROR_NOT_ENOUGH_MEMORY, "ETW_ERROR_NOT_ENOUGH_MEMORY",
     "Not enough storage is available to process this command."},
    {ETW_ERROR_INVALID_DATA, "ETW_ERROR_INVALID_DATA", "The data is invalid."},
    {ETW_ERROR_OUTOFMEMORY, "ETW_ERROR_OUTOFMEMORY", "Not enough memory is available to complete this operation."},
    {ETW_ERROR_BAD_LENGTH, "ETW_ERROR_BAD_LENGTH", "The program issued a command but the command length is incorrect."},
    {ETW_ERROR_WRITE_FAULT, "ETW_ERROR_WRITE_FAULT", "The system cannot write to the specified device."},
    {ETW_ERROR_READ_FAULT, "ETW_ERROR_READ_FAULT", "The system cannot read from the specified device."},
    {ETW_ERROR_HANDLE_EOF, "ETW_ERROR_HANDLE_EOF", "Reached the end of the file."},
    {ETW_ERROR_NOT_SUPPORTED, "ETW_ERROR_NOT_SUPPORTED", "The request is not supported."},
    {ETW_ERROR_INVALID_PARAMETER, "ETW_ERROR_INVALID_PARAMETER", "The parameter is incorrect."},
    {ETW_ERROR_DISK_FULL, "ETW_ERROR_DISK_FULL", "There is not enough space on the disk."},
    {ETW_ERROR_INSUFFICIENT_BUFFER, "ETW_ERROR_INSUFFICIENT_BUFFER",
     "The data area passed to a system call is too small."},
    {ETW_ERROR_INVALID_NAME, "ETW_ERROR_INVALID_NAME",
     "The filename, directory name, or volume label syntax is incorrect."},
    {ETW_ERROR_BAD_PATHNAME, "ETW_ERROR_BAD_PATHNAME", "The specified path is invalid."},
    {ETW_ERROR_BUSY, "ETW_ERROR_BUSY", "The requested resource is in use."},
    {ETW_ERROR_ALREADY_EXISTS, "ETW_ERROR_ALREADY_EXISTS", "Cannot create a file when that file already exists."},
    {ETW_ERROR_INVALID_FLAG_NUMBER, "ETW_ERROR_INVALID_FLAG_NUMBER", "The flag passed is not correct."},
    {ETW_ERROR_MORE_DATA, "ETW_ERROR_MORE_DATA", "More data is available."},
    {ETW_ERROR_ARITHMETIC_OVERFLOW, "ETW_ERROR_ARITHMETIC_OVERFLOW", "Arithmetic result exceeded 32 bits."},
    {ETW_ERROR_NO_MORE_ITEMS, "ETW_ERROR_NO_MORE_ITEMS", "No more data is available."},
    {ETW_ERROR_NO_UNICODE_TRANSLATION, "ETW_ERROR_NO_UNICODE_TRANSLATION",
     "No mapping for the Unicode character exists in the target multi-byte code page."},
    {ETW_ERROR_NOT_FOUND, "ETW_ERROR_NOT_FOUND", "Element not found."},
    {ETW_ERROR_CANCELLED, "ETW_ERROR_CANCELLED", "The operation was canceled by the user."},
    {ETW_ERROR_INTERNAL_ERROR, "ETW_ERROR_INTERNAL_ERROR", "An internal error occurred."},
    {ETW_ERROR_NO_SYSTEM_RESOURCES, "ETW_ERROR_NO_SYSTEM_RESOURCES",
     "Insufficient system resources exist to complete the requested service."},
    {ETW_ERROR_TIMEOUT, "ETW_ERROR_TIMEOUT", "This operation returned because the timeout period expired."},
    {ETW_ERROR_LOG_FILE_FULL, "ETW_ERROR_LOG_FILE_FULL", "The event log file is full."},
    {ETW_ERROR_WMI_GUID_NOT_FOUND, "ETW_ERROR_WMI_GUID_NOT_FOUND",
     "The GUID passed was not recognized as valid by a WMI data provider."},
    {ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "ETW_ERROR_WMI_INSTANCE_NOT_FOUND",
     "The instance name passed was not recognized as valid by a WMI data provider."},
    {ETW_ERROR_CTX_CLOSE_PENDING, "ETW_ERROR_CTX_CLOSE_PENDING", "A close operation is pending on the session."},
};

const StatusInfo *find(etw_status code)
{
    for (const auto &info : kStatuses)
        if (info.code == code)
            return &info;
    return nullptr;
}

// The message lives on the heap, freed at thread exit through a
// platform::ThreadExitKey: a thread_local std::string's destructor would run
// after mingw's emulated thread-locals are freed (platform/thread_exit.hpp).
struct LastError {
    std::string message;
};

thread_local etw_status t_last_code = ETW_OK;
thread_local LastError *t_last = nullptr;

void free_last(void *last) noexcept
{
    delete static_cast<LastError *>(last);
    t_last = nullptr; // a call from a later exit hook makes a new one
}

// Null when not even an empty record could be made (out of memory).
LastError *last_error() noexcept
{
    if (t_last != nullptr) [[likely]]
        return t_last;
    static openetw::platform::ThreadExitKey *const key =
        new openetw::platform::ThreadExitKey(free_last); // never destroyed
    t_last = new (std::nothrow) LastError;
    key->set(t_last);
    return t_last;
}

} // namespace

namespace openetw::api {

etw_status set_last(etw_status code, const char *message) noexcept
{
    t_last_code = code;
    LastError *last = last_error();
    if (last == nullptr)
        return code; // the status is kept; the text reads empty
    try {
        last->message.assign(message ? message : "");
    } catch (...) {
        last->message.clear(); // keep the status even when the text cannot be stored
    }
    return code;
}

etw_status set_last(const Status &status) noexcept { return set_last(status.code, status.message.c_str()); }

} // namespace openetw::api

extern "C" {

ETW_API const char *etw_status_name(etw_status status)
{
    const StatusInfo *info = find(status);
    return info ? info->name : "ETW_ERROR_UNKNOWN";
}

ETW_API const char *etw_status_string(etw_status status)
{
    const StatusInfo *info = find(status);
    return info ? info->text : "Unknown status code.";
}

ETW_API const char *etw_last_error_message(void)
{
    const LastError *last = last_error();
    return last != nullptr ? last->message.c_str() : "";
}

ETW_API etw_status etw_last_error_status(void) { return t_last_code; }

} // extern "C"
