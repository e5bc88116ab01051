// The pure half of `etwctl collect`: an instance's messages as an .etl image
// with what it lacks, and the file name of an instance.
#include "export/stream_collect.hpp"

#include <cstdio>
#include <cstring>

namespace openetw::exporter {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

bool equal_nocase(const std::string &a, const std::string &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

std::string range_text(std::uint64_t first, std::uint64_t last)
{
    return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::uint64_t fnv1a(const std::string &s)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

// Long names would pass the 255 bytes a file name may have: cut, and the
// hash of the whole name keeps two long names that share a beginning apart.
std::string bounded_token(const std::string &name)
{
    std::string token = escape_token(name);
    if (token.size() <= kMaxNameToken)
        return token;
    char hash[24];
    std::snprintf(hash, sizeof hash, "~%016llx", static_cast<unsigned long long>(fnv1a(name)));
    std::size_t keep = kMaxNameToken - std::strlen(hash);
    while (keep > 0 && keep < token.size() && (token[keep - 1] == '%' || (keep > 1 && token[keep - 2] == '%')))
        --keep; // never cut an escape in two
    return token.substr(0, keep) + hash;
}

// Windows opens the device, not a file, for these names whatever follows the dot.
bool windows_device(const std::string &token)
{
    static const char *const kDevices[] = {"con", "prn", "aux", "nul"};
    std::string l;
    for (char c : token)
        l += lower(c);
    for (const char *d : kDevices)
        if (l == d)
            return true;
    return l.size() == 4 && (l.compare(0, 3, "com") == 0 || l.compare(0, 3, "lpt") == 0) && l[3] >= '0' && l[3] <= '9';
}

} // namespace

// FILETIME as YYYYMMDDTHHMMSS.fffffffZ (UTC), or its decimal when it is
// before 1601 (no session starts then; the name stays unique either way).
std::string start_utc_text(std::int64_t filetime)
{
    if (filetime < 0)
        return std::to_string(filetime);
    const std::int64_t ticks = filetime % 10000000;
    std::int64_t secs = filetime / 10000000;
    const std::int64_t days_since_1601 = secs / 86400;
    secs %= 86400;
    // Days since 1970-01-01 to a civil date (H. Hinnant's days_from_civil, inverted).
    std::int64_t z = days_since_1601 - 134774 + 719468;
    const std::int64_t era = z / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    std::int64_t y = yoe + era * 400;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
    const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2)
        ++y;
    char out[64];
    std::snprintf(out, sizeof out, "%04lld%02lld%02lldT%02lld%02lld%02lld.%07lldZ", static_cast<long long>(y),
                  static_cast<long long>(m), static_cast<long long>(d), static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60),
                  static_cast<long long>(ticks));
    return out;
}

bool StreamFilter::matches(const BufferTag &tag) const
{
    return (machine.empty() || machine == tag.machine) && (session.empty() || equal_nocase(session, tag.session));
}

CollectedTrace assemble_instance(const StreamInstance &inst)
{
    CollectedTrace t;
    t.tag = inst.tag;
    t.tag.sequence = 0;
    t.stopped = !inst.end.empty();
    if (inst.header.empty())
        t.missing.push_back("the header buffer (sequence 0): the stream no longer holds it (its retention "
                            "removed it?), so no file can begin");
    if (!t.stopped)
        t.missing.push_back("the final header: the session was not stopped when the stream was read (still "
                            "running, or its host died before the stop); the file begins with the header as it "
                            "started, without the final counts");
    // Data buffers are 1 .. end_sequence - 1; before the stop, up to the last one read.
    std::uint64_t last = 0;
    if (t.stopped)
        last = inst.end_sequence == 0 ? 0 : inst.end_sequence - 1;
    else if (!inst.data.empty())
        last = inst.data.rbegin()->first;
    std::string gaps, conflicts;
    std::uint64_t absent = 0;
    std::uint64_t next = 1;                 // the first sequence not yet accounted for
    auto gap_to = [&](std::uint64_t upto) { // upto excluded
        if (upto <= next)
            return;
        gaps += (gaps.empty() ? "" : ", ") + range_text(next, upto - 1);
        absent += upto - next;
    };
    const std::vector<std::uint8_t> *previous = nullptr;
    std::uint64_t previous_seq = 0;
    const bool have_file = !inst.header.empty();
    if (have_file)
        t.etl = t.stopped ? inst.end : inst.header;
    for (const auto &[seq, bytes] : inst.data) {
        if (seq == 0 || (t.stopped && seq > last)) {
            conflicts +=
                (conflicts.empty() ? "" : ", ") + std::to_string(seq) + " (outside 1.." + std::to_string(last) + ")";
            continue;
        }
        if (previous && previous_seq == seq) {
            if (*previous != bytes)
                conflicts += (conflicts.empty() ? "" : ", ") + std::to_string(seq) + " (twice, with other bytes)";
            continue; // the same buffer sent again: stored once in the file
        }
        gap_to(seq);
        next = seq + 1;
        previous = &bytes;
        previous_seq = seq;
        if (have_file)
            t.etl.insert(t.etl.end(), bytes.begin(), bytes.end());
        ++t.buffers;
    }
    gap_to(last + 1);
    if (absent != 0)
        t.missing.push_back(std::to_string(absent) + " of " + std::to_string(last) + " data buffers (sequence " + gaps +
                            ")");
    if (!conflicts.empty())
        t.missing.push_back("a consistent copy of data buffer " + conflicts + ": the first copy is in the file");
    return t;
}

std::string collected_file_name(const BufferTag &tag)
{
    std::string machine = bounded_token(tag.machine);
    if (windows_device(machine)) {
        char esc[4];
        std::snprintf(esc, sizeof esc, "%%%02X", static_cast<unsigned char>(machine[0]));
        machine = esc + machine.substr(1);
    }
    return machine + "." + bounded_token(tag.session) + "." + start_utc_text(tag.start_time) + ".etl";
}

const char *outcome_name(CollectedFile::Outcome o)
{
    switch (o) {
    case CollectedFile::Outcome::Written:
        return "written";
    case CollectedFile::Outcome::Unchanged:
        return "unchanged";
    case CollectedFile::Outcome::Replaced:
        return "replaced";
    case CollectedFile::Outcome::Kept:
        return "kept";
    case CollectedFile::Outcome::NoFile:
        return "no file";
    case CollectedFile::Outcome::Failed:
        return "failed";
    }
    return "?";
}

} // namespace openetw::exporter
