// etwdump as a user runs it: --format jsonl on every sample equals the
// golden record lists; exit statuses for damaged and missing files; csv and
// summary output.
#include "etl_builder.hpp"
#include "flat_json.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#if defined(_WIN32)
#define popen _popen
#define pclose _pclose
#else
#include <sys/stat.h>
#include <sys/wait.h>
#endif

namespace fs = std::filesystem;
using etltest::JsonObject;

namespace {

const fs::path kSamples = OPENETW_SAMPLES_DIR;
const fs::path kRegress = OPENETW_REGRESS_DIR; // inputs of fixed defects

// Paths as the shell of this platform takes them. A cross build run under
// wine knows its files by Unix paths, which wine maps to drive Z:.
std::string native(std::string p)
{
#if defined(_WIN32)
    if (!p.empty() && p[0] == '/') {
        p = "Z:" + p;
        std::replace(p.begin(), p.end(), '/', '\\');
    }
#endif
    return p;
}

std::string etwdump() { return native(ETWDUMP_PATH); }

struct Output {
    int exit_code = -1;
    std::vector<std::string> lines;
};

// Runs program (etwdump unless said) with args; prefix goes before it (a
// `timeout` on POSIX). stderr is dropped, or with keep_stderr mixed in.
Output run(const std::string &args, const std::string &program = etwdump(), const std::string &prefix = "",
           bool keep_stderr = false)
{
    Output out;
#if defined(_WIN32)
    // cmd.exe drops the outermost quotes of a command line that starts with one.
    const std::string command =
        "\"" + prefix + "\"" + program + "\" " + args + (keep_stderr ? " 2>&1" : " 2>NUL") + "\"";
#else
    const std::string command = prefix + "\"" + program + "\" " + args + (keep_stderr ? " 2>&1" : " 2>/dev/null");
#endif
    std::FILE *p = popen(command.c_str(), "r");
    if (!p)
        return out;
    std::string line;
    char buf[65536];
    while (std::fgets(buf, sizeof buf, p)) {
        line += buf;
        if (!line.empty() && line.back() == '\n') {
            line.pop_back();
            out.lines.push_back(line);
            line.clear();
        }
    }
    const int status = pclose(p);
#if defined(_WIN32)
    out.exit_code = status;
#else
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#endif
    return out;
}

std::vector<JsonObject> golden_records(const std::string &name)
{
    std::ifstream in(kSamples / "golden" / (name + ".records.jsonl"));
    std::vector<JsonObject> records;
    for (std::string line; std::getline(in, line);)
        records.push_back(*etltest::parse_flat_json(line));
    return records;
}

std::string quoted(const fs::path &p) { return "\"" + native(p.string()) + "\""; }

} // namespace

TEST(Etwdump, JsonlEqualsTheGoldenRecordsOfEverySample)
{
    int samples = 0;
    for (const auto &entry : fs::directory_iterator(kSamples)) {
        if (entry.path().extension() != ".etl")
            continue;
        ++samples;
        const std::string name = entry.path().stem().string();
        const Output out = run("--format jsonl --order file --no-decode " + quoted(entry.path()));
        EXPECT_EQ(out.exit_code, 0) << name;
        const auto golden = golden_records(name);
        ASSERT_EQ(out.lines.size(), golden.size()) << name;
        for (std::size_t i = 0; i < golden.size(); ++i) {
            auto mine = etltest::parse_flat_json(out.lines[i]);
            ASSERT_TRUE(mine) << out.lines[i];
            // payload_size is the one field etwdump adds to the golden ones,
            // with an EVENT_HEADER record's descriptor and activity ids.
            ASSERT_TRUE(mine->count("payload_size")) << out.lines[i];
            const auto payload_size = std::get<std::int64_t>(mine->at("payload_size"));
            EXPECT_LE(payload_size, std::get<std::int64_t>(golden[i].at("size"))) << name << " " << i;
            mine->erase("payload_size");
            if (std::get<std::string>(golden[i].at("kind")) == "event") {
                for (const char *k : {"activity_id", "channel", "event_flags", "keyword", "task"}) {
                    EXPECT_TRUE(mine->count(k)) << name << " record " << i << " has no " << k;
                    mine->erase(k);
                }
                mine->erase("related_activity_id"); // only when the record has the item
            }
            std::set<std::string> mk, gk;
            for (const auto &kv : *mine)
                mk.insert(kv.first);
            for (const auto &kv : golden[i])
                gk.insert(kv.first);
            ASSERT_EQ(mk, gk) << name << " record " << i;
            for (const auto &[key, value] : golden[i]) {
                if (key == "timestamp_filetime") {
                    const auto d = std::get<std::int64_t>(mine->at(key)) - std::get<std::int64_t>(value);
                    EXPECT_LE(std::llabs(d), 1) << name << " record " << i;
                } else {
                    EXPECT_EQ(mine->at(key), value) << name << " record " << i << " " << key;
                }
            }
        }
    }
    EXPECT_GE(samples, 8);
}

