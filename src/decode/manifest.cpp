#include "decode/manifest.hpp"

#include "base/guid.hpp"
#include "decode/xml.hpp"

#include <map>

namespace openetw::decode {

std::string manifest_key(const etw_guid &provider, std::uint16_t id, std::uint8_t version)
{
    std::string key(reinterpret_cast<const char *>(&provider), sizeof provider);
    key.push_back(static_cast<char>(id & 0xFF));
    key.push_back(static_cast<char>(id >> 8));
    key.push_back(static_cast<char>(version));
    return key;
}

const EventSchema *ManifestSchemas::find(const etw_record &record) const
{
    if (events_.empty())
        return nullptr;
    if (record.kind == ETW_RECORD_KIND_EVENT) {
        const auto it =
            events_.find(manifest_key(record.guid, record.event_id, static_cast<std::uint8_t>(record.version)));
        return it == events_.end() ? nullptr : it->second.schema.get();
    }
    if (record.kind != ETW_RECORD_KIND_FULL && record.kind != ETW_RECORD_KIND_INSTANCE)
        return nullptr;
    const auto it = classic_.find(manifest_key(record.guid, record.opcode, static_cast<std::uint8_t>(record.version)));
    return it == classic_.end() ? nullptr : it->second;
}

namespace {

// Most fields one template may define (the schema's field indexes are 16-bit).
constexpr std::size_t kMaxTemplateFields = 4096;
// Deepest struct nesting (as TraceLogging's).
constexpr int kMaxStructDepth = 32;

bool is_count_type(std::uint16_t t) { return (t >= kInInt8 && t <= kInUInt64) || t == kInHexInt32 || t == kInHexInt64; }

struct Opcode {
    std::uint8_t value = 0;
    std::string display;
};

struct Task {
    std::uint16_t value = 0;
    std::string display;
    std::map<std::string, Opcode, std::less<>> opcodes;
};

using Events = std::unordered_map<std::string, ManifestSchemas::Entry>;

class Loader {
public:
    explicit Loader(Problem &problem) : problem_(problem) {}

    bool run(const XmlElement &root, Events &out)
    {
        if (root.name != "instrumentationManifest")
            return fail(root, "the root element is <" + root.name + ">, not <instrumentationManifest>");
        if (!string_table(root))
            return false;
        std::size_t providers = 0;
        for (const XmlElement &inst : root.children) {
            if (inst.name != "instrumentation")
                continue;
            for (const XmlElement &events : inst.children) {
                if (events.name != "events")
                    continue;
                for (const XmlElement &p : events.children) {
                    if (p.name != "provider")
                        continue;
                    ++providers;
                    if (!provider(p, out))
                        return false;
                }
            }
        }
        if (providers == 0)
            return fail(root, "the manifest defines no provider (instrumentation/events/provider)");
        return true;
    }

private:
    bool fail(const XmlElement &at, const std::string &what)
    {
        problem_.set(ETW_ERROR_INVALID_DATA, at.line, "line " + std::to_string(at.line) + ": " + what);
        return false;
    }

    // The strings of the en-US resources, else of the first culture.
    bool string_table(const XmlElement &root)
    {
        const XmlElement *chosen = nullptr;
        for (const XmlElement &loc : root.children) {
            if (loc.name != "localization")
                continue;
            for (const XmlElement &res : loc.children) {
                if (res.name != "resources")
                    continue;
                const std::string *culture = res.attribute("culture");
                if (!chosen || (culture && *culture == "en-US"))
                    chosen = &res;
            }
        }
        if (!chosen)
            return true;
        for (const XmlElement &table : chosen->children) {
            if (table.name != "stringTable")
                continue;
            for (const XmlElement &s : table.children) {
                if (s.name != "string")
                    continue;
                const std::string *id = s.attribute("id"), *value = s.attribute("value");
                if (!id || !value)
                    return fail(s, "<string> needs an id and a value");
                strings_[*id] = *value;
            }
        }
        return true;
    }

