#include "decode/tmf.hpp"

#include "base/guid.hpp"
#include "decode/tmf_items.hpp"
#include "decode/value_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace openetw::decode {

TmfKey tmf_key(const etw_guid &guid, std::uint16_t number)
{
    TmfKey key;
    std::memcpy(key.bytes.data(), &guid, sizeof guid);
    key.bytes[16] = static_cast<std::uint8_t>(number & 0xFF);
    key.bytes[17] = static_cast<std::uint8_t>(number >> 8);
    return key;
}

namespace {

bool decimal(std::string_view s, std::uint32_t max, std::uint32_t &out)
{
    if (s.empty() || s.size() > 9)
        return false;
    out = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
        out = out * 10 + static_cast<std::uint32_t>(c - '0');
    }
    return out <= max;
}

// Trailer `KEY=value KEY2=value2` (the part after "//"), keys upper-cased.
void parse_trailer(std::string_view t, std::map<std::string, std::string> &keys)
{
    while (true) {
        t = trim_space(t);
        if (t.empty())
            return;
        std::size_t end = 0;
        while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end])))
            ++end;
        const std::string_view token = t.substr(0, end);
        if (const std::size_t eq = token.find('='); eq != std::string_view::npos && eq > 0) {
            std::string key(token.substr(0, eq));
            for (char &c : key)
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            keys[key] = std::string(token.substr(eq + 1));
        }
        t.remove_prefix(end);
    }
}

class Parser {
public:
    Parser(TmfMessages &out, Problem &problem) : out_(out), problem_(problem) {}

    bool line(std::string_view text)
    {
        ++line_;
        text = trim_space(text);
        if (in_block_)
            return block_line(text);
        if (text.empty() || text.starts_with("//"))
            return true;
        if (text == "{") {
            if (!current_ || current_->numbers.size() || opened_)
                return fail("'{' without a #typev line before it");
            in_block_ = opened_ = true;
            return true;
        }
        if (text == "}")
            return fail("'}' without '{'");
        if (text.starts_with("#typev"))
            return typev(text.substr(6));
        if (text.starts_with("#"))
            return fail("unknown directive '" + std::string(text.substr(0, text.find(' '))) + "'");
        return guid_line(text);
    }

    bool finish()
    {
        if (in_block_)
            return fail("the argument list has no '}'");
        return close_message();
    }

private:
    bool fail(const std::string &what)
    {
        problem_.set(ETW_ERROR_INVALID_DATA, 0, text_printf("line %zu: %s", line_, what.c_str()));
        return false;
    }

    // `<guid> <module> [// SRC=...]`
    bool guid_line(std::string_view text)
    {
        if (!close_message())
            return false;
        const std::size_t space = text.find_first_of(" \t");
        const auto guid = guid_from_string(text.substr(0, space));
        if (!guid)
            return fail("expected a message GUID line ('<guid> <module>'), found '" + std::string(text.substr(0, 60)) +
                        "'");
        std::string_view rest = space == std::string_view::npos ? std::string_view{} : text.substr(space);
        if (const std::size_t c = rest.find("//"); c != std::string_view::npos)
            rest = rest.substr(0, c);
        rest = trim_space(rest);
        if (rest.empty() || rest.find_first_of(" \t") != std::string_view::npos)
            return fail("the message GUID line names no module (or more than one word)");
        guid_ = *guid;
        have_guid_ = true;
        module_ = std::string(rest);
        return true;
    }