TEST(Etwdump, PayloadHex)
{
    const Output out =
        run("--format jsonl --order file --payload " + quoted(kSamples / "s4_CldFlt0-2025-12-21-121418.etl"));
    ASSERT_EQ(out.exit_code, 0);
    ASSERT_GE(out.lines.size(), 3u);
    // The BUILD_LAB perfinfo record: an ASCII build string.
    auto rec = *etltest::parse_flat_json(out.lines[2]);
    const std::string hex = std::get<std::string>(rec.at("payload"));
    EXPECT_EQ(hex.size(), 2 * std::size_t(std::get<std::int64_t>(rec.at("payload_size"))));
    EXPECT_EQ(hex.substr(0, 10), "3236313030"); // "26100"
}

TEST(Etwdump, CsvHasAHeaderAndOneRowPerRecord)
{
    const Output out = run("--format csv " + quoted(kSamples / "pv_SelfDescribingSingleEvent.etl"));
    ASSERT_EQ(out.exit_code, 0);
    ASSERT_EQ(out.lines.size(), 1u + 23);
    EXPECT_EQ(out.lines[0], "buffer,offset,cpu,kind,header_type,size,thread_id,process_id,timestamp_raw,"
                            "timestamp_filetime,guid,hook_id,event_id,opcode,level,version,message_number,"
                            "payload_size");
    for (const auto &line : out.lines)
        EXPECT_EQ(std::count(line.begin(), line.end(), ','), 17) << line;
}

TEST(Etwdump, SummaryNamesTheSessionAndCounts)
{
    const Output out = run(quoted(kSamples / "etlparser_AMSITrace.etl"));
    ASSERT_EQ(out.exit_code, 0);
    std::string all;
    for (const auto &l : out.lines)
        all += l + "\n";
    EXPECT_NE(all.find("session:      AMSITraceSession"), std::string::npos) << all;
    EXPECT_NE(all.find("mode:         0x08000001 (sequential|independent-session)"), std::string::npos) << all;
    EXPECT_NE(all.find("events lost:  3"), std::string::npos) << all;
    EXPECT_NE(all.find("records: 21 in 6 buffers"), std::string::npos) << all;
    EXPECT_NE(all.find("  event      19"), std::string::npos) << all;
    EXPECT_NE(all.find("  8e805eb3-6a8f-4a1e-90fa-a831d94e54a1   19"), std::string::npos) << all;
}

TEST(Etwdump, ExitStatuses)
{
    // Cannot read: 1.
    EXPECT_EQ(run(quoted(fs::temp_directory_path() / "openetw-no-such-file.etl")).exit_code, 1);
    EXPECT_EQ(run("--format nonsense x.etl").exit_code, 1);
    // Damaged: 2, and the good records are still printed.
    etltest::Bytes bytes = etltest::read_file((kSamples / "krabs_powershell.etl").string());
    bytes.resize(bytes.size() - 8192 + 100);
    const fs::path cut =
        fs::temp_directory_path() / ("openetw-etwdump-cut-" + std::to_string(std::random_device{}()) + ".etl");
    etltest::write_file(cut.string(), bytes);
    const Output out = run("--format jsonl --order file " + quoted(cut));
    fs::remove(cut);
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_GE(out.lines.size(), 100u);
}

