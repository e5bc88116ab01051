// etwdump's decoding options and the decoder they configure: events with a
// known schema get their name and fields in jsonl and text output.
#pragma once

#include <openetw/openetw.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace etwdump {

// The usage lines of the decoding options.
#define ETWDUMP_DECODING_USAGE                                                                                         \
    "  --no-decode                  no event names and fields (jsonl, text)\n"                                         \
    "  --manifest FILE              decode the events of an instrumentation manifest\n"                                \
    "                               (.man XML; repeatable)\n"                                                          \
    "  --binary FILE                decode the events of the manifest compiled into a\n"                               \
    "                               provider's DLL/EXE (WEVT_TEMPLATE; repeatable)\n"                                  \
    "  --tmf PATH                   decode WPP messages with a TMF file, or the .tmf\n"                                \
    "                               files of a directory (repeatable)\n"

class Decoding {
public:
    Decoding() = default;
    Decoding(const Decoding &) = delete;
    Decoding &operator=(const Decoding &) = delete;
    ~Decoding() { etw_decoder_destroy(decoder_); }

    // Takes argv[i] when it is a decoding option (and its value: i moves on).
    // Returns false when it is not one; sets error when its value is missing.
    bool parse(int argc, char **argv, int &i, std::string &error);
    // Creates the decoder and loads the sources; false (with error) on failure.
    bool open(std::string &error);
    // The decoded event, or NULL (unknown schema, or a payload that does not
    // match: that is counted and the first message kept).
    const etw_decoded_event *decode(const etw_record &record);
    // Tells how many events did not match their schema, if any.
    void report(std::FILE *to) const;

private:
    bool enabled_ = true;
    enum class Kind { Manifest, Binary, Tmf };
    std::vector<std::pair<Kind, std::string>> sources_; // in command-line order
    etw_decoder *decoder_ = nullptr;
    unsigned long long failures_ = 0;
    std::string first_failure_;
};

} // namespace etwdump
