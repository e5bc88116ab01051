#include "decode/decoder.hpp"

#include "platform/file_input.hpp"

#include "decode/image_id_classes.hpp"
#include "decode/kernel_classes.hpp"
#include "decode/value_format.hpp"
#include "decode/wevt.hpp"
#include "decode/wpp.hpp"
#include "decode/xml.hpp"

namespace openetw::decode {

namespace {

std::uint32_t source_code(Source s)
{
    switch (s) {
    case Source::TraceLogging:
        return ETW_DECODE_SOURCE_TRACELOGGING;
    case Source::Kernel:
        return ETW_DECODE_SOURCE_KERNEL;
    case Source::Manifest:
        return ETW_DECODE_SOURCE_MANIFEST;
    case Source::Wpp:
        return ETW_DECODE_SOURCE_WPP;
    default:
        return 0;
    }
}

} // namespace

Decoder::Decoder()
{
    // Built once, shared read-only by every decoder.
    static const auto kernel = std::make_shared<const KernelClasses>();
    decoder_.add_source(kernel);
    static const auto image_ids = std::make_shared<const ImageIdClasses>();
    decoder_.add_source(image_ids);
    manifests_ = std::make_shared<ManifestSchemas>();
    decoder_.add_source(manifests_);
    tmf_ = std::make_shared<TmfSchemas>();
    decoder_.add_source(tmf_);
}

Status Decoder::load_manifest(std::span<const std::uint8_t> document, const std::string &name)
{
    // The last decoded event may point at a schema a load replaces.
    view_ = etw_decoded_event{};
    event_.schema = nullptr;
    if (!manifests_->load(document, problem_))
        return Fail(problem_.code, format::text_printf("manifest '%s': %s", name.c_str(), problem_.detail.c_str()));
    return Status::ok();
}

Status Decoder::load_manifest_file(const std::string &path)
{
    std::vector<std::uint8_t> bytes;
    if (Status st = platform::read_whole(path, kMaxXmlBytes, "manifest", bytes); !st)
        return st;
    return load_manifest(bytes, path);
}

namespace {

// Most bytes of a provider binary read (Windows' largest system DLLs are a few hundred MiB).
constexpr std::uint64_t kMaxBinaryBytes = 1ull << 30;

} // namespace

Status Decoder::load_binary(std::span<const std::uint8_t> image, const std::string &name)
{
    SchemaEntries loaded;
    if (!read_provider_binary(image, loaded, problem_))
        return Fail(problem_.code, format::text_printf("binary '%s': %s", name.c_str(), problem_.detail.c_str()));
    // The last decoded event may point at a schema the load replaces.
    view_ = etw_decoded_event{};
    event_.schema = nullptr;
    manifests_->add(std::move(loaded));
    return Status::ok();
}

Status Decoder::load_binary_file(const std::string &path)
{
    std::vector<std::uint8_t> bytes;
    if (Status st = platform::read_whole(path, kMaxBinaryBytes, "binary", bytes); !st)
        return st;
    return load_binary(bytes, path);
}

Status Decoder::decode(const etw_record &record, const etw_decoded_event *&out)
{
    out = nullptr;
    if (!decoder_.decode(record, event_, problem_)) {
        if (problem_.code == ETW_ERROR_NOT_FOUND)
            return Status(ETW_ERROR_NOT_FOUND, {});
        const char *name = event_.schema ? event_.schema->event_name.c_str() : "";
        return Fail(problem_.code,
                    format::text_printf("event '%s' does not decode: %s", name, problem_.detail.c_str()));
    }
    const EventSchema &s = *event_.schema;
    const std::uint8_t *payload = event_.payload.data();
    text_.clear();
    text_at_.clear();
    props_.clear();
    for (const Node &n : event_.nodes) {
        const Field &f = s.fields[n.field];
        etw_event_property p{};
        p.name = f.name.c_str();
        p.data = payload ? payload + n.offset : nullptr;
        p.data_size = n.size;
        p.parent = n.parent == kNoParent ? ETW_PROPERTY_NO_PARENT : n.parent;
        p.child_count = n.child_count;
        p.in_type = f.in_type;
        p.out_type = f.out_type;
        text_at_.push_back(static_cast<std::uint32_t>(text_.size()));
        if (n.kind == NodeKind::Value) {
            p.kind = ETW_PROPERTY_KIND_VALUE;
            const ValueMap *map = f.map < s.maps.size() ? &s.maps[f.map] : nullptr;
            format_value(f, map, p.data, n.size, event_.pointer_size, text_);
            const JsonKind kind = json_kind(f, map, p.data, n.size);
            p.flags = kind == JsonKind::Number ? ETW_PROPERTY_JSON_NUMBER
                      : kind == JsonKind::Bool ? ETW_PROPERTY_JSON_BOOL
                                               : 0u;
        } else {
            p.kind = n.kind == NodeKind::Array ? ETW_PROPERTY_KIND_ARRAY : ETW_PROPERTY_KIND_STRUCT;
        }
        text_.push_back('\0');
        props_.push_back(p);
    }
    if (event_.source == Source::Wpp)
        add_wpp_message(record);
    // text_ no longer grows: point the values into it.
    for (std::size_t i = 0; i < props_.size(); ++i)
        props_[i].value = text_.data() + text_at_[i];
    view_ = etw_decoded_event{};
    view_.struct_size = sizeof view_;
    view_.source = source_code(event_.source);
    view_.event_name = s.event_name.c_str();
    view_.provider_name = s.provider_name.c_str();
    view_.task_name = s.task_name.c_str();
    view_.opcode_name = s.opcode_name.c_str();
    view_.level_name = s.level_name.c_str();
    view_.keywords_name = s.keywords_name.c_str();
    view_.properties = props_.data();
    view_.property_count = static_cast<std::uint32_t>(props_.size());
    view_.payload_used = event_.consumed;
    out = &view_;
    return Status::ok();
}

} // namespace openetw::decode