    // Text as displayed: "$(string.Id)" from the string table, else as written.
    bool resolve(const XmlElement &at, const std::string &text, std::string &out)
    {
        if (text.starts_with("$(string.") && text.ends_with(")")) {
            const std::string id = text.substr(9, text.size() - 10);
            const auto it = strings_.find(id);
            if (it == strings_.end())
                return fail(at, "string '" + id + "' is not in the string table");
            out = it->second;
            return true;
        }
        out = text;
        return true;
    }

    // An element's display name: its message, else its name.
    bool display(const XmlElement &e, const std::string &name, std::string &out)
    {
        const std::string *message = e.attribute("message");
        if (!message) {
            out = name;
            return true;
        }
        return resolve(e, *message, out);
    }

    bool number(const XmlElement &e, const char *attr, std::uint64_t max, std::uint64_t &out)
    {
        const std::string *text = e.attribute(attr);
        if (!text)
            return fail(e, std::string("<") + e.name + "> needs the attribute '" + attr + "'");
        if (!parse_number(*text, max, out))
            return fail(e, std::string("attribute '") + attr + "' of <" + e.name + "> is '" + *text +
                               "', not a number from 0 to " + std::to_string(max));
        return true;
    }

    static bool parse_number(std::string_view t, std::uint64_t max, std::uint64_t &out)
    {
        unsigned base = 10;
        if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
            base = 16;
            t.remove_prefix(2);
        }
        if (t.empty() || t.size() > 20)
            return false;
        std::uint64_t v = 0;
        for (char c : t) {
            unsigned d;
            if (c >= '0' && c <= '9')
                d = static_cast<unsigned>(c - '0');
            else if (base == 16 && c >= 'a' && c <= 'f')
                d = static_cast<unsigned>(c - 'a' + 10);
            else if (base == 16 && c >= 'A' && c <= 'F')
                d = static_cast<unsigned>(c - 'A' + 10);
            else
                return false;
            if (v > (UINT64_MAX - d) / base)
                return false;
            v = v * base + d;
        }
        if (v > max)
            return false;
        out = v;
        return true;
    }

    const std::string *required(const XmlElement &e, const char *attr)
    {
        const std::string *v = e.attribute(attr);
        if (!v)
            fail(e, std::string("<") + e.name + "> needs the attribute '" + attr + "'");
        return v;
    }

    bool provider(const XmlElement &p, Events &out)
    {
        levels_.clear();
        tasks_.clear();
        opcodes_.clear();
        keywords_.clear();
        maps_.clear();
        templates_.clear();
        const std::string *name = required(p, "name");
        const std::string *guid_text = name ? required(p, "guid") : nullptr;
        if (!guid_text)
            return false;
        const auto guid = guid_from_string(*guid_text);
        if (!guid)
            return fail(p, "provider guid '" + *guid_text + "' is not a GUID");
        provider_name_ = *name;
        for (const XmlElement &section : p.children) {
            bool ok = true;
            if (section.name == "levels")
                ok = levels(section);
            else if (section.name == "tasks")
                ok = tasks(section);
            else if (section.name == "opcodes")
                ok = opcodes(section, opcodes_);
            else if (section.name == "keywords")
                ok = keywords(section);
            else if (section.name == "maps")
                ok = maps(section);
            if (!ok)
                return false;
        }
        // Templates after the maps they name, events after the templates.
        for (const XmlElement &section : p.children)
            if (section.name == "templates" && !templates(section))
                return false;
        for (const XmlElement &section : p.children) {
            if (section.name != "events")
                continue;
            for (const XmlElement &e : section.children)
                if (e.name == "event" && !event(e, *guid, out))
                    return false;
        }
        return true;
    }

    bool levels(const XmlElement &section)
    {
        for (const XmlElement &l : section.children) {
            if (l.name != "level")
                continue;
            const std::string *name = required(l, "name");
            std::uint64_t value = 0;
            Opcode level;
            if (!name || !number(l, "value", 255, value) || !display(l, *name, level.display))
                return false;
            level.value = static_cast<std::uint8_t>(value);
            levels_[*name] = std::move(level);
        }
        return true;
    }

