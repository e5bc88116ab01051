// etwprops: builds an EVENT_TRACE_PROPERTIES block from options (or reads
// one from a file), prints it as an annotated hex dump, imports it back and
// shows that the round trip is byte-exact. Uses only the public API.
#include <openetw/openetw.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

const char kUsage[] = "usage: etwprops [options]\n"
                      "  --name NAME            session name (UTF-8), default \"OpenETW Demo\"\n"
                      "  --file PATH            log file name\n"
                      "  --mode MODES           LogFileMode: a number, or names joined by '|':\n"
                      "                         sequential circular append newfile preallocate realtime\n"
                      "                         buffering private inproc kbytes noperproc\n"
                      "  --buffer-kb K          BufferSize in KB (4..16384)\n"
                      "  --min-buffers N        MinimumBuffers\n"
                      "  --max-buffers N        MaximumBuffers\n"
                      "  --max-file N           MaximumFileSize (MB, or KB with kbytes)\n"
                      "  --flush-timer S        FlushTimer in seconds\n"
                      "  --enable-flags F       EnableFlags (system loggers only)\n"
                      "  --clock 0|1|2|3        Wnode.ClientContext\n"
                      "  --import FILE          read the block from FILE instead of building it\n"
                      "  --write FILE           also write the block to FILE\n";

struct ModeName {
    const char *name;
    uint32_t bit;
};
const ModeName kModes[] = {
    {"sequential", ETW_FILE_MODE_SEQUENTIAL},
    {"circular", ETW_FILE_MODE_CIRCULAR},
    {"append", ETW_FILE_MODE_APPEND},
    {"newfile", ETW_FILE_MODE_NEWFILE},
    {"preallocate", ETW_FILE_MODE_PREALLOCATE},
    {"realtime", ETW_REAL_TIME_MODE},
    {"buffering", ETW_BUFFERING_MODE},
    {"private", ETW_PRIVATE_LOGGER_MODE},
    {"inproc", ETW_PRIVATE_IN_PROC},
    {"kbytes", ETW_USE_KBYTES_FOR_SIZE},
    {"noperproc", ETW_NO_PER_PROCESSOR_BUFFERING},
};

[[noreturn]] void die(const char *what)
{
    std::fprintf(stderr, "etwprops: %s\n", what);
    std::exit(1);
}

[[noreturn]] void die_status(const char *what, etw_status s)
{
    std::fprintf(stderr, "etwprops: %s: %s (%u): %s\n", what, etw_status_name(s), s, etw_last_error_message());
    std::exit(1);
}

uint32_t parse_number(const char *text)
{
    char *end = nullptr;
    unsigned long v = std::strtoul(text, &end, 0);
    if (!*text || *end || v > 0xFFFFFFFFul)
        die((std::string("not a 32-bit number: ") + text).c_str());
    return static_cast<uint32_t>(v);
}

uint32_t parse_mode(const std::string &text)
{
    if (!text.empty() && text[0] >= '0' && text[0] <= '9')
        return parse_number(text.c_str());
    uint32_t mode = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t bar = text.find('|', start);
        std::string word = text.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
        bool known = false;
        for (const auto &m : kModes)
            if (word == m.name) {
                mode |= m.bit;
                known = true;
            }
        if (!known)
            die(("unknown mode name: " + word).c_str());
        if (bar == std::string::npos)
            break;
        start = bar + 1;
    }
    return mode;
}

// One annotated field of the fixed record.
struct Field {
    const char *name;
    std::size_t offset;
    std::size_t size;
};

#define FIELD(member)                                                                                                  \
    Field                                                                                                              \
    {                                                                                                                  \
#member, offsetof(etw_event_trace_properties, member), sizeof(((etw_event_trace_properties *)nullptr)->member) \
    }

