#include "kernel/stack_event_names.hpp"

#include "format/kernel_class_guids.hpp"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>

namespace openetw::kernel {

namespace {

struct StackName {
    const char *name;
    std::uint8_t group; // EVENT_TRACE_GROUP_*: the class GUID (kernel_class_guids.hpp)
    std::uint8_t type;
};

// xperf's documented -stackwalk flags with a known class and event type;
// any other event is named 0xmmnn, as xperf takes it.
constexpr StackName kNames[] = {
    {"ProcessCreate", 0x03, 1},
    {"ProcessDelete", 0x03, 2},
    {"ImageLoad", 0x14, 10},
    {"ImageUnload", 0x14, 2},
    {"ThreadCreate", 0x05, 1},
    {"ThreadDelete", 0x05, 2},
    {"CSwitch", 0x05, 36},
    {"ThreadSetPriority", 0x05, 48},
    {"ThreadSetBasePriority", 0x05, 49},
    {"ReadyThread", 0x05, 50},
    {"Profile", 0x0F, 46},
    {"SyscallEnter", 0x0F, 51},
    {"SyscallExit", 0x0F, 52},
    {"DiskReadInit", 0x01, 12},
    {"DiskWriteInit", 0x01, 13},
    {"DiskFlushInit", 0x01, 15},
    {"FileCreate", 0x04, 64},
    {"FileCleanup", 0x04, 65},
    {"FileClose", 0x04, 66},
    {"FileRead", 0x04, 67},
    {"FileWrite", 0x04, 68},
    {"FileSetInformation", 0x04, 69},
    {"FileDelete", 0x04, 70},
    {"FileRename", 0x04, 71},
    {"FileDirEnum", 0x04, 72},
    {"FileFlush", 0x04, 73},
    {"FileQueryInformation", 0x04, 74},
    {"FileFSCTL", 0x04, 75},
    {"FileOpEnd", 0x04, 76},
    {"FileDirNotify", 0x04, 77},
    {"RegCreateKey", 0x09, 10},
    {"RegOpenKey", 0x09, 11},
    {"RegDeleteKey", 0x09, 12},
    {"RegQueryKey", 0x09, 13},
    {"RegSetValue", 0x09, 14},
    {"RegDeleteValue", 0x09, 15},
    {"RegQueryValue", 0x09, 16},
    {"RegEnumerateKey", 0x09, 17},
    {"RegEnumerateValueKey", 0x09, 18},
    {"RegQueryMultipleValue", 0x09, 19},
    {"RegSetInformation", 0x09, 20},
    {"RegFlush", 0x09, 21},
    {"RegKcbCreate", 0x09, 22},
    {"RegKcbDelete", 0x09, 23},
    {"RegVirtualize", 0x09, 26},
    {"RegCloseKey", 0x09, 27},
    {"PagefaultTransition", 0x02, 10},
    {"PagefaultDemandZero", 0x02, 11},
    {"PagefaultCopyOnWrite", 0x02, 12},
    {"PagefaultGuard", 0x02, 13},
    {"PagefaultHard", 0x02, 14},
    {"PagefaultAV", 0x02, 15},
    {"HardFault", 0x02, 32},
    {"VirtualAlloc", 0x02, 98},
    {"VirtualFree", 0x02, 99},
};

bool same_name(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// 0xmmnn: four hex digits, group then type.
bool parse_hook(std::string_view s, std::uint8_t *group, std::uint8_t *type)
{
    if (s.size() != 6 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    std::uint16_t v = 0;
    const auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
    if (ec != std::errc() || end != s.data() + s.size())
        return false;
    *group = std::uint8_t(v >> 8);
    *type = std::uint8_t(v & 0xFF);
    return true;
}

} // namespace

Status parse_stack_events(std::string_view text, std::vector<etw_classic_event_id> *out)
{
    std::vector<etw_classic_event_id> events;
    std::size_t tokens = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t end = text.find_first_of(",+| \t", at);
        const std::string_view token = text.substr(at, end == std::string_view::npos ? end : end - at);
        at = end == std::string_view::npos ? text.size() : end + 1;
        if (token.empty())
            continue;
        ++tokens;
        if (same_name(token, "none"))
            continue;
        std::uint8_t group = 0, type = 0;
        if (!parse_hook(token, &group, &type)) {
            const StackName *found = nullptr;
            for (const StackName &n : kNames)
                if (same_name(token, n.name))
                    found = &n;
            if (!found)
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            "unknown stack event \"" + std::string(token) +
                                "\": use an xperf -stackwalk name (Profile, CSwitch, ReadyThread, SyscallEnter, "
                                "FileRead, PagefaultDemandZero, ...) or 0xmmnn (group mm, event type nn)");
            group = found->group;
            type = found->type;
        }
        etw_classic_event_id id{};
        bool known = false;
        for (const etl::KernelClassGuid &c : etl::kKernelClassGuids)
            if (c.group == group) {
                id.event_guid = c.guid;
                known = true;
            }
        if (!known) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", group);
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "stack event \"" + std::string(token) + "\": group " + hex + " is no kernel class known here");
        }
        id.type = type;
        events.push_back(id);
    }
    if (tokens == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "the stack event list is empty: name events (Profile+CSwitch) or \"none\" for no stacks");
    if (tokens > 1 && events.size() != tokens)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "\"none\" stands alone: it turns stacks off");
    out->insert(out->end(), events.begin(), events.end());
    return Status::ok();
}

} // namespace openetw::kernel
