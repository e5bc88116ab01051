#include "decode/xml.hpp"

#include "base/utf.hpp"

#include <cstring>

namespace openetw::decode {

const std::string *XmlElement::attribute(std::string_view local) const
{
    for (const XmlAttribute &a : attributes)
        if (local_name(a.name) == local)
            return &a.value;
    return nullptr;
}

std::string_view local_name(std::string_view qname)
{
    const std::size_t colon = qname.rfind(':');
    return colon == std::string_view::npos ? qname : qname.substr(colon + 1);
}

namespace {

void append_utf8(std::string &out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | cp >> 6));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | cp >> 12));
        out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | cp >> 18));
        out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

bool name_char(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u == ':' ||
           u == '-' || u == '.' || u >= 0x80;
}

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

class Parser {
public:
    Parser(std::string_view text, Problem &problem) : s_(text), problem_(problem) {}

    bool document(XmlElement &root)
    {
        bool have_root = false;
        std::vector<XmlElement *> open;
        std::size_t elements = 0;
        while (true) {
            const std::size_t lt = s_.find('<', pos_);
            // Text: allowed (and skipped) inside the root; outside it only white space.
            for (std::size_t i = pos_; i < (lt == std::string_view::npos ? s_.size() : lt); ++i) {
                if (s_[i] == '\0') {
                    pos_ = i;
                    return fail("a NUL character is not allowed in XML");
                }
                if (open.empty() && !space(s_[i])) {
                    pos_ = i;
                    return fail(have_root ? "text after the root element" : "text before the root element");
                }
            }
            if (lt == std::string_view::npos) {
                pos_ = s_.size();
                if (!open.empty())
                    return fail("the document ends inside element <" + open.back()->name + "> (line " +
                                std::to_string(open.back()->line) + ")");
                if (!have_root)
                    return fail("the document has no root element");
                return true;
            }
            pos_ = lt;
            const std::string_view rest = s_.substr(pos_);
            if (rest.starts_with("<?")) {
                if (!skip_past("?>", "processing instruction"))
                    return false;
            } else if (rest.starts_with("<!--")) {
                if (!skip_past("-->", "comment"))
                    return false;
            } else if (rest.starts_with("<![CDATA[")) {
                if (open.empty())
                    return fail("CDATA outside the root element");
                if (!skip_past("]]>", "CDATA section"))
                    return false;
            } else if (rest.starts_with("<!")) {
                return fail("DOCTYPE and other declarations are not accepted");
            } else if (rest.starts_with("</")) {
                pos_ += 2;
                std::string name;
                if (!read_name(name))
                    return false;
                skip_space();
                if (!expect('>'))
                    return false;
                if (open.empty())
                    return fail("closing tag </" + name + "> without an open element");
                if (std::string(local_name(name)) != open.back()->name)
                    return fail("closing tag </" + name + "> does not match <" + open.back()->name + "> (line " +
                                std::to_string(open.back()->line) + ")");
                open.pop_back();
            } else {
                if (open.empty() && have_root)
                    return fail("a second root element");
                if (++elements > kMaxXmlElements)
                    return fail("more than " + std::to_string(kMaxXmlElements) + " elements");
                if (open.size() >= kMaxXmlDepth)
                    return fail("elements nest deeper than " + std::to_string(kMaxXmlDepth) + " levels");
                XmlElement *e = &root;
                if (!open.empty()) {
                    open.back()->children.emplace_back();
                    e = &open.back()->children.back();
                }
                have_root = true;
                bool empty = false;
                if (!element(*e, empty))
                    return false;
                if (!empty)
                    open.push_back(e);
            }
        }
    }

private:
    bool fail(const std::string &what)
    {
        const std::uint32_t line = line_at(pos_);
        problem_.set(ETW_ERROR_INVALID_DATA, line, "line " + std::to_string(line) + ": " + what);
        return false;
    }

    std::uint32_t line_at(std::size_t pos)
    {
        // Lines are counted forward from the last position asked about.
        if (pos < line_pos_) {
            line_pos_ = 0;
            line_ = 1;
        }
        for (; line_pos_ < pos && line_pos_ < s_.size(); ++line_pos_)
            if (s_[line_pos_] == '\n')
                ++line_;
        return line_;
    }

    bool skip_past(std::string_view end, const char *what)
    {
        const std::size_t at = s_.find(end, pos_ + 2);
        if (at == std::string_view::npos)
            return fail(std::string("unterminated ") + what);
        pos_ = at + end.size();
        return true;
    }

    void skip_space()
    {
        while (pos_ < s_.size() && space(s_[pos_]))
            ++pos_;
    }

    bool expect(char c)
    {
        if (pos_ >= s_.size())
            return fail(std::string("the document ends where '") + c + "' was expected");
        if (s_[pos_] != c)
            return fail(std::string("'") + c + "' expected");
        ++pos_;
        return true;
    }

    bool read_name(std::string &out)
    {
        const std::size_t start = pos_;
        while (pos_ < s_.size() && name_char(s_[pos_]))
            ++pos_;
        if (pos_ == start)
            return fail(pos_ < s_.size() ? "a name expected" : "the document ends where a name was expected");
        const char first = s_[start];
        if ((first >= '0' && first <= '9') || first == '-' || first == '.')
            return fail("a name cannot start with '" + std::string(1, first) + "'");
        out.assign(s_.substr(start, pos_ - start));
        return true;
    }

