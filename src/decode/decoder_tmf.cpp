// The decoder's WPP part: loading TMF files (one file, or every .tmf file of
// a directory, as TraceFmt's -p) and the formatted message text.
#include "decode/decoder.hpp"

#include "platform/file_input.hpp"

#include "decode/wpp.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <utility>

namespace openetw::decode {

namespace {

using Messages = TmfMessages;

Status read_tmf(const std::string &path, Messages &into, format::Problem &problem)
{
    std::vector<std::uint8_t> bytes;
    if (Status st = platform::read_whole(path, kMaxTmfBytes, "TMF", bytes); !st)
        return st;
    if (!parse_tmf(bytes, into, problem))
        return Fail(problem.code, format::text_printf("TMF '%s': %s", path.c_str(), problem.detail.c_str()));
    return Status::ok();
}

std::string utf8(const std::filesystem::path &p)
{
    const std::u8string s = p.u8string();
    return std::string(s.begin(), s.end());
}

} // namespace

Status Decoder::load_tmf(std::span<const std::uint8_t> text, const std::string &name)
{
    Messages loaded;
    if (!parse_tmf(text, loaded, problem_))
        return Fail(problem_.code, format::text_printf("TMF '%s': %s", name.c_str(), problem_.detail.c_str()));
    // The last decoded event may point at a schema the load replaces.
    view_ = etw_decoded_event{};
    event_.schema = nullptr;
    tmf_->add(std::move(loaded));
    return Status::ok();
}

Status Decoder::load_tmf_path(const std::string &path)
{
    std::error_code ec;
    const std::filesystem::path where(std::u8string(path.begin(), path.end()));
    Messages loaded;
    if (std::filesystem::is_directory(where, ec)) {
        // Every *.tmf file (any case) of the directory, in name order; all or nothing.
        std::vector<std::filesystem::path> files;
        for (std::filesystem::directory_iterator it(where, ec), end; !ec && it != end; it.increment(ec)) {
            std::string ext = utf8(it->path().extension());
            std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            if (ext == ".tmf" && !it->is_directory(ec))
                files.push_back(it->path());
        }
        if (ec)
            return Fail(ETW_ERROR_READ_FAULT, "TMF directory '" + path + "' cannot be listed: " + ec.message());
        if (files.empty())
            return Fail(ETW_ERROR_FILE_NOT_FOUND, "TMF directory '" + path + "' holds no .tmf file");
        std::sort(files.begin(), files.end());
        for (const auto &file : files)
            if (Status st = read_tmf(utf8(file), loaded, problem_); !st)
                return st;
    } else if (Status st = read_tmf(path, loaded, problem_); !st) {
        return st;
    }
    view_ = etw_decoded_event{};
    event_.schema = nullptr;
    tmf_->add(std::move(loaded));
    return Status::ok();
}

// Appends the properties TDH gives WPP events besides the arguments:
// "FormattedString" (the message text as TraceFmt prints it after the
// prefix), "GuidName" (the module), "GuidTypeName" (the message name: source
// file and line), and "FunctionName", "FlagsName", "LevelName" when the
// #typev trailer has FUNC=, FLAGS=, LEVEL=.
void Decoder::add_wpp_message(const etw_record &record)
{
    const TmfMessage *m = tmf_->message(record);
    if (!m)
        return;
    auto add = [&](const char *name, const std::string *value) {
        etw_event_property p{};
        p.name = name;
        p.parent = ETW_PROPERTY_NO_PARENT;
        p.kind = ETW_PROPERTY_KIND_VALUE;
        p.in_type = kInUnicodeString;
        p.out_type = kOutString;
        text_at_.push_back(static_cast<std::uint32_t>(text_.size()));
        if (value) {
            text_ += *value;
        } else {
            WppContext c;
            c.thread_id = record.thread_id;
            c.process_id = record.process_id;
            if (record.present & ETW_RECORD_HAS_TIMESTAMP)
                c.timestamp = static_cast<std::uint64_t>(record.timestamp);
            c.sequence = record.message_sequence;
            c.processor = record.processor;
            c.kernel_time = record.kernel_time;
            c.user_time = record.user_time;
            format_wpp_message(*m, event_, c, text_);
        }
        text_.push_back('\0');
        props_.push_back(p);
    };
    add("FormattedString", nullptr);
    add("GuidName", &m->schema.provider_name);
    add("GuidTypeName", &m->schema.event_name);
    static constexpr std::pair<const char *, const char *> kTrailer[] = {{"FUNC", "FunctionName"},
                                                                         {"FLAGS", "FlagsName"},
                                                                         {"LEVEL", "LevelName"}};
    for (const auto &[key, name] : kTrailer)
        if (const auto it = m->keys.find(key); it != m->keys.end())
            add(name, &it->second);
}

} // namespace openetw::decode
