#include "text.hpp"

#include <cstdio>

namespace etwdump {

std::string guid_text(const etw_guid &g)
{
    char s[40];
    std::snprintf(s, sizeof s, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", unsigned(g.Data1), unsigned(g.Data2),
                  unsigned(g.Data3), g.Data4[0], g.Data4[1], g.Data4[2], g.Data4[3], g.Data4[4], g.Data4[5], g.Data4[6],
                  g.Data4[7]);
    return s;
}

std::string filetime_text(int64_t filetime)
{
    if (filetime < 0)
        return "(before 1601)";
    // Days since 1601-01-01, then the civil date (Howard Hinnant's algorithm,
    // shifted from 1970 by 134774 days).
    const int64_t ticks_per_day = 864000000000LL;
    int64_t days = filetime / ticks_per_day;
    const int64_t rest = filetime % ticks_per_day;
    int64_t z = days - 134774 + 719468;
    const int64_t era = z / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const int64_t d = doy - (153 * mp + 2) / 5 + 1;
    const int64_t m = mp < 10 ? mp + 3 : mp - 9;
    const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    const int64_t secs = rest / 10000000;
    char s[64];
    std::snprintf(s, sizeof s, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld.%07lld UTC", (long long)y, (long long)m,
                  (long long)d, (long long)(secs / 3600), (long long)(secs / 60 % 60), (long long)(secs % 60),
                  (long long)(rest % 10000000));
    return s;
}

std::string mode_text(uint32_t mode)
{
    struct Name {
        uint32_t bit;
        const char *name;
    };
    static const Name names[] = {
        {ETW_FILE_MODE_SEQUENTIAL, "sequential"},
        {ETW_FILE_MODE_CIRCULAR, "circular"},
        {ETW_FILE_MODE_APPEND, "append"},
        {ETW_FILE_MODE_NEWFILE, "newfile"},
        {ETW_FILE_MODE_PREALLOCATE, "preallocate"},
        {ETW_NONSTOPPABLE_MODE, "nonstoppable"},
        {ETW_SECURE_MODE, "secure"},
        {ETW_REAL_TIME_MODE, "real-time"},
        {ETW_DELAY_OPEN_FILE_MODE, "delay-open"},
        {ETW_BUFFERING_MODE, "buffering"},
        {ETW_PRIVATE_LOGGER_MODE, "private"},
        {ETW_ADD_HEADER_MODE, "add-header"},
        {ETW_USE_KBYTES_FOR_SIZE, "kbytes"},
        {ETW_USE_GLOBAL_SEQUENCE, "global-sequence"},
        {ETW_USE_LOCAL_SEQUENCE, "local-sequence"},
        {ETW_RELOG_MODE, "relog"},
        {ETW_PRIVATE_IN_PROC, "in-proc"},
        {ETW_USE_PAGED_MEMORY, "paged-memory"},
        {ETW_SYSTEM_LOGGER_MODE, "system-logger"},
        {ETW_COMPRESSED_MODE, "compressed"},
        {ETW_INDEPENDENT_SESSION_MODE, "independent-session"},
        {ETW_NO_PER_PROCESSOR_BUFFERING, "no-per-processor-buffering"},
    };
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", unsigned(mode));
    std::string text = hex;
    std::string list;
    uint32_t rest = mode;
    for (const Name &n : names) {
        if (mode & n.bit) {
            list += list.empty() ? "" : "|";
            list += n.name;
            rest &= ~n.bit;
        }
    }
    if (rest) {
        char more[16];
        std::snprintf(more, sizeof more, "0x%x", unsigned(rest));
        list += list.empty() ? "" : "|";
        list += more;
    }
    return text + " (" + (list.empty() ? "sequential, no limit" : list) + ")";
}

const char *clock_text(uint32_t clock_type)
{
    switch (clock_type) {
    case 0:
    case 1:
        return "QPC";
    case 2:
        return "system time (FILETIME)";
    case 3:
        return "CPU cycle counter";
    default:
        return "unknown";
    }
}

} // namespace etwdump