    // ` <name> <number> "<format>" [// trailer]`
    bool typev(std::string_view text)
    {
        if (!close_message())
            return false;
        if (!have_guid_)
            return fail("#typev before any message GUID line");
        if (text.empty() || !std::isspace(static_cast<unsigned char>(text[0])))
            return fail("expected '#typev <name> <number> \"<format>\"'");
        text = trim_space(text);
        const std::size_t s1 = text.find_first_of(" \t");
        if (s1 == std::string_view::npos)
            return fail("#typev has no message number");
        const std::string_view name = text.substr(0, s1);
        text = trim_space(text.substr(s1));
        const std::size_t s2 = text.find_first_of(" \t");
        std::uint32_t number = 0;
        if (!decimal(text.substr(0, s2), 0xFFFF, number))
            return fail("#typev message number '" + std::string(text.substr(0, s2)) + "' is not a number up to 65535");
        text = s2 == std::string_view::npos ? std::string_view{} : trim_space(text.substr(s2));
        if (text.empty() || text[0] != '"')
            return fail("#typev has no quoted format string");
        // The format ends at the first quote followed by nothing or by the "//" trailer.
        std::size_t close = std::string_view::npos;
        for (std::size_t q = text.find('"', 1); q != std::string_view::npos; q = text.find('"', q + 1)) {
            const std::string_view after = trim_space(text.substr(q + 1));
            if (after.empty() || after.starts_with("//")) {
                close = q;
                break;
            }
        }
        if (close == std::string_view::npos)
            return fail("the format string has no closing quote");
        if (out_.size() + pending_.size() >= kMaxTmfMessages)
            return fail(text_printf("more than %zu messages", kMaxTmfMessages));
        current_ = std::make_unique<TmfMessage>();
        current_->schema.event_name = std::string(name);
        current_->schema.provider_name = module_;
        current_->format = std::string(text.substr(1, close - 1));
        const std::string_view after = trim_space(text.substr(close + 1));
        if (!after.empty())
            parse_trailer(after.substr(2), current_->keys);
        number_ = static_cast<std::uint16_t>(number);
        current_line_ = line_;
        opened_ = false;
        args_.clear();
        return true;
    }

    // `<name>, <Item type> -- <number>` or `}`.
    bool block_line(std::string_view text)
    {
        if (text == "}") {
            in_block_ = false;
            return true;
        }
        if (text.empty())
            return true;
        const std::size_t dash = text.rfind(" -- ");
        if (dash == std::string_view::npos)
            return fail("expected an argument line '<name>, <Item type> -- <number>' or '}'");
        std::uint32_t n = 0;
        if (!decimal(trim_space(text.substr(dash + 4)), 9999, n) || n < 10)
            return fail("argument number '" + std::string(trim_space(text.substr(dash + 4))) +
                        "' is not a number from 10 to 9999");
        const std::string_view left = trim_space(text.substr(0, dash));
        // The name may hold commas (an expression); the type is the last ", Item...".
        std::size_t at = left.rfind(", Item");
        if (at == std::string_view::npos)
            at = left.rfind(",Item");
        if (at == std::string_view::npos)
            return fail("the argument has no Item type after a comma");
        Arg arg;
        arg.number = static_cast<std::uint16_t>(n);
        arg.field.name = std::string(trim_space(left.substr(0, at)));
        if (arg.field.name.empty())
            return fail("the argument has no name");
        std::string error;
        if (!tmf_item(left.substr(at + 1), arg.field, arg.map, arg.has_map, error))
            return fail(error);
        for (const Arg &a : args_)
            if (a.number == arg.number)
                return fail(text_printf("argument %u is listed twice", n));
        if (args_.size() >= kMaxTmfArguments)
            return fail(text_printf("more than %zu arguments", kMaxTmfArguments));
        args_.push_back(std::move(arg));
        return true;
    }

    // Checks the format's references and files the message.
    bool close_message()
    {
        if (!current_)
            return true;
        std::sort(args_.begin(), args_.end(), [](const Arg &a, const Arg &b) { return a.number < b.number; });
        const std::size_t here = line_;
        line_ = current_line_;
        const std::string &f = current_->format;
        for (std::size_t i = 0; i < f.size(); ++i) {
            if (f[i] != '%' || i + 1 >= f.size())
                continue;
            std::size_t j = i + 1;
            std::uint32_t n = 0;
            while (j < f.size() && j - i <= 4 && std::isdigit(static_cast<unsigned char>(f[j])))
                n = n * 10 + static_cast<std::uint32_t>(f[j++] - '0');
            if (j == i + 1) {
                i = j; // "%%", "%!KEY!" and other escapes: nothing to check
                continue;
            }
            if (j < f.size() && f[j] == '!' && f.find('!', j + 1) == std::string::npos) {
                line_ = here;
                return fail_at(current_line_, text_printf("the format's %%%u has no closing '!'", n));
            }
            const bool declared = std::any_of(args_.begin(), args_.end(), [n](const Arg &a) { return a.number == n; });
            if (n >= 10 && !declared) {
                line_ = here;
                return fail_at(current_line_,
                               text_printf("the format uses %%%u, which the argument list does not declare", n));
            }
            i = j - 1;
        }
        line_ = here;
        for (Arg &a : args_) {
            if (a.has_map) {
                a.field.map = static_cast<std::uint32_t>(current_->schema.maps.size());
                current_->schema.maps.push_back(std::move(a.map));
            }
            a.field.end = static_cast<std::uint32_t>(current_->schema.fields.size() + 1);
            current_->schema.fields.push_back(std::move(a.field));
            current_->numbers.push_back(a.number);
        }
        args_.clear();
        if (auto it = current_->keys.find("LEVEL"); it != current_->keys.end())
            current_->schema.level_name = it->second;
        if (auto it = current_->keys.find("FLAGS"); it != current_->keys.end())
            current_->schema.keywords_name = it->second;
        if (auto it = current_->keys.find("FUNC"); it != current_->keys.end())
            current_->schema.task_name = it->second;
        const TmfKey key = tmf_key(guid_, number_);
        if (!pending_.emplace(key, std::move(current_)).second)
            return fail_at(current_line_, text_printf("message %u of GUID %s is defined twice", number_,
                                                      guid_to_string(guid_).c_str()));
        current_.reset();
        return true;
    }