// Copies of a sample whose buffer header Offset (0x30) disagrees with the
// records: every record is printed, the warning names the buffer and both
// ends, and only --strict makes it a failure.
TEST(Etwdump, AnOffsetThatDisagreesWithTheRecordsIsAWarning)
{
    const fs::path sample = kSamples / "s4_CldFlt0-2025-12-21-121418.etl";
    const Output clean = run("--format jsonl --order file " + quoted(sample));
    ASSERT_EQ(clean.exit_code, 0);
    ASSERT_EQ(clean.lines.size(), 17u);
    struct Case {
        std::size_t at; // Offset field in the file
        std::uint32_t offset;
        std::string warning;
    };
    const Case cases[] = {
        // Beyond BufferSize (the header buffer's SavedOffset 0x250 stops before its last two records).
        {0x30, 0x080002B8,
         "file offset 0x30 (buffer 0 at 0x0, offset 0x30): Offset 0x80002B8 is outside "
         "0x48..BufferSize 0x1000 and SavedOffset 0x250 falls short of the records, which run on "
         "to 0x2B8: they are read up to there"},
        // Short of the records: six WPP messages follow it.
        {0x1030, 0x1C8,
         "file offset 0x1030 (buffer 1 at 0x1000, offset 0x30): Offset 0x1C8 falls short of the "
         "records, which run on to 0x388: they are read up to there"},
    };
    for (const Case &c : cases) {
        etltest::Bytes bytes = etltest::read_file(sample.string());
        etltest::put32(bytes, c.at, c.offset);
        const fs::path path =
            fs::temp_directory_path() / ("openetw-etwdump-offset-" + std::to_string(std::random_device{}()) + ".etl");
        etltest::write_file(path.string(), bytes);
        const Output jsonl = run("--format jsonl --order file " + quoted(path));
        const Output strict = run("--strict --format jsonl --order file " + quoted(path));
        const Output summary = run(quoted(path), etwdump(), "", true);
        const Output strict_summary = run("--strict " + quoted(path), etwdump(), "", true);
        fs::remove(path);
        EXPECT_EQ(jsonl.exit_code, 0) << c.warning;
        EXPECT_EQ(jsonl.lines, clean.lines) << c.warning;
        EXPECT_EQ(strict.exit_code, 2) << c.warning;
        EXPECT_EQ(strict.lines, clean.lines) << c.warning;
        EXPECT_EQ(summary.exit_code, 0) << c.warning;
        EXPECT_EQ(strict_summary.exit_code, 2) << c.warning;
        std::string all;
        for (const auto &l : summary.lines)
            all += l + "\n";
        EXPECT_NE(all.find("etwdump: warning: " + native(path.string()) + ": " + c.warning + "\n"), std::string::npos)
            << all;
        EXPECT_NE(all.find("records: 17 in 2 buffers"), std::string::npos) << all;
        EXPECT_NE(all.find("  warnings:     1 buffers whose header disagrees with their records\n"), std::string::npos)
            << all;
    }
}

TEST(Etwdump, AKilledHostsFileIsReadByItsBuffersAndExits2)
{
    // BuffersWritten 1, as written at start: every buffer is still read.
    etltest::Bytes bytes = etltest::read_file((kSamples / "etlparser_AMSITrace.etl").string());
    bytes[0x48 + 0x20 + 0x24] = 1;
    const fs::path path =
        fs::temp_directory_path() / ("openetw-etwdump-killed-" + std::to_string(std::random_device{}()) + ".etl");
    etltest::write_file(path.string(), bytes);
    const Output out = run("--format jsonl --order file " + quoted(path));
    fs::remove(path);
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_EQ(out.lines.size(), 21u);
}

TEST(Etwdump, SummaryOfFilesWithFarApartTimes)
{
    // Their time spans overflowed int64 (found by UBSan, which the sanitizer
    // build makes fatal): every one is summarized.
    for (const char *name : {"summary_timespan_overflow.etl", "etwdump_m107_00243.etl", "etwdump_m101_00357.etl"}) {
        const Output out = run(quoted(kRegress / name));
        EXPECT_TRUE(out.exit_code == 0 || out.exit_code == 2) << name << ": " << out.exit_code;
        std::string all;
        for (const auto &l : out.lines)
            all += l + "\n";
        EXPECT_NE(all.find("records: "), std::string::npos) << name << ": " << all;
    }
}

#if !defined(_WIN32)
TEST(Etwdump, AFifoWithoutWriterIsRefusedAtOnce)
{
    const fs::path fifo =
        fs::temp_directory_path() / ("openetw-etwdump-fifo-" + std::to_string(std::random_device{}()));
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const Output out = run(quoted(fifo), etwdump(), "timeout 20 ");
    fs::remove(fifo);
    EXPECT_EQ(out.exit_code, 1); // not a regular file; 124 would be a hang
}
#endif

#if defined(ETWPROPS_PATH)
TEST(Etwprops, ImportingAFolderIsAnErrorNotACrash)
{
    const Output out = run("--import " + quoted(fs::temp_directory_path()), native(ETWPROPS_PATH));
    EXPECT_EQ(out.exit_code, 1);
}
#endif