    bool opcodes(const XmlElement &section, std::map<std::string, Opcode, std::less<>> &into)
    {
        for (const XmlElement &o : section.children) {
            if (o.name != "opcode")
                continue;
            const std::string *name = required(o, "name");
            std::uint64_t value = 0;
            Opcode op;
            if (!name || !number(o, "value", 255, value) || !display(o, *name, op.display))
                return false;
            op.value = static_cast<std::uint8_t>(value);
            into[*name] = std::move(op);
        }
        return true;
    }

    bool tasks(const XmlElement &section)
    {
        for (const XmlElement &t : section.children) {
            if (t.name != "task")
                continue;
            const std::string *name = required(t, "name");
            std::uint64_t value = 0;
            Task task;
            if (!name || !number(t, "value", 65535, value) || !display(t, *name, task.display))
                return false;
            task.value = static_cast<std::uint16_t>(value);
            for (const XmlElement &ops : t.children)
                if (ops.name == "opcodes" && !opcodes(ops, task.opcodes))
                    return false;
            tasks_[*name] = std::move(task);
        }
        return true;
    }

    bool keywords(const XmlElement &section)
    {
        for (const XmlElement &k : section.children) {
            if (k.name != "keyword")
                continue;
            const std::string *name = required(k, "name");
            std::uint64_t mask = 0;
            std::string shown;
            if (!name || !number(k, "mask", UINT64_MAX, mask) || !display(k, *name, shown))
                return false;
            keywords_[*name] = std::move(shown);
        }
        return true;
    }

    bool maps(const XmlElement &section)
    {
        for (const XmlElement &m : section.children) {
            if (m.name != "valueMap" && m.name != "bitMap")
                continue;
            const std::string *name = required(m, "name");
            if (!name)
                return false;
            ValueMap map;
            map.bitmap = m.name == "bitMap";
            for (const XmlElement &entry : m.children) {
                if (entry.name != "map")
                    continue;
                std::uint64_t value = 0;
                std::string shown;
                const std::string *message = entry.attribute("message");
                if (!number(entry, "value", UINT64_MAX, value))
                    return false;
                if (!message)
                    return fail(entry, "<map> needs the attribute 'message'");
                if (!resolve(entry, *message, shown))
                    return false;
                map.entries.emplace_back(value, std::move(shown));
            }
            maps_[*name] = std::move(map);
        }
        return true;
    }

    bool templates(const XmlElement &section)
    {
        for (const XmlElement &t : section.children) {
            if (t.name != "template")
                continue;
            const std::string *tid = required(t, "tid");
            if (!tid)
                return false;
            EventSchema schema;
            std::map<std::string, std::uint32_t, std::less<>> used_maps;
            if (!members(t, schema, used_maps, 0))
                return false;
            if (!templates_.emplace(*tid, std::move(schema)).second)
                return fail(t, "template '" + *tid + "' is defined twice");
        }
        return true;
    }

    // The index of the latest earlier field named `name` (a count or length source).
    bool reference(const XmlElement &e, const EventSchema &s, const std::string &name, const char *what,
                   std::uint16_t &out)
    {
        for (std::size_t i = s.fields.size() - 1; i-- > 0;) { // before the field itself
            const Field &f = s.fields[i];
            if (f.name != name || f.in_type == kInStruct)
                continue;
            if (!is_count_type(f.in_type) || f.count_kind != CountKind::One)
                return fail(e, std::string("the ") + what + " of '" + s.fields.back().name + "' is field '" + name +
                                   "', which is not an integer");
            out = static_cast<std::uint16_t>(i);
            return true;
        }
        return fail(e, std::string("the ") + what + " of '" + s.fields.back().name + "' names field '" + name +
                           "', which is not an earlier field of the template");
    }

