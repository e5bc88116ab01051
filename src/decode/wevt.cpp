#include "decode/wevt.hpp"

#include "decode/value_format.hpp"
#include "decode/pe_resources.hpp"

#include <cstring>
#include <map>

namespace openetw::decode {

namespace {

constexpr std::uint32_t kNoMessage = 0xFFFFFFFFu;
// Most items one template may hold (the schema's field indexes are 16-bit).
constexpr std::uint32_t kMaxItems = 4096;
constexpr int kMaxStructDepth = 32;

// EVENT_PROPERTY_INFO flags (tdh.h), which the item descriptors carry.
constexpr std::uint32_t kPropertyStruct = 0x1;
constexpr std::uint32_t kPropertyParamLength = 0x2;
constexpr std::uint32_t kPropertyParamCount = 0x4;
constexpr std::uint32_t kPropertyParamFixedLength = 0x10;
constexpr std::uint32_t kPropertyParamFixedCount = 0x20;

bool is_count_type(std::uint16_t t) { return (t >= kInInt8 && t <= kInUInt64) || t == kInHexInt32 || t == kInHexInt64; }

struct Named {
    std::uint32_t value = 0;
    std::string display;
};

class Reader {
public:
    Reader(std::span<const std::uint8_t> b, const MessageTable &messages, Problem &problem)
        : b_(b), messages_(messages), problem_(problem)
    {}

    bool run(SchemaEntries &out)
    {
        if (b_.size() < 16 || !sig(0, "CRIM"))
            return fail(0, "the resource does not start with a \"CRIM\" header");
        const std::uint32_t size = u32(4);
        if (size < 16 || size > b_.size())
            return fail(
                4, text_printf("the header's size %u is not between 16 and the resource's %zu bytes", size, b_.size()));
        b_ = b_.first(size);
        const std::uint32_t providers = u32(12);
        if (providers > (size - 16) / 20)
            return fail(12, text_printf("%u providers do not fit in %u bytes", providers, size));
        for (std::uint32_t i = 0; i < providers; ++i) {
            const std::uint32_t at = 16 + 20 * i;
            etw_guid guid;
            std::memcpy(&guid, b_.data() + at, sizeof guid);
            if (!provider(guid, u32(at + 16), out))
                return false;
        }
        return true;
    }

private:
    bool fail(std::uint64_t at, const std::string &what)
    {
        problem_.set(ETW_ERROR_INVALID_DATA, static_cast<std::uint32_t>(at),
                     text_printf("WEVT_TEMPLATE offset 0x%llx: ", static_cast<unsigned long long>(at)) + what);
        return false;
    }

    bool has(std::uint64_t at, std::uint64_t n) const { return at <= b_.size() && n <= b_.size() - at; }
    std::uint16_t u16(std::size_t at) const { return static_cast<std::uint16_t>(b_[at] | b_[at + 1] << 8); }
    std::uint32_t u32(std::size_t at) const
    {
        return static_cast<std::uint32_t>(u16(at)) | static_cast<std::uint32_t>(u16(at + 2)) << 16;
    }
    std::uint64_t u64(std::size_t at) const { return u32(at) | std::uint64_t{u32(at + 4)} << 32; }
    bool sig(std::size_t at, const char *s) const { return std::memcmp(b_.data() + at, s, 4) == 0; }

    // A counted name: UINT32 size (including itself), UTF-16LE text.
    bool counted_string(std::uint32_t at, std::string &out)
    {
        if (!has(at, 4) || u32(at) < 4 || !has(at, u32(at)))
            return fail(at, "a name's size is outside the resource");
        std::uint32_t n = 0;
        const std::uint32_t bytes = u32(at) - 4;
        while (n + 1 < bytes && (b_[at + 4 + n] || b_[at + 5 + n]))
            n += 2;
        out.clear();
        append_utf16le(b_.data() + at + 4, n, out);
        return true;
    }

    // The text shown for a named item: its message, else a standard name's display, else its name.
    template <typename Standard>
    std::string shown(std::uint32_t message, const std::string &name, Standard standard)
    {
        if (message != kNoMessage)
            if (const auto it = messages_.find(message); it != messages_.end() && !it->second.empty())
                return it->second;
        std::string display;
        if (standard(name, display))
            return display;
        return name;
    }

    // A list element's header: signature, size, count; entries of `entry` bytes follow at `first`.
    bool list(std::uint32_t at, const char *what, std::uint32_t header, std::uint32_t entry, std::uint32_t &count)
    {
        if (!has(at, header))
            return fail(at, std::string(what) + " header is outside the resource");
        count = u32(at + 8);
        if (!has(std::uint64_t{at} + header, std::uint64_t{count} * entry))
            return fail(at + 8, text_printf("%s has %u entries, more than the resource holds", what, count));
        return true;
    }

