#include "decoding.hpp"

#include <cstring>

namespace etwdump {

bool Decoding::parse(int argc, char **argv, int &i, std::string &error)
{
    if (std::strcmp(argv[i], "--no-decode") == 0) {
        enabled_ = false;
        return true;
    }
    if (std::strcmp(argv[i], "--manifest") == 0) {
        if (i + 1 >= argc)
            error = "--manifest needs a file";
        else
            sources_.emplace_back(Kind::Manifest, argv[++i]);
        return true;
    }
    if (std::strcmp(argv[i], "--binary") == 0) {
        if (i + 1 >= argc)
            error = "--binary needs a file";
        else
            sources_.emplace_back(Kind::Binary, argv[++i]);
        return true;
    }
    if (std::strcmp(argv[i], "--tmf") == 0) {
        if (i + 1 >= argc)
            error = "--tmf needs a file or directory";
        else
            sources_.emplace_back(Kind::Tmf, argv[++i]);
        return true;
    }
    return false;
}

bool Decoding::open(std::string &error)
{
    if (!enabled_)
        return true;
    if (etw_decoder_create(&decoder_) != ETW_OK) {
        error = etw_last_error_message();
        return false;
    }
    for (const auto &[kind, path] : sources_) {
        const etw_status st = kind == Kind::Binary ? etw_decoder_load_binary(decoder_, path.c_str())
                              : kind == Kind::Tmf  ? etw_decoder_load_tmf(decoder_, path.c_str())
                                                   : etw_decoder_load_manifest(decoder_, path.c_str());
        if (st != ETW_OK) {
            error = etw_last_error_message();
            return false;
        }
    }
    return true;
}

const etw_decoded_event *Decoding::decode(const etw_record &record)
{
    if (!decoder_)
        return nullptr;
    const etw_decoded_event *event = nullptr;
    const etw_status status = etw_decoder_decode(&event, decoder_, &record);
    if (status != ETW_OK && status != ETW_ERROR_NOT_FOUND && failures_++ == 0)
        first_failure_ = etw_last_error_message();
    return event;
}

} // namespace etwdump

namespace etwdump {

void Decoding::report(std::FILE *to) const
{
    if (failures_)
        std::fprintf(to, "etwdump: %llu events did not match their schema and are shown undecoded; the first: %s\n",
                     failures_, first_failure_.c_str());
}

} // namespace etwdump
