// etwdump:
// Reads .etl files (OpenETW's or Windows'), a stream or a live session, and
// prints a summary, or every record as JSON Lines or CSV, or sends them as
// OpenTelemetry logs (--otlp). Uses only the public API, and src/otlp.
// Exit status: 0 clean (or only warnings), 1 cannot read, 2 corrupt input
// (good records are still printed) or, with --strict, warnings, 3 records
// the OTLP export could not deliver.
#include <openetw/openetw.h>

#include "decoding.hpp"
#include "interrupt.hpp"
#include "otlp_option.hpp"
#include "profile.hpp"
#include "record_writer.hpp"
#include "summary.hpp"
#include "text_records.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <io.h>
#define ETWDUMP_ISATTY(fd) _isatty(fd)
#else
#include <unistd.h>
#define ETWDUMP_ISATTY(fd) isatty(fd)
#endif

namespace {

const char kUsage[] =
    "usage: etwdump [options] FILE...\n"
    "       etwdump [options] --session NAME\n"
    "  FILE: an .etl file, or a NATS JetStream stream sessions export to:\n"
    "        nats://HOST:PORT/STREAM[?since=YYYY-MM-DDTHH:MM:SSZ] (credentials: the file\n"
    "        $OPENETW_NATS_CREDENTIALS names; docs/FLEET.md)\n"
    "  --follow                     with one nats:// stream: after what it holds, print what\n"
    "                               sessions publish to it until Ctrl-C (records merged in time\n"
    "                               order 3 s behind this machine's clock; --order file: as they\n"
    "                               come)\n"
    "  --session NAME               follow the running real-time session NAME until it stops\n"
    "                               (or Ctrl-C: what was read is still sent and reported)\n"
    "  --format summary|jsonl|csv|text|profile  output (default summary); jsonl and text add\n"
    "                               the event name and fields of events that decode, text the\n"
    "                               frames of user stacks as module!function+offset; profile\n"
    "                               ranks each process's functions by sampled-profile samples\n"
    "  --top N                      profile: functions shown per process (default 10)\n"
    "  --debug-dir DIR              profile, text: where debug files are found by the build ids the\n"
    "                               trace recorded, as DIR/.build-id/xx/yyyy.debug (default\n"
    "                               /usr/lib/debug; the image's own file is used after it)\n"
    "  --order time|file            time: per-processor sequence merged by timestamp (default);\n"
    "                               file: buffer by buffer as stored, records by offset\n"
    "  --payload                    add each record's payload as hex (jsonl, csv)\n" ETWDUMP_DECODING_USAGE
        ETWDUMP_OTLP_USAGE
    "  --strict                     exit 2 on warnings too (a buffer header that disagrees with\n"
    "                               its records, all of which were still read)\n"
    "  --help                       this text\n"
    "exit status: 0 clean or only warnings, 1 cannot read, 2 corrupt records found (or warnings,\n"
    "with --strict), 3 records the OTLP export could not deliver (it says how many)\n";

enum class Output { Summary, Jsonl, Csv, Text, Profile };

struct Context {
    Output output = Output::Summary;
    etwdump::RecordWriter *writer = nullptr;
    etwdump::TextRecordWriter *text = nullptr;
    etwdump::Decoding decoding;
    etwdump::Summary summary;
    etwdump::Profile *profile = nullptr;
    etwdump::OtlpOption *otlp = nullptr;
    uint64_t warnings = 0;     // buffers flagged ETW_BUFFER_STATUS_WARNING
    uint64_t unread = 0;       // --follow: buffers the stream removed before they were read
    bool live = false;         // --session, --follow: each buffer's lines are out once it is done
    bool otlp_refused = false; // the OTLP receiver refused the credentials: reading stopped
    // Progress bar on a terminal, for large inputs.
    bool progress = false;
    uint64_t total_bytes = 0;
    uint64_t done_bytes = 0;
    int shown_percent = -1;
};

int32_t on_record(void *user, const etw_record *record)
{
    auto *ctx = static_cast<Context *>(user);
    if (ctx->otlp) {
        if (!ctx->otlp->add(*record, ctx->decoding.decode(*record))) {
            ctx->otlp_refused = true;
            return 1; // nothing more would be sent
        }
    } else if (ctx->profile)
        ctx->profile->add(*record, ctx->decoding.decode(*record));
    else if (ctx->text)
        ctx->text->write(*record, ctx->decoding.decode(*record));
    else if (ctx->writer)
        ctx->writer->write(*record, ctx->output == Output::Jsonl ? ctx->decoding.decode(*record) : nullptr);
    else
        ctx->summary.add(*record);
    return 0;
}

int32_t on_loss(void *user, const etw_loss_info *loss)
{
    static_cast<Context *>(user)->unread += loss->buffers_lost;
    return 0;
}

int32_t on_buffer(void *user, const etw_buffer_info *buffer)
{
    auto *ctx = static_cast<Context *>(user);
    const bool warning = (buffer->status_flags & ETW_BUFFER_STATUS_WARNING) != 0;
    const bool corrupt = (buffer->status_flags & ETW_BUFFER_STATUS_CORRUPT) != 0;
    if (warning)
        ++ctx->warnings;
    if (ctx->live && ctx->writer)
        ctx->writer->flush();
    if (ctx->live && ctx->text)
        ctx->text->flush();
    if (buffer->status != ETW_OK)
        std::fprintf(stderr, "%setwdump: %s%s\n", ctx->progress ? "\r\033[K" : "",
                     warning && !corrupt ? "warning: " : "", buffer->message);
    if (!ctx->progress)
        return 0;
    ctx->done_bytes += buffer->stored_size;
    const int percent = ctx->total_bytes ? int(ctx->done_bytes * 100 / ctx->total_bytes) : 100;
    if (percent != ctx->shown_percent) {
        ctx->shown_percent = percent;
        const int width = 40, filled = percent * width / 100;
        std::fprintf(stderr, "\r[%.*s%*s] %3d%%", filled, "########################################", width - filled,
                     "", percent);
        std::fflush(stderr);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    Context ctx;
    uint32_t flags = ETW_CONSUMER_ORDER_TIME;
    bool payload = false;
    bool strict = false;
    bool follow = false;
    unsigned top = 10;
    std::string debug_dir = "/usr/lib/debug";
    std::vector<const char *> files;
    std::string session;
    etwdump::OtlpOption otlp;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "etwdump: %s needs a value\n%s", arg.c_str(), kUsage);
                std::exit(1);
            }
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (arg == "--format") {
            const std::string v = value();
            if (v == "summary")
                ctx.output = Output::Summary;
            else if (v == "jsonl")
                ctx.output = Output::Jsonl;
            else if (v == "csv")
                ctx.output = Output::Csv;
            else if (v == "text")
                ctx.output = Output::Text;
            else if (v == "profile")
                ctx.output = Output::Profile;
            else {
                std::fprintf(stderr, "etwdump: unknown format '%s'\n%s", v.c_str(), kUsage);
                return 1;
            }
        } else if (arg == "--top") {
            const std::string v = value();
            char *end = nullptr;
            const unsigned long n = std::strtoul(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || n == 0 || n > 100000) {
                std::fprintf(stderr, "etwdump: --top takes a count from 1 to 100000, not '%s'\n%s", v.c_str(), kUsage);
                return 1;
            }
            top = unsigned(n);
        } else if (arg == "--debug-dir") {
            debug_dir = value();
        } else if (arg == "--order") {
            const std::string v = value();
            if (v == "time")
                flags = ETW_CONSUMER_ORDER_TIME;
            else if (v == "file")
                flags = ETW_CONSUMER_ORDER_FILE;
            else {
                std::fprintf(stderr, "etwdump: unknown order '%s'\n%s", v.c_str(), kUsage);
                return 1;
            }
        } else if (std::string error; ctx.decoding.parse(argc, argv, i, error)) {
            if (!error.empty()) {
                std::fprintf(stderr, "etwdump: %s\n%s", error.c_str(), kUsage);
                return 1;
            }
        } else if (std::string error; otlp.parse(argc, argv, i, error)) {
            if (!error.empty()) {
                std::fprintf(stderr, "etwdump: %s\n%s", error.c_str(), kUsage);
                return 1;
            }
        } else if (arg == "--session") {
            session = value();
        } else if (arg == "--follow") {
            follow = true;
        } else if (arg == "--payload") {
            payload = true;
        } else if (arg == "--strict") {
            strict = true;
        } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
            std::fprintf(stderr, "etwdump: unknown option '%s'\n%s", arg.c_str(), kUsage);
            return 1;
        } else {
            files.push_back(argv[i]);
        }
    }
    if (files.empty() == session.empty()) {
        std::fputs(session.empty() ? kUsage : "etwdump: --session NAME or files, not both\n", stderr);
        return 1;
    }
    std::string followed; // the stream's URL with follow=1
    if (follow) {
        if (files.size() != 1 || std::strncmp(files[0], "nats://", 7) != 0) {
            std::fputs("etwdump: --follow reads one stream (nats://HOST:PORT/STREAM), alone\n", stderr);
            return 1;
        }
        followed = std::string(files[0]) + (std::strchr(files[0], '?') ? "&follow=1" : "?follow=1");
        files[0] = followed.c_str();
    }
    const bool live = !session.empty() || follow; // ended by Ctrl-C
    ctx.live = live;
    if (std::string error; !ctx.decoding.open(error)) {
        std::fprintf(stderr, "etwdump: %s\n", error.c_str());
        return 1;
    }

    etw_consumer_options options{};
    options.struct_size = sizeof options;
    options.flags = flags;
    options.record = on_record;
    options.buffer = on_buffer;
    options.user_data = &ctx;
    if (live)
        etwdump::hold_interrupts(); // before the export's thread and the consumer's start
    if (otlp.wanted()) {
        if (std::string error; !otlp.open(!session.empty(), error)) {
            std::fprintf(stderr, "etwdump: %s\n", error.c_str());
            return 1;
        }
        ctx.otlp = &otlp;
    }
    etw_consumer *consumer = nullptr;
    const etw_status opened =
        session.empty() ? etw_consumer_open(&consumer, files.data(), static_cast<uint32_t>(files.size()), &options)
                        : etw_consumer_open_session(&consumer, session.c_str(), &options);
    if (opened != ETW_OK) {
        std::fprintf(stderr, "etwdump: %s\n", etw_last_error_message());
        return 1;
    }

    if (follow)
        etw_consumer_set_loss_callback(consumer, on_loss);
    if (live)
        etwdump::watch_interrupts(consumer);
    for (uint32_t i = 0; i < files.size(); ++i) {
        etw_logfile_info info{};
        info.struct_size = sizeof info;
        if (etw_consumer_logfile_header(&info, consumer, i) == ETW_OK)
            ctx.total_bytes += info.file_size;
    }
    ctx.progress = ETWDUMP_ISATTY(2) && ctx.total_bytes >= (64u << 20);

    etwdump::ModuleMap modules(debug_dir); // names the frames of user stacks (text, jsonl)
    etwdump::RecordWriter writer(
        stdout, ctx.output == Output::Csv ? etwdump::RecordWriter::Format::Csv : etwdump::RecordWriter::Format::Jsonl,
        payload, files.size() > 1);
    etwdump::TextRecordWriter text(stdout, &modules);
    etwdump::Profile profile(top, debug_dir);
    if (ctx.output == Output::Profile) {
        ctx.profile = &profile;
    } else if (ctx.output == Output::Text) {
        ctx.text = &text;
    } else if (ctx.otlp == nullptr && ctx.output != Output::Summary) {
        ctx.writer = &writer;
        if (ctx.output == Output::Jsonl)
            writer.set_modules(&modules);
        writer.header();
    }
    etw_status status = etw_consumer_process(consumer);
    etwdump::stop_watching_interrupts(); // a Ctrl-C from here on ends the program
    if (status == ETW_ERROR_CANCELLED && (etwdump::interrupted() || ctx.otlp_refused))
        status = ETW_OK; // the user ended the following, or the export stopped: its report says why
    bool delivered = true;
    const std::string message = etw_last_error_message();
    if (ctx.unread != 0)
        std::fprintf(stderr,
                     "etwdump: %llu buffers of the stream were not read (its retention removed them first, or "
                     "their session's header buffer was not in it)\n",
                     (unsigned long long)ctx.unread);
    writer.flush();
    text.flush();
    ctx.decoding.report(stderr);
    if (ctx.progress)
        std::fputs("\r\033[K", stderr);
    if (ctx.otlp) {
        std::fputs("etwdump: ", stderr);
        delivered = otlp.finish(stderr);
    } else if (ctx.output == Output::Summary)
        ctx.summary.print(stdout, consumer, status, ctx.warnings);
    else if (ctx.output == Output::Profile) {
        profile.print(stdout);
        for (const std::string &line : profile.changed())
            std::fprintf(stderr, "etwdump: %s\n", line.c_str());
    }
    etw_consumer_close(consumer);
    std::fflush(stdout);

    if (!delivered && status == ETW_OK)
        return 3;
    if (status == ETW_OK) {
        if (ctx.warnings == 0)
            return 0;
        std::fprintf(stderr, "etwdump: %llu buffers with warnings (their records were all read)%s\n",
                     (unsigned long long)ctx.warnings, strict ? "; --strict: exit 2" : "");
        return strict ? 2 : 0;
    }
    std::fprintf(stderr, "etwdump: %s\n", message.c_str());
    // Damaged input is exit 2 (what could be read was printed); I/O errors and the like are 1.
    switch (status) {
    case ETW_ERROR_HANDLE_EOF:
    case ETW_ERROR_BAD_LENGTH:
    case ETW_ERROR_INVALID_DATA:
    case ETW_ERROR_NOT_SUPPORTED:
        return 2;
    default:
        return 1;
    }
}