    bool provider(const etw_guid &guid, std::uint32_t at, SchemaEntries &out)
    {
        levels_.clear();
        opcodes_.clear();
        tasks_.clear();
        keywords_.clear();
        maps_.clear();
        templates_.clear();
        if (!has(at, 20) || !sig(at, "WEVT"))
            return fail(at, "a provider's offset does not point at a \"WEVT\" element");
        provider_name_.clear();
        if (const std::uint32_t m = u32(at + 8); m != kNoMessage)
            if (const auto it = messages_.find(m); it != messages_.end())
                provider_name_ = it->second;
        const std::uint32_t elements = u32(at + 12);
        if (!has(std::uint64_t{at} + 20, std::uint64_t{elements} * 8))
            return fail(at + 12, text_printf("the provider has %u elements, more than the resource holds", elements));
        // Names, maps and templates first: events refer to them by offset.
        std::vector<std::uint32_t> events;
        for (std::uint32_t i = 0; i < elements; ++i) {
            const std::uint32_t e = u32(at + 20 + 8 * i);
            if (!has(e, 12))
                return fail(at + 20 + 8 * i, text_printf("element %u's offset 0x%x is outside the resource", i, e));
            bool ok = true;
            if (sig(e, "LEVL"))
                ok = named_list(e, "LEVL", 12, levels_);
            else if (sig(e, "OPCO"))
                ok = named_list(e, "OPCO", 12, opcodes_);
            else if (sig(e, "TASK"))
                ok = named_list(e, "TASK", 28, tasks_);
            else if (sig(e, "KEYW"))
                ok = keywords(e);
            else if (sig(e, "MAPS"))
                ok = maps(e);
            else if (sig(e, "PRVA"))
                ok = attributes(e);
            else if (sig(e, "EVNT"))
                events.push_back(e);
            // CHAN and elements unknown here carry nothing a schema needs.
            if (!ok)
                return false;
        }
        if (provider_name_.empty()) {
            provider_name_.clear();
            append_guid_braced(reinterpret_cast<const std::uint8_t *>(&guid), provider_name_);
        }
        for (std::uint32_t i = 0; i < elements; ++i) {
            const std::uint32_t e = u32(at + 20 + 8 * i);
            if (sig(e, "TTBL") && !template_table(e))
                return false;
        }
        for (const std::uint32_t e : events)
            if (!event_list(guid, e, out))
                return false;
        return true;
    }

    // LEVL, OPCO (12-byte entries) and TASK (28): value, message id, ..., offset of the name last.
    bool named_list(std::uint32_t at, const char *what, std::uint32_t entry, std::map<std::uint32_t, Named> &into)
    {
        std::uint32_t count = 0;
        if (!list(at, what, 12, entry, count))
            return false;
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t e = at + 12 + entry * i;
            std::string name;
            if (!counted_string(u32(e + entry - 4), name))
                return false;
            Named n;
            n.value = u32(e);
            const std::uint32_t message = u32(e + 4);
            if (what[0] == 'L')
                n.display = shown(message, name, [](const std::string &s, std::string &d) {
                    std::uint8_t v;
                    return standard_level(s, v, d);
                });
            else if (what[0] == 'O')
                n.display = shown(message, name, [](const std::string &s, std::string &d) {
                    std::uint8_t v;
                    return standard_opcode(s, v, d);
                });
            else
                n.display = shown(message, name, [](const std::string &s, std::string &d) {
                    std::uint16_t v;
                    return standard_task(s, v, d);
                });
            into[e] = std::move(n);
        }
        return true;
    }

    bool keywords(std::uint32_t at)
    {
        std::uint32_t count = 0;
        if (!list(at, "KEYW", 12, 16, count))
            return false;
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t e = at + 12 + 16 * i;
            std::string name;
            if (!counted_string(u32(e + 12), name))
                return false;
            keywords_.emplace_back(u64(e), shown(u32(e + 8), name, [](const std::string &s, std::string &d) {
                                       std::uint64_t m;
                                       return standard_keyword(s, m, d);
                                   }));
        }
        return true;
    }