    // count="N" or count="FieldName", length likewise.
    bool count_and_length(const XmlElement &e, EventSchema &s)
    {
        Field &f = s.fields.back();
        if (const std::string *count = e.attribute("count")) {
            std::uint64_t n = 0;
            if (parse_number(*count, 65535, n)) {
                f.count_kind = CountKind::Fixed;
                f.count = static_cast<std::uint16_t>(n);
            } else {
                std::uint16_t index = 0;
                if (!reference(e, s, *count, "count", index))
                    return false;
                s.fields.back().count_kind = CountKind::Field;
                s.fields.back().count = index;
            }
        }
        if (const std::string *length = e.attribute("length")) {
            std::uint64_t n = 0;
            Field &g = s.fields.back();
            if (parse_number(*length, 65535, n)) {
                g.length_kind = LengthKind::Fixed;
                g.length = static_cast<std::uint16_t>(n);
            } else {
                std::uint16_t index = 0;
                if (!reference(e, s, *length, "length", index))
                    return false;
                s.fields.back().length_kind = LengthKind::Field;
                s.fields.back().length = index;
            }
        }
        return true;
    }

    bool members(const XmlElement &parent, EventSchema &s, std::map<std::string, std::uint32_t, std::less<>> &used,
                 int depth)
    {
        for (const XmlElement &e : parent.children) {
            if (e.name != "data" && e.name != "struct")
                continue;
            if (s.fields.size() >= kMaxTemplateFields)
                return fail(e, "the template has more than " + std::to_string(kMaxTemplateFields) + " fields");
            const std::string *name = required(e, "name");
            if (!name)
                return false;
            const std::uint32_t index = static_cast<std::uint32_t>(s.fields.size());
            s.fields.emplace_back();
            s.fields.back().name = *name;
            if (e.name == "struct") {
                if (depth >= kMaxStructDepth)
                    return fail(e, "structs nest deeper than " + std::to_string(kMaxStructDepth) + " levels");
                s.fields.back().in_type = kInStruct;
                if (!count_and_length(e, s) || !members(e, s, used, depth + 1))
                    return false;
                s.fields[index].end = static_cast<std::uint32_t>(s.fields.size());
                continue;
            }
            const std::string *in = required(e, "inType");
            if (!in)
                return false;
            if (!manifest_in_type(local_name(*in), s.fields.back().in_type))
                return fail(e, "field '" + *name + "' has inType '" + *in + "', which is not a manifest input type");
            if (const std::string *out = e.attribute("outType");
                out && !manifest_out_type(local_name(*out), s.fields.back().out_type))
                return fail(e, "field '" + *name + "' has outType '" + *out + "', which is not a manifest output type");
            if (!count_and_length(e, s))
                return false;
            s.fields[index].end = index + 1;
            if (const std::string *map = e.attribute("map")) {
                const auto m = maps_.find(*map);
                if (m == maps_.end())
                    return fail(e, "field '" + *name + "' uses map '" + *map + "', which the provider does not define");
                auto [it, added] = used.emplace(*map, static_cast<std::uint32_t>(s.maps.size()));
                if (added)
                    s.maps.push_back(m->second);
                s.fields[index].map = it->second;
            }
        }
        return true;
    }