// Reads a whole file (a properties block is at most a few KB; more than 1 MiB
// is refused). False for anything unreadable: a missing file, a directory
// (fopen succeeds on one, fread fails), an I/O error.
bool read_block(const std::string &path, std::vector<unsigned char> &out)
{
    constexpr std::size_t kLimit = 1u << 20;
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return false;
    out.clear();
    unsigned char chunk[4096];
    std::size_t got;
    while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0 && out.size() <= kLimit)
        out.insert(out.end(), chunk, chunk + got);
    const bool ok = !std::ferror(f) && out.size() <= kLimit;
    std::fclose(f);
    return ok;
}

void hex_line(const std::vector<unsigned char> &b, std::size_t at, std::size_t n, const std::string &note)
{
    std::printf("  %04zx  ", at);
    for (std::size_t i = 0; i < 16; ++i) {
        if (i < n)
            std::printf("%02x ", b[at + i]);
        else
            std::printf("   ");
    }
    std::printf(" %s\n", note.c_str());
}

uint64_t read_le(const std::vector<unsigned char> &b, std::size_t at, std::size_t n)
{
    uint64_t v = 0;
    for (std::size_t i = 0; i < n && i < 8; ++i)
        v |= uint64_t(b[at + i]) << (8 * i);
    return v;
}