    // MAPS: count, then the offset of each VMAP/BMAP: signature, size, name offset, flags, count,
    // entries of (value, message id).
    bool maps(std::uint32_t at)
    {
        std::uint32_t count = 0;
        if (!list(at, "MAPS", 12, 4, count))
            return false;
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t m = u32(at + 12 + 4 * i);
            if (!has(m, 20) || !(sig(m, "VMAP") || sig(m, "BMAP")))
                return fail(at + 12 + 4 * i,
                            text_printf("map %u's offset 0x%x does not point at a VMAP or BMAP", i, m));
            const std::uint32_t n = u32(m + 16);
            if (!has(std::uint64_t{m} + 20, std::uint64_t{n} * 8))
                return fail(m + 16, text_printf("the map has %u entries, more than the resource holds", n));
            ValueMap map;
            map.bitmap = sig(m, "BMAP");
            for (std::uint32_t k = 0; k < n; ++k) {
                const std::uint32_t e = m + 20 + 8 * k;
                // An entry without a message shows as its number.
                if (const auto it = messages_.find(u32(e + 4)); it != messages_.end())
                    map.entries.emplace_back(u32(e), it->second);
            }
            maps_[m] = std::move(map);
        }
        return true;
    }

    // PRVA: count, then (kind, offset of a NUL-terminated UTF-16LE string); the provider's name.
    bool attributes(std::uint32_t at)
    {
        std::uint32_t count = 0;
        if (!list(at, "PRVA", 12, 8, count))
            return false;
        const std::uint64_t end = std::uint64_t{at} + u32(at + 4);
        if (count == 0 || end > b_.size())
            return true;
        const std::uint32_t s = u32(at + 16);
        if (s < at || s >= end)
            return fail(at + 16, text_printf("the provider name's offset 0x%x is outside its PRVA element", s));
        std::uint32_t n = 0;
        while (s + n + 1 < end && (b_[s + n] || b_[s + n + 1]))
            n += 2;
        provider_name_.clear();
        append_utf16le(b_.data() + s, n, provider_name_);
        return true;
    }

    bool template_table(std::uint32_t at)
    {
        std::uint32_t count = 0;
        if (!list(at, "TTBL", 12, 0, count))
            return false;
        const std::uint64_t end = std::uint64_t{at} + u32(at + 4);
        if (end > b_.size())
            return fail(at + 4, text_printf("TTBL's size %u is outside the resource", u32(at + 4)));
        std::uint64_t t = std::uint64_t{at} + 12;
        for (std::uint32_t i = 0; i < count; ++i) {
            if (t + 40 > end || !sig(static_cast<std::size_t>(t), "TEMP"))
                return fail(t, text_printf("template %u is not a \"TEMP\" element inside its table", i));
            const std::uint32_t size = u32(static_cast<std::size_t>(t) + 4);
            if (size < 40 || size > end - t)
                return fail(t + 4, text_printf("template %u's size %u is outside its table", i, size));
            if (!template_items(static_cast<std::uint32_t>(t)))
                return false;
            t += size;
        }
        return true;
    }

    struct Item {
        std::uint32_t flags = 0;
        std::uint16_t in = 0, out = 0;
        std::uint16_t first = 0, members = 0; // struct: its members in the item array
        std::uint32_t map = 0;
        std::uint16_t count = 0, length = 0;
        std::string name;
        bool member = false;
    };

    // The item descriptors (20 bytes, as tdh.h's EVENT_PROPERTY_INFO): flags, in-type and out-type
    // (a struct: first member and member count), map offset, count, length, name offset.
    bool template_items(std::uint32_t t)
    {
        const std::uint32_t n = u32(t + 8), items_at = u32(t + 16);
        EventSchema schema;
        if (n == 0) {
            templates_[t] = std::move(schema);
            return true;
        }
        if (n > kMaxItems)
            return fail(t + 8, text_printf("the template has %u items; at most %u are read", n, kMaxItems));
        if (!has(items_at, std::uint64_t{n} * 20))
            return fail(t + 16, text_printf("the template's %u items at 0x%x are outside the resource", n, items_at));
        std::vector<Item> items(n);
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t d = items_at + 20 * i;
            Item &it = items[i];
            it.flags = u32(d);
            it.in = b_[d + 4];
            it.out = b_[d + 5];
            it.first = u16(d + 4);
            it.members = u16(d + 6);
            it.map = u32(d + 8);
            it.count = u16(d + 12);
            it.length = u16(d + 14);
            if (!counted_string(u32(d + 16), it.name))
                return false;
        }
        for (std::uint32_t i = 0; i < n; ++i) {
            const Item &it = items[i];
            if (!(it.flags & kPropertyStruct))
                continue;
            if (it.first + std::uint32_t{it.members} > n || (it.members && it.first <= i))
                return fail(items_at + 20 * i,
                            text_printf("struct '%s' has members %u..%u, not later items of the template",
                                        it.name.c_str(), it.first, it.first + it.members));
            for (std::uint32_t k = it.first; k < std::uint32_t{it.first} + it.members; ++k) {
                if (items[k].member)
                    return fail(items_at + 20 * k, "item '" + items[k].name + "' is a member of two structs");
                items[k].member = true;
            }
        }
        std::vector<std::uint32_t> position(n, UINT32_MAX); // item -> field index
        std::map<std::uint32_t, std::uint32_t> used_maps;
        for (std::uint32_t i = 0; i < n; ++i)
            if (!items[i].member && !emit(items, i, items_at, schema, position, used_maps, 0))
                return false;
        templates_[t] = std::move(schema);
        return true;
    }

    bool emit(const std::vector<Item> &items, std::uint32_t i, std::uint32_t items_at, EventSchema &s,
              std::vector<std::uint32_t> &position, std::map<std::uint32_t, std::uint32_t> &used_maps, int depth)
    {
        const Item &it = items[i];
        const std::uint32_t at = items_at + 20 * i;
        const std::uint32_t index = static_cast<std::uint32_t>(s.fields.size());
        position[i] = index;
        s.fields.emplace_back();
        s.fields.back().name = it.name;
        if (!count_and_length(items, i, at, s, position))
            return false;
        if (it.flags & kPropertyStruct) {
            if (depth >= kMaxStructDepth)
                return fail(at, "structs nest deeper than " + std::to_string(kMaxStructDepth) + " levels");
            s.fields[index].in_type = kInStruct;
            for (std::uint32_t k = it.first; k < std::uint32_t{it.first} + it.members; ++k)
                if (!emit(items, k, items_at, s, position, used_maps, depth + 1))
                    return false;
            s.fields[index].end = static_cast<std::uint32_t>(s.fields.size());
            return true;
        }
        Field &f = s.fields[index];
        f.in_type = it.in;
        f.out_type = it.out;
        f.end = index + 1;
        if (it.in == kInNull || it.in == kInStruct || it.in > kInManifestCountedBinary)
            return fail(at + 4, text_printf("field '%s' has in-type %u, which is not a manifest input type",
                                            it.name.c_str(), it.in));
        if (it.map != 0) {
            const auto m = maps_.find(it.map);
            if (m == maps_.end())
                return fail(at + 8, text_printf("field '%s' uses a map at 0x%x, which the provider does not define",
                                                it.name.c_str(), it.map));
            auto [u, added] = used_maps.emplace(it.map, static_cast<std::uint32_t>(s.maps.size()));
            if (added)
                s.maps.push_back(m->second);
            s.fields[index].map = u->second;
        }
        return true;
    }

    // A count or length taken from another item must name an earlier integer field.
    bool reference(const std::vector<Item> &items, std::uint32_t i, std::uint32_t at, std::uint16_t source,
                   const char *what, const EventSchema &s, const std::vector<std::uint32_t> &position,
                   std::uint16_t &out)
    {
        const std::uint32_t p = source < items.size() ? position[source] : UINT32_MAX;
        if (p == UINT32_MAX || p >= s.fields.size() - 1)
            return fail(at, text_printf("the %s of '%s' is item %u, which is not an earlier field", what,
                                        items[i].name.c_str(), source));
        const Field &f = s.fields[p];
        if (!is_count_type(f.in_type) || f.count_kind != CountKind::One)
            return fail(at, text_printf("the %s of '%s' is field '%s', which is not an integer", what,
                                        items[i].name.c_str(), f.name.c_str()));
        out = static_cast<std::uint16_t>(p);
        return true;
    }

    bool count_and_length(const std::vector<Item> &items, std::uint32_t i, std::uint32_t at, EventSchema &s,
                          const std::vector<std::uint32_t> &position)
    {
        const Item &it = items[i];
        Field &f = s.fields.back();
        if (it.flags & kPropertyParamCount) {
            std::uint16_t p = 0;
            if (!reference(items, i, at + 12, it.count, "count", s, position, p))
                return false;
            s.fields.back().count_kind = CountKind::Field;
            s.fields.back().count = p;
        } else if ((it.flags & kPropertyParamFixedCount) || it.count > 1) {
            f.count_kind = CountKind::Fixed;
            f.count = it.count;
        }
        Field &g = s.fields.back();
        if (it.flags & kPropertyParamLength) {
            std::uint16_t p = 0;
            if (!reference(items, i, at + 14, it.length, "length", s, position, p))
                return false;
            s.fields.back().length_kind = LengthKind::Field;
            s.fields.back().length = p;
        } else if ((it.flags & kPropertyParamFixedLength) || it.length > 0) {
            g.length_kind = LengthKind::Fixed;
            g.length = it.length;
        }
        return true;
    }

    // EVNT: count, then 48-byte definitions: the EVENT_DESCRIPTOR, message id, and the offsets
    // of the template, opcode, level and task definitions (0: none).
    bool event_list(const etw_guid &guid, std::uint32_t at, SchemaEntries &out)
    {
        std::uint32_t count = 0;
        if (!list(at, "EVNT", 16, 48, count))
            return false;
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t e = at + 16 + 48 * i;
            const std::uint16_t id = u16(e);
            const std::uint8_t version = b_[e + 2], opcode = b_[e + 5];
            const std::uint64_t mask = u64(e + 8);
            auto schema = std::make_unique<EventSchema>();
            const std::string where = text_printf("event %u (version %u)", id, version);
            if (const std::uint32_t t = u32(e + 20); t != 0) {
                const auto it = templates_.find(t);
                if (it == templates_.end())
                    return fail(e + 20, where + text_printf(" uses a template at 0x%x, which is not in a TTBL", t));
                *schema = it->second;
            }
            schema->provider_name = provider_name_;
            if (!named(e + 24, opcodes_, where, "opcode", schema->opcode_name) ||
                !named(e + 28, levels_, where, "level", schema->level_name) ||
                !named(e + 32, tasks_, where, "task", schema->task_name))
                return false;
            for (const auto &[bits, name] : keywords_) {
                if (bits == 0 || (mask & bits) != bits)
                    continue;
                if (!schema->keywords_name.empty())
                    schema->keywords_name += ", ";
                schema->keywords_name += name;
            }
            // No symbol is compiled in: "Task/Opcode", else whichever of the two it has.
            if (!schema->opcode_name.empty() && !schema->task_name.empty())
                schema->event_name = schema->task_name + "/" + schema->opcode_name;
            else
                schema->event_name = schema->task_name.empty() ? schema->opcode_name : schema->task_name;
            if (!out.emplace(manifest_key(guid, id, version), ManifestSchemas::Entry{std::move(schema), opcode}).second)
                return fail(e, where + " is defined twice for provider '" + provider_name_ + "'");
        }
        return true;
    }

    bool named(std::uint32_t field, const std::map<std::uint32_t, Named> &list, const std::string &where,
               const char *what, std::string &out)
    {
        const std::uint32_t at = u32(field);
        if (at == 0)
            return true;
        const auto it = list.find(at);
        if (it == list.end())
            return fail(field,
                        where + text_printf(" names a %s at 0x%x, which the provider does not define", what, at));
        out = it->second.display;
        return true;
    }

    std::span<const std::uint8_t> b_;
    const MessageTable &messages_;
    Problem &problem_;
    std::string provider_name_;
    std::map<std::uint32_t, Named> levels_, opcodes_, tasks_; // by the offset of their definition
    std::vector<std::pair<std::uint64_t, std::string>> keywords_;
    std::map<std::uint32_t, ValueMap> maps_;         // by the offset of the VMAP/BMAP
    std::map<std::uint32_t, EventSchema> templates_; // by the offset of the TEMP
};

} // namespace