    bool event(const XmlElement &e, const etw_guid &guid, Events &out)
    {
        std::uint64_t id = 0, version = 0;
        if (!number(e, "value", 65535, id))
            return false;
        if (e.attribute("version") && !number(e, "version", 255, version))
            return false;
        auto schema = std::make_unique<EventSchema>();
        std::uint8_t opcode_value = 0;
        const std::string where = "event " + std::to_string(id) + " (version " + std::to_string(version) + ")";
        if (const std::string *t = e.attribute("template")) {
            const auto it = templates_.find(*t);
            if (it == templates_.end())
                return fail(e, where + " uses template '" + *t + "', which the provider does not define");
            *schema = it->second;
        }
        schema->provider_name = provider_name_;
        const Task *task = nullptr;
        if (const std::string *t = e.attribute("task")) {
            std::uint16_t value = 0;
            if (const auto it = tasks_.find(*t); it != tasks_.end()) {
                task = &it->second;
                schema->task_name = task->display;
            } else if (!standard_task(*t, value, schema->task_name)) {
                return fail(e, where + " names task '" + *t + "', which the provider does not define");
            }
        }
        if (const std::string *o = e.attribute("opcode")) {
            const Opcode *op = nullptr;
            if (task && task->opcodes.count(*o))
                op = &task->opcodes.find(*o)->second;
            else if (const auto it = opcodes_.find(*o); it != opcodes_.end())
                op = &it->second;
            if (op) {
                schema->opcode_name = op->display;
                opcode_value = op->value;
            } else if (!standard_opcode(*o, opcode_value, schema->opcode_name)) {
                return fail(e, where + " names opcode '" + *o + "', which the provider does not define");
            }
        }
        if (const std::string *l = e.attribute("level")) {
            std::uint8_t value = 0;
            if (const auto it = levels_.find(*l); it != levels_.end())
                schema->level_name = it->second.display;
            else if (!standard_level(*l, value, schema->level_name))
                return fail(e, where + " names level '" + *l + "', which the provider does not define");
        }
        if (const std::string *k = e.attribute("keywords"); k && !keyword_names(e, where, *k, schema->keywords_name))
            return false;
        // The event's name: its name attribute, its symbol, else task/opcode.
        if (const std::string *n = e.attribute("name"))
            schema->event_name = *n;
        else if (const std::string *sym = e.attribute("symbol"))
            schema->event_name = *sym;
        else if (!schema->opcode_name.empty() && !schema->task_name.empty())
            schema->event_name = schema->task_name + "/" + schema->opcode_name;
        else
            schema->event_name = schema->task_name;
        const std::string key = manifest_key(guid, static_cast<std::uint16_t>(id), static_cast<std::uint8_t>(version));
        if (!out.emplace(key, ManifestSchemas::Entry{std::move(schema), opcode_value}).second)
            return fail(e, where + " is defined twice for provider '" + provider_name_ + "'");
        return true;
    }

    // "A B win:C" -> the display names joined by ", ".
    bool keyword_names(const XmlElement &e, const std::string &where, const std::string &list, std::string &out)
    {
        std::size_t i = 0;
        while (i < list.size()) {
            while (i < list.size() && (list[i] == ' ' || list[i] == '\t' || list[i] == '\n' || list[i] == '\r'))
                ++i;
            std::size_t j = i;
            while (j < list.size() && list[j] != ' ' && list[j] != '\t' && list[j] != '\n' && list[j] != '\r')
                ++j;
            if (j == i)
                break;
            const std::string name = list.substr(i, j - i);
            std::string shown;
            std::uint64_t mask = 0;
            if (const auto it = keywords_.find(name); it != keywords_.end())
                shown = it->second;
            else if (!standard_keyword(name, mask, shown))
                return fail(e, where + " names keyword '" + name + "', which the provider does not define");
            if (!out.empty())
                out += ", ";
            out += shown;
            i = j;
        }
        return true;
    }

    Problem &problem_;
    std::map<std::string, std::string, std::less<>> strings_;
    std::string provider_name_;
    std::map<std::string, Opcode, std::less<>> levels_; // value and display, as opcodes
    std::map<std::string, Task, std::less<>> tasks_;
    std::map<std::string, Opcode, std::less<>> opcodes_;
    std::map<std::string, std::string, std::less<>> keywords_;
    std::map<std::string, ValueMap, std::less<>> maps_;
    std::map<std::string, EventSchema, std::less<>> templates_;
};

} // namespace

bool ManifestSchemas::load(std::span<const std::uint8_t> document, Problem &problem)
{
    XmlElement root;
    if (!parse_xml(document, root, problem))
        return false;
    Events loaded;
    Loader loader(problem);
    if (!loader.run(root, loaded))
        return false;
    add(std::move(loaded));
    return true;
}

void ManifestSchemas::add(std::unordered_map<std::string, Entry> loaded)
{
    for (auto &[key, entry] : loaded)
        events_[key] = std::move(entry);
    classic_.clear();
    for (const auto &[key, entry] : events_) {
        const std::string classic =
            key.substr(0, sizeof(etw_guid)) + static_cast<char>(entry.opcode) + '\0' + key.back();
        auto [it, added] = classic_.emplace(classic, entry.schema.get());
        if (!added)
            it->second = nullptr; // several events share the opcode and version: none is chosen
    }
}

} // namespace openetw::decode
