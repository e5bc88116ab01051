// extern "C" shims of decode.h: argument checks; the work is in
// src/decode (the decoder object in decoder.cpp).
#include <openetw/decode.h>

#include "api/guard.hpp"
#include "decode/decoder.hpp"

#include <cstddef>

using openetw::Fail;
using openetw::Status;
using openetw::api::guarded;
using openetw::decode::Decoder;

static Decoder *impl(etw_decoder *d) { return reinterpret_cast<Decoder *>(d); }

extern "C" {

ETW_API etw_status etw_decoder_create(etw_decoder **out)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = reinterpret_cast<etw_decoder *>(new Decoder());
        return Status::ok();
    });
}

ETW_API void etw_decoder_destroy(etw_decoder *decoder) { delete impl(decoder); }

ETW_API etw_status etw_decoder_decode(const etw_decoded_event **out, etw_decoder *decoder, const etw_record *record)
{
    if (out)
        *out = nullptr;
    const etw_status status = guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(decoder);
        ETW_REQUIRE_ARG(record);
        if (record->struct_size < offsetof(etw_record, extended) + sizeof record->extended)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "record->struct_size is smaller than the first etw_record");
        return impl(decoder)->decode(*record, *out);
    });
    // Unknown events are common: a static sentence, copied into the thread's reused message buffer.
    if (status == ETW_ERROR_NOT_FOUND)
        return openetw::api::set_last(ETW_ERROR_NOT_FOUND, "no schema describes this event");
    return status;
}

ETW_API etw_status etw_decoder_load_manifest(etw_decoder *decoder, const char *path)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(decoder);
        ETW_REQUIRE_ARG(path);
        return impl(decoder)->load_manifest_file(path);
    });
}

ETW_API etw_status etw_decoder_load_manifest_text(etw_decoder *decoder, const char *text, size_t size)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(decoder);
        if (!text && size)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "text is NULL");
        return impl(decoder)->load_manifest({reinterpret_cast<const std::uint8_t *>(text), size}, "(memory)");
    });
}

ETW_API etw_status etw_decoder_load_binary(etw_decoder *decoder, const char *path)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(decoder);
        ETW_REQUIRE_ARG(path);
        return impl(decoder)->load_binary_file(path);
    });
}

ETW_API etw_status etw_decoder_load_binary_image(etw_decoder *decoder, const void *image, size_t size)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(decoder);
        if (!image && size)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "image is NULL");
        return impl(decoder)->load_binary({static_cast<const std::uint8_t *>(image), size}, "(memory)");
    });
}

ETW_API etw_status etw_decoder_load_tmf(etw_decoder *decoder, const char *path)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(decoder);
        ETW_REQUIRE_ARG(path);
        return impl(decoder)->load_tmf_path(path);
    });
}

ETW_API etw_status etw_decoder_load_tmf_text(etw_decoder *decoder, const char *text, size_t size)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(decoder);
        if (!text && size)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "text is NULL");
        return impl(decoder)->load_tmf({reinterpret_cast<const std::uint8_t *>(text), size}, "(memory)");
    });
}

} // extern "C"