bool read_wevt_template(std::span<const std::uint8_t> crim, const MessageTable &messages, SchemaEntries &out,
                        Problem &problem)
{
    Reader reader(crim, messages, problem);
    return reader.run(out);
}

bool read_provider_binary(std::span<const std::uint8_t> file, SchemaEntries &out, Problem &problem)
{
    std::vector<PeResource> templates, tables;
    if (!pe_resources(file, ResourceType{0, "WEVT_TEMPLATE"}, templates, problem) ||
        !pe_resources(file, ResourceType{kResourceMessageTable, {}}, tables, problem))
        return false;
    if (templates.empty()) {
        problem.set(ETW_ERROR_NOT_FOUND, 0, "the binary has no WEVT_TEMPLATE resource (no instrumentation manifest)");
        return false;
    }
    // English (0x409) messages win over the others, as the manifest loader prefers en-US.
    MessageTable messages;
    for (int pass = 0; pass < 2; ++pass)
        for (const PeResource &t : tables) {
            if ((t.language == 0x409) != (pass == 1))
                continue;
            if (!read_message_table(t.data, messages, problem))
                return false;
        }
    for (const PeResource &t : templates)
        if (!read_wevt_template(t.data, messages, out, problem))
            return false;
    return true;
}

} // namespace openetw::decode
