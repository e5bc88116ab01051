// The object behind etw_decoder: the format layer's EventDecoder plus the
// public view of the last decoded event (names, formatted values and
// property records kept in buffers reused from one event to the next).
#pragma once

#include "base/status.hpp"
#include "decode/event_decoder.hpp"
#include "decode/manifest.hpp"
#include "decode/tmf.hpp"

#include <openetw/decode.h>

#include <string>
#include <vector>

namespace openetw::decode {

class Decoder {
public:
    Decoder(); // with the kernel MOF classes as a source

    decode::EventDecoder &events() { return decoder_; }

    // See etw_decoder_decode. On success *out points at view_.
    Status decode(const etw_record &record, const etw_decoded_event *&out);

    // See etw_decoder_load_manifest / _load_manifest_text. `name` names the
    // document in messages.
    Status load_manifest_file(const std::string &path);
    Status load_manifest(std::span<const std::uint8_t> document, const std::string &name);

    // See etw_decoder_load_binary / _load_binary_image.
    Status load_binary_file(const std::string &path);
    Status load_binary(std::span<const std::uint8_t> image, const std::string &name);

    // See etw_decoder_load_tmf / _load_tmf_text (decoder_tmf.cpp).
    Status load_tmf_path(const std::string &path);
    Status load_tmf(std::span<const std::uint8_t> text, const std::string &name);

private:
    decode::EventDecoder decoder_;
    std::shared_ptr<decode::ManifestSchemas> manifests_;
    std::shared_ptr<decode::TmfSchemas> tmf_;
    decode::DecodedEvent event_;
    format::Problem problem_;
    void add_wpp_message(const etw_record &record);

    std::string text_; // the values, NUL-separated
    std::string scratch_;
    std::vector<std::uint32_t> text_at_; // offset of each property's value in text_
    std::vector<etw_event_property> props_;
    etw_decoded_event view_{};
};

} // namespace openetw::decode