    bool fail_at(std::size_t line, const std::string &what)
    {
        line_ = line;
        return fail(what);
    }

    struct Arg {
        Field field;
        ValueMap map;
        bool has_map = false;
        std::uint16_t number = 0;
    };

    TmfMessages &out_;
    Problem &problem_;
    std::size_t line_ = 0;
    etw_guid guid_{};
    bool have_guid_ = false;
    std::string module_;
    std::unique_ptr<TmfMessage> current_;
    std::uint16_t number_ = 0;
    std::size_t current_line_ = 0;
    bool in_block_ = false, opened_ = false;
    std::vector<Arg> args_;

public:
    TmfMessages pending_;
};

} // namespace

bool parse_tmf(std::span<const std::uint8_t> bytes, TmfMessages &out, Problem &problem)
{
    problem.clear();
    if (bytes.size() > kMaxTmfBytes) {
        problem.set(ETW_ERROR_INVALID_DATA, 0,
                    text_printf("%zu bytes; at most %zu are read", bytes.size(), kMaxTmfBytes));
        return false;
    }
    // TracePDB writes the ANSI code page; UTF-8 and UTF-16LE (BOM) are taken too.
    std::string text;
    if (bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE) {
        if (bytes.size() % 2) {
            problem.set(ETW_ERROR_NO_UNICODE_TRANSLATION, 0, "UTF-16 text of an odd number of bytes");
            return false;
        }
        append_utf16le(bytes.data() + 2, static_cast<std::uint32_t>(bytes.size() - 2), text);
    } else {
        std::size_t skip = bytes.size() >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0;
        append_8bit(bytes.data() + skip, static_cast<std::uint32_t>(bytes.size() - skip), text);
    }
    if (text.find('\0') != std::string::npos) {
        problem.set(
            ETW_ERROR_INVALID_DATA, 0,
            text_printf("line %zu: a NUL character",
                        1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + text.find('\0'), '\n'))));
        return false;
    }
    Parser parser(out, problem);
    std::string_view rest(text);
    while (!rest.empty()) {
        const std::size_t nl = rest.find('\n');
        if (!parser.line(rest.substr(0, nl)))
            return false;
        rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    }
    if (!parser.finish())
        return false;
    for (auto &[key, message] : parser.pending_)
        out[key] = std::move(message);
    return true;
}

const TmfMessage *TmfSchemas::message(const etw_record &record) const
{
    if (messages_.empty() || record.kind != ETW_RECORD_KIND_MESSAGE || !(record.present & ETW_RECORD_HAS_GUID) ||
        !(record.present & ETW_RECORD_HAS_MESSAGE))
        return nullptr;
    const auto it = messages_.find(tmf_key(record.guid, record.message_number));
    return it == messages_.end() ? nullptr : it->second.get();
}

const EventSchema *TmfSchemas::find(const etw_record &record) const
{
    const TmfMessage *m = message(record);
    return m ? &m->schema : nullptr;
}

bool TmfSchemas::load(std::span<const std::uint8_t> text, Problem &problem)
{
    TmfMessages loaded;
    if (!parse_tmf(text, loaded, problem))
        return false;
    add(std::move(loaded));
    return true;
}

void TmfSchemas::add(TmfMessages loaded)
{
    for (auto &[key, message] : loaded)
        messages_[key] = std::move(message);
}

} // namespace openetw::decode