    bool element(XmlElement &e, bool &empty)
    {
        e.line = line_at(pos_);
        ++pos_; // '<'
        std::string name;
        if (!read_name(name))
            return false;
        e.name.assign(local_name(name));
        if (e.name.empty())
            return fail("element <" + name + "> has an empty local name");
        while (true) {
            const std::size_t before = pos_;
            skip_space();
            if (pos_ >= s_.size())
                return fail("the document ends inside the tag <" + name + ">");
            if (s_[pos_] == '/') {
                ++pos_;
                empty = true;
                return expect('>');
            }
            if (s_[pos_] == '>') {
                ++pos_;
                return true;
            }
            if (pos_ == before)
                return fail("white space expected between attributes of <" + name + ">");
            XmlAttribute a;
            if (!read_name(a.name))
                return false;
            skip_space();
            if (!expect('='))
                return false;
            skip_space();
            if (!value(a.value))
                return false;
            for (const XmlAttribute &other : e.attributes)
                if (other.name == a.name)
                    return fail("attribute '" + a.name + "' appears twice in <" + name + ">");
            e.attributes.push_back(std::move(a));
        }
    }

    bool value(std::string &out)
    {
        if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\''))
            return fail("an attribute value must be quoted");
        const char quote = s_[pos_++];
        while (true) {
            if (pos_ >= s_.size())
                return fail("unterminated attribute value");
            const char c = s_[pos_];
            if (c == quote) {
                ++pos_;
                return true;
            }
            if (c == '<')
                return fail("'<' in an attribute value");
            if (c == '\0')
                return fail("a NUL character is not allowed in XML");
            if (c != '&') {
                out.push_back(c);
                ++pos_;
                continue;
            }
            const std::size_t semi = s_.find(';', pos_);
            if (semi == std::string_view::npos || semi - pos_ > 12)
                return fail("an unterminated entity reference");
            const std::string_view ref = s_.substr(pos_ + 1, semi - pos_ - 1);
            if (ref == "lt")
                out.push_back('<');
            else if (ref == "gt")
                out.push_back('>');
            else if (ref == "amp")
                out.push_back('&');
            else if (ref == "quot")
                out.push_back('"');
            else if (ref == "apos")
                out.push_back('\'');
            else if (ref.size() > 1 && ref[0] == '#') {
                const bool hex = ref[1] == 'x';
                const std::string_view digits = ref.substr(hex ? 2 : 1);
                std::uint32_t cp = 0;
                if (digits.empty())
                    return fail("an empty character reference");
                for (char d : digits) {
                    int v = d >= '0' && d <= '9'          ? d - '0'
                            : hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
                            : hex && d >= 'A' && d <= 'F' ? d - 'A' + 10
                                                          : -1;
                    if (v < 0)
                        return fail("a bad character reference '&" + std::string(ref) + ";'");
                    cp = cp * (hex ? 16 : 10) + static_cast<std::uint32_t>(v);
                    if (cp > 0x10FFFF)
                        break;
                }
                if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                    return fail("character reference '&" + std::string(ref) + ";' is not a character");
                append_utf8(out, cp);
            } else {
                return fail("unknown entity '&" + std::string(ref) + ";'");
            }
            pos_ = semi + 1;
        }
    }

    std::string_view s_;
    Problem &problem_;
    std::size_t pos_ = 0;
    std::size_t line_pos_ = 0;
    std::uint32_t line_ = 1;
};

} // namespace

bool parse_xml(std::span<const std::uint8_t> document, XmlElement &root, Problem &problem)
{
    problem.clear();
    root = XmlElement{};
    if (document.size() > kMaxXmlBytes) {
        problem.set(ETW_ERROR_INVALID_DATA, 0,
                    "the document has " + std::to_string(document.size()) + " bytes; at most " +
                        std::to_string(kMaxXmlBytes) + " are read");
        return false;
    }
    std::string converted;
    std::string_view text(reinterpret_cast<const char *>(document.data()), document.size());
    const bool le = document.size() >= 2 && document[0] == 0xFF && document[1] == 0xFE;
    const bool be = document.size() >= 2 && document[0] == 0xFE && document[1] == 0xFF;
    if (le || be) {
        // UTF-16 (manifests written by Windows tools often are): convert to UTF-8.
        if (document.size() % 2) {
            problem.set(ETW_ERROR_NO_UNICODE_TRANSLATION, 0, "a UTF-16 document with an odd number of bytes");
            return false;
        }
        std::u16string units;
        units.reserve(document.size() / 2 - 1);
        for (std::size_t i = 2; i < document.size(); i += 2)
            units.push_back(
                static_cast<char16_t>(le ? document[i] | document[i + 1] << 8 : document[i] << 8 | document[i + 1]));
        auto utf8 = utf16_to_utf8(units);
        if (!utf8) {
            problem.set(ETW_ERROR_NO_UNICODE_TRANSLATION, 0, "the UTF-16 document has an unpaired surrogate");
            return false;
        }
        converted = std::move(*utf8);
        text = converted;
    } else {
        if (text.starts_with("\xEF\xBB\xBF"))
            text.remove_prefix(3);
        if (!utf8_to_utf16(text)) {
            problem.set(ETW_ERROR_NO_UNICODE_TRANSLATION, 0, "the document is not valid UTF-8 (and has no UTF-16 BOM)");
            return false;
        }
    }
    Parser parser(text, problem);
    return parser.document(root);
}

} // namespace openetw::decode
