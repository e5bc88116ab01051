// EnumerateTraceGuidsEx and EnumerateTraceGuids over etw_provider_list and etw_provider_query: the
// layouts (TRACE_GUID_INFO, TRACE_PROVIDER_INSTANCE_INFO, TRACE_ENABLE_INFO)
// and the ERROR_INSUFFICIENT_BUFFER protocol as Microsoft documents them
// (docs/WIN32.md, "Provider listing").
#include "common.hpp"

#include <cstring>
#include <vector>

using namespace openetw_win32;

namespace {

// The registered GUIDs, grown until they fit (providers come and go between calls).
ULONG all_guids(std::vector<etw_guid> *out)
{
    std::uint32_t n = 0;
    etw_status st = etw_provider_list(nullptr, 0, &n);
    for (int attempt = 0; attempt < 8 && (st == ETW_OK || st == ETW_ERROR_MORE_DATA); ++attempt) {
        out->resize(n + 8);
        st = etw_provider_list(out->data(), std::uint32_t(out->size()), &n);
        if (st == ETW_OK) {
            out->resize(n);
            return ERROR_SUCCESS;
        }
    }
    return st == ETW_OK ? ERROR_SUCCESS : st;
}

// What etw_provider_query says of one GUID, grown until it fits.
ULONG query(const etw_guid &g, std::vector<etw_provider_process> *procs, std::vector<etw_provider_session> *sessions)
{
    std::uint32_t np = 0, ns = 0;
    etw_status st = etw_provider_query(&g, nullptr, 0, &np, nullptr, 0, &ns);
    for (int attempt = 0; attempt < 8 && (st == ETW_OK || st == ETW_ERROR_MORE_DATA); ++attempt) {
        procs->resize(np + 4);
        sessions->resize(ns + 4);
        st = etw_provider_query(&g, procs->data(), std::uint32_t(procs->size()), &np, sessions->data(),
                                std::uint32_t(sessions->size()), &ns);
        if (st == ETW_OK) {
            procs->resize(np);
            sessions->resize(ns);
            return ERROR_SUCCESS;
        }
    }
    return st;
}

// Copies bytes to the caller's buffer when it holds them all.
ULONG hand_out(const std::vector<unsigned char> &bytes, PVOID out, ULONG size, PULONG length)
{
    *length = ULONG(bytes.size());
    if (size < bytes.size())
        return ERROR_INSUFFICIENT_BUFFER;
    if (!bytes.empty())
        std::memcpy(out, bytes.data(), bytes.size());
    return ERROR_SUCCESS;
}

template <class T>
void append(std::vector<unsigned char> &bytes, const T &v)
{
    const auto *p = reinterpret_cast<const unsigned char *>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
}

} // namespace

OPENETW_WIN32_API ULONG EnumerateTraceGuids(PTRACE_GUID_PROPERTIES *array, ULONG array_count, PULONG guid_count)
{
    if (array == nullptr || array_count == 0 || guid_count == nullptr)
        return ERROR_INVALID_PARAMETER;
    for (ULONG i = 0; i < array_count; ++i)
        if (array[i] == nullptr)
            return ERROR_INVALID_PARAMETER;
    std::vector<etw_guid> guids;
    if (ULONG st = all_guids(&guids); st != ERROR_SUCCESS)
        return st;
    // Registered providers only (one a session enables ahead of its
    // registration is not one yet), each once, with the first session enabling it.
    ULONG n = 0;
    for (const etw_guid &g : guids) {
        std::vector<etw_provider_process> procs;
        std::vector<etw_provider_session> sessions;
        if (query(g, &procs, &sessions) != ERROR_SUCCESS || procs.empty())
            continue;
        if (n < array_count) {
            TRACE_GUID_PROPERTIES *p = array[n];
            std::memset(p, 0, sizeof *p);
            std::memcpy(&p->Guid, &g, sizeof g);
            if (!sessions.empty()) {
                p->LoggerId = ULONG(sessions[0].session_handle & 0xFFFF);
                p->EnableLevel = sessions[0].level;
                p->EnableFlags = ULONG(sessions[0].match_any_keyword);
                p->IsEnable = TRUE;
            }
        }
        ++n;
    }
    *guid_count = n;
    return n > array_count ? ERROR_MORE_DATA : ERROR_SUCCESS;
}

OPENETW_WIN32_API ULONG EnumerateTraceGuidsEx(TRACE_QUERY_INFO_CLASS info_class, PVOID in, ULONG in_size, PVOID out,
                                              ULONG out_size, PULONG length)
{
    if (length == nullptr || (out == nullptr && out_size != 0))
        return ERROR_INVALID_PARAMETER;
    std::vector<unsigned char> bytes;
    const int cls = openetw_win32::enum_value(info_class);
    if (cls == TraceGuidQueryList) {
        std::vector<etw_guid> guids;
        if (ULONG st = all_guids(&guids); st != ERROR_SUCCESS)
            return st;
        for (const etw_guid &g : guids)
            append(bytes, g);
        return hand_out(bytes, out, out_size, length);
    }
    if (cls != TraceGuidQueryInfo)
        return ERROR_NOT_SUPPORTED;
    if (in == nullptr || in_size != sizeof(GUID))
        return ERROR_INVALID_PARAMETER;
    etw_guid g;
    std::memcpy(&g, in, sizeof g);
    std::vector<etw_provider_process> procs;
    std::vector<etw_provider_session> sessions;
    if (ULONG st = query(g, &procs, &sessions); st != ERROR_SUCCESS)
        return st;
    // A GUID sessions enable before any process registers it is one
    // instance, flagged PRE_ENABLE, with process id 0.
    const bool pre_enable = procs.empty();
    if (pre_enable)
        procs.push_back({0, 0});
    TRACE_GUID_INFO head{};
    head.InstanceCount = ULONG(procs.size());
    append(bytes, head);
    for (std::size_t i = 0; i < procs.size(); ++i) {
        TRACE_PROVIDER_INSTANCE_INFO inst{};
        inst.EnableCount = ULONG(sessions.size());
        inst.Pid = procs[i].process_id;
        inst.Flags = pre_enable ? TRACE_PROVIDER_FLAG_PRE_ENABLE : 0;
        inst.NextOffset = i + 1 < procs.size() ? ULONG(sizeof inst + sessions.size() * sizeof(TRACE_ENABLE_INFO)) : 0;
        append(bytes, inst);
        for (const etw_provider_session &s : sessions) {
            TRACE_ENABLE_INFO e{};
            e.IsEnabled = 1;
            e.Level = UCHAR(s.level);
            e.LoggerId = USHORT(s.session_handle & 0xFFFF); // the handle's low 16 bits are its logger id
            e.EnableProperty = s.enable_property;
            e.MatchAnyKeyword = s.match_any_keyword;
            e.MatchAllKeyword = s.match_all_keyword;
            append(bytes, e);
        }
    }
    return hand_out(bytes, out, out_size, length);
}