void dump(const std::vector<unsigned char> &b, const etw_properties *props)
{
    const Field fields[] = {
        FIELD(Wnode.BufferSize), FIELD(Wnode.ProviderId),  FIELD(Wnode.HistoricalContext),
        FIELD(Wnode.TimeStamp),  FIELD(Wnode.Guid),        FIELD(Wnode.ClientContext),
        FIELD(Wnode.Flags),      FIELD(BufferSize),        FIELD(MinimumBuffers),
        FIELD(MaximumBuffers),   FIELD(MaximumFileSize),   FIELD(LogFileMode),
        FIELD(FlushTimer),       FIELD(EnableFlags),       FIELD(AgeLimit),
        FIELD(NumberOfBuffers),  FIELD(FreeBuffers),       FIELD(EventsLost),
        FIELD(BuffersWritten),   FIELD(LogBuffersLost),    FIELD(RealTimeBuffersLost),
        FIELD(LoggerThreadId),   FIELD(LogFileNameOffset), FIELD(LoggerNameOffset),
    };
    std::printf("EVENT_TRACE_PROPERTIES block, %zu bytes\n", b.size());
    std::size_t end_of_fields = 0;
    for (const Field &f : fields) {
        std::string note = f.name;
        if (f.size <= 8) {
            char v[48];
            std::snprintf(v, sizeof v, " = %llu (0x%llx)",
                          static_cast<unsigned long long>(read_le(b, f.offset, f.size)),
                          static_cast<unsigned long long>(read_le(b, f.offset, f.size)));
            note += v;
        }
        for (std::size_t at = f.offset; at < f.offset + f.size; at += 16)
            hex_line(b, at, std::min<std::size_t>(16, f.offset + f.size - at), at == f.offset ? note : "");
        end_of_fields = f.offset + f.size;
    }
    if (end_of_fields < sizeof(etw_event_trace_properties))
        hex_line(b, end_of_fields, sizeof(etw_event_trace_properties) - end_of_fields, "(padding)");
    etw_event_trace_properties rec;
    std::memcpy(&rec, b.data(), sizeof rec);
    struct Region {
        uint32_t offset;
        const char *what;
        const char *text;
    };
    const Region regions[] = {{rec.LoggerNameOffset, "session name", etw_properties_session_name(props)},
                              {rec.LogFileNameOffset, "log file name", etw_properties_log_file_name(props)}};
    for (std::size_t r = 0; r < 2; ++r) {
        const Region &reg = regions[r];
        if (reg.offset == 0)
            continue;
        const std::size_t stop = (r == 0 && rec.LogFileNameOffset) ? rec.LogFileNameOffset : b.size();
        for (std::size_t at = reg.offset; at < stop; at += 16)
            hex_line(b, at, std::min<std::size_t>(16, stop - at),
                     at == reg.offset ? std::string(reg.what) + " (UTF-16LE): \"" + reg.text + "\"" : "");
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::string name = "OpenETW Demo", file, import_path, write_path;
    struct Setting {
        const char *flag;
        etw_status (*set)(etw_properties *, uint32_t);
        uint32_t value;
        bool given;
    };
    Setting settings[] = {
        {"--buffer-kb", etw_properties_set_buffer_size, 0, false},
        {"--min-buffers", etw_properties_set_minimum_buffers, 0, false},
        {"--max-buffers", etw_properties_set_maximum_buffers, 0, false},
        {"--max-file", etw_properties_set_maximum_file_size, 0, false},
        {"--flush-timer", etw_properties_set_flush_timer, 0, false},
        {"--enable-flags", etw_properties_set_enable_flags, 0, false},
        {"--clock", etw_properties_set_clock_type, 0, false},
        {"--mode", etw_properties_set_log_file_mode, 0, false},
    };
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (i + 1 >= argc)
            die(("missing value after " + arg + "\n" + kUsage).c_str());
        const char *value = argv[++i];
        if (arg == "--name")
            name = value;
        else if (arg == "--file")
            file = value;
        else if (arg == "--import")
            import_path = value;
        else if (arg == "--write")
            write_path = value;
        else {
            bool known = false;
            for (Setting &s : settings)
                if (arg == s.flag) {
                    s.value = arg == "--mode" ? parse_mode(value) : parse_number(value);
                    s.given = known = true;
                }
            if (!known)
                die(("unknown option " + arg + "\n" + kUsage).c_str());
        }
    }

    std::vector<unsigned char> block;
    etw_properties *props = nullptr;
    etw_status s;
    if (!import_path.empty()) {
        if (!read_block(import_path, block))
            die(("cannot read " + import_path + " (not a readable regular file)").c_str());
        if ((s = etw_properties_import(&props, block.data(), block.size())) != ETW_OK)
            die_status("import", s);
    } else {
        if ((s = etw_properties_create(&props, name.c_str())) != ETW_OK)
            die_status("--name", s);
        if (!file.empty() && (s = etw_properties_set_log_file_name(props, file.c_str())) != ETW_OK)
            die_status("--file", s);
        if (file.empty() && !settings[7].given)
            etw_properties_set_log_file_mode(props, ETW_REAL_TIME_MODE); // a session needs a destination
        for (const Setting &st : settings)
            if (st.given && (s = st.set(props, st.value)) != ETW_OK)
                die_status(st.flag, s);
        if ((s = etw_properties_validate(props)) != ETW_OK)
            die_status("validate", s);
        size_t size = 0;
        etw_properties_export(nullptr, 0, &size, props);
        block.resize(size);
        if ((s = etw_properties_export(block.data(), block.size(), &size, props)) != ETW_OK)
            die_status("export", s);
    }
    dump(block, props);

    etw_properties *back = nullptr;
    if ((s = etw_properties_import(&back, block.data(), block.size())) != ETW_OK)
        die_status("re-import", s);
    size_t size = 0;
    etw_properties_export(nullptr, 0, &size, back);
    std::vector<unsigned char> again(size);
    etw_properties_export(again.data(), again.size(), &size, back);
    const bool exact = again == block;
    std::printf("\nimported back: session \"%s\", log file \"%s\", mode 0x%08x, %u KB buffers\n",
                etw_properties_session_name(back), etw_properties_log_file_name(back),
                etw_properties_log_file_mode(back), etw_properties_buffer_size(back));
    std::printf("round trip: %s (%zu bytes)\n", exact ? "exact" : "DIFFERENT", block.size());
    if (!write_path.empty()) {
        std::ofstream out(write_path, std::ios::binary);
        out.write(reinterpret_cast<const char *>(block.data()), static_cast<std::streamsize>(block.size()));
        if (!out)
            die(("cannot write " + write_path).c_str());
    }
    etw_properties_destroy(back);
    etw_properties_destroy(props);
    return exact ? 0 : 1;
}
