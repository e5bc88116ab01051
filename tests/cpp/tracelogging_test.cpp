// openetw/tracelogging.hpp: a named provider's events, with every deduced
// field type, written into an in-process session's file, read back through
// the consumer and the decoder (names, types, values), and shown by etwdump
// with their names and values.
#include <openetw/tracelogging.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

int failures = 0;
#define EXPECT(cond)                                                                                                   \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);                                            \
            ++failures;                                                                                                \
        }                                                                                                              \
    } while (0)

struct Property {
    std::string value;
    unsigned in_type = 0, out_type = 0, kind = 0, children = 0;
};
struct Event {
    std::string name, provider;
    unsigned level = 0, channel = 0;
    std::uint64_t keyword = 0;
    std::map<std::string, Property> props;
};
struct Seen {
    etw_decoder *decoder = nullptr;
    std::vector<Event> events;
    int failures = 0;
};

int32_t on_event(void *user, const etw_event_record *ev)
{
    auto *s = static_cast<Seen *>(user);
    const etw_decoded_event *d = nullptr;
    if (etw_decoder_decode(&d, s->decoder, ev->record) != ETW_OK) {
        std::fprintf(stderr, "decode: %s\n", etw_last_error_message());
        ++s->failures;
        return 0;
    }
    Event e{d->event_name, d->provider_name, ev->level, ev->channel, ev->keyword, {}};
    for (std::uint32_t i = 0; i < d->property_count; ++i) {
        const etw_event_property &p = d->properties[i];
        if (p.parent == ETW_PROPERTY_NO_PARENT)
            e.props[p.name] = {p.value, p.in_type, p.out_type, p.kind, p.child_count};
    }
    s->events.push_back(std::move(e));
    return 0;
}

bool value_is(const Event &e, const char *name, const std::string &value, unsigned in_type)
{
    auto it = e.props.find(name);
    if (it == e.props.end()) {
        std::fprintf(stderr, "%s: no field %s\n", e.name.c_str(), name);
        return false;
    }
    if (it->second.value != value || it->second.in_type != in_type) {
        std::fprintf(stderr, "%s.%s: '%s' in-type %u; expected '%s' in-type %u\n", e.name.c_str(), name,
                     it->second.value.c_str(), it->second.in_type, value.c_str(), in_type);
        return false;
    }
    return true;
}

std::string run(const std::string &command)
{
    std::string out;
    if (std::FILE *p = popen(command.c_str(), "r")) {
        char buf[4096];
        while (std::size_t n = std::fread(buf, 1, sizeof buf, p))
            out.append(buf, n);
        pclose(p);
    }
    return out;
}

} // namespace

int main()
{
    const std::string dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    const std::string file = dir + "/tl-cpp-" + std::to_string(getpid()) + ".etl";
    const std::string name = "tl cpp " + std::to_string(getpid());
    const etw_guid value_guid = openetw::guid_from_string("0a0b0c0d-0e0f-1011-1213-141516171819");

    etw_properties *props = nullptr;
    etw_session *session = nullptr;
    EXPECT(etw_properties_create(&props, name.c_str()) == ETW_OK);
    EXPECT(etw_properties_set_log_file_name(props, file.c_str()) == ETW_OK);
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_IN_PROCESS;
    EXPECT(etw_session_start_ex(&session, props, &o) == ETW_OK);
    etw_properties_destroy(props);
    if (!session)
        return 1;
    {
        openetw::tracelogging_provider p("OpenEtw.Tests.Cpp");
        const etw_guid upper = openetw::tl::guid_from_name("OPENETW.TESTS.CPP");
        EXPECT(std::memcmp(&p.guid(), &upper, 16) == 0);
        EXPECT(etw_session_enable_provider(session, &p.guid(), ETW_CONTROL_CODE_ENABLE_PROVIDER, 5, 0, 0) == ETW_OK);
        using openetw::tl::field;
        const std::vector<std::int32_t> ids{1, -2, 3};
        const std::array<double, 2> ratios{0.5, 4.0};
        const std::uint8_t bytes[] = {1, 2, 0xFF};
        const std::string owned = "owned";
        EXPECT(p.write(
            "Deduced", field("b", true), field("i8", std::int8_t(-1)), field("u8", std::uint8_t(255)),
            field("i16", std::int16_t(-300)), field("u16", std::uint16_t(300)), field("i32", -5), field("u32", 5u),
            field("i64", std::int64_t(-9000000000)), field("u64", std::uint64_t(9000000000)), field("f", 2.5f),
            field("d", 0.125), field("g", value_guid), field("s", "text"), field("str", owned),
            field("sv", std::string_view("view-of-more", 4)), field("w", std::u16string(u"wide")), field("ids", ids),
            field("ratios", ratios), field("ptr", reinterpret_cast<const void *>(std::uintptr_t(0x1234)))));
        EXPECT(p.write(openetw::tl::options{.level = 2, .keyword = 0x8}, "Helpers", openetw::tl::binary("bin", bytes),
                       openetw::tl::hex("h", std::uint32_t(0xABC)), openetw::tl::pid("pid", 77),
                       openetw::tl::tid("tid", 78), openetw::tl::win32_error("err", 2)));
        EXPECT(p.write("Empty"));
        // A bad field throws with the library's message.
        bool threw = false;
        try {
            p.write("Bad", openetw::tl::typed("x", nullptr, 4, ETW_TL_IN_INT32));
        } catch (const openetw::error &e) {
            threw = e.status() == ETW_ERROR_INVALID_PARAMETER && std::strstr(e.what(), "'x'") != nullptr;
        }
        EXPECT(threw);
    }
    EXPECT(etw_session_stop(session, nullptr) == ETW_OK);
    etw_session_close(session);

    Seen seen;
    EXPECT(etw_decoder_create(&seen.decoder) == ETW_OK);
    etw_consumer_options co{};
    co.struct_size = sizeof co;
    co.event_record = on_event;
    co.user_data = &seen;
    etw_consumer *c = nullptr;
    const char *path = file.c_str();
    EXPECT(etw_consumer_open(&c, &path, 1, &co) == ETW_OK);
    if (c) {
        EXPECT(etw_consumer_process(c) == ETW_OK);
        etw_consumer_close(c);
    }
    etw_decoder_destroy(seen.decoder);
    EXPECT(seen.failures == 0);
    EXPECT(seen.events.size() == 3);
    if (seen.events.size() == 3) {
        const Event &e = seen.events[0];
        EXPECT(e.name == "Deduced" && e.provider == "OpenEtw.Tests.Cpp" && e.level == 5 && e.channel == 11);
        EXPECT(e.props.size() == 19);
        EXPECT(value_is(e, "b", "true", ETW_TL_IN_BOOL32));
        EXPECT(value_is(e, "i8", "-1", ETW_TL_IN_INT8));
        EXPECT(value_is(e, "u8", "255", ETW_TL_IN_UINT8));
        EXPECT(value_is(e, "i16", "-300", ETW_TL_IN_INT16));
        EXPECT(value_is(e, "u16", "300", ETW_TL_IN_UINT16));
        EXPECT(value_is(e, "i32", "-5", ETW_TL_IN_INT32));
        EXPECT(value_is(e, "u32", "5", ETW_TL_IN_UINT32));
        EXPECT(value_is(e, "i64", "-9000000000", ETW_TL_IN_INT64));
        EXPECT(value_is(e, "u64", "9000000000", ETW_TL_IN_UINT64));
        EXPECT(value_is(e, "f", "2.5", ETW_TL_IN_FLOAT));
        EXPECT(value_is(e, "d", "0.125", ETW_TL_IN_DOUBLE));
        EXPECT(value_is(e, "g", "{0A0B0C0D-0E0F-1011-1213-141516171819}", ETW_TL_IN_GUID));
        EXPECT(value_is(e, "s", "text", ETW_TL_IN_ANSISTRING));
        EXPECT(value_is(e, "str", "owned", ETW_TL_IN_ANSISTRING));
        EXPECT(value_is(e, "sv", "view", ETW_TL_IN_ANSISTRING));
        EXPECT(value_is(e, "w", "wide", ETW_TL_IN_UNICODESTRING));
        EXPECT(e.props.count("ids") && e.props.at("ids").kind == ETW_PROPERTY_KIND_ARRAY &&
               e.props.at("ids").children == 3 && e.props.at("ids").in_type == ETW_TL_IN_INT32);
        EXPECT(e.props.count("ratios") && e.props.at("ratios").children == 2);
        EXPECT(value_is(e, "ptr", sizeof(void *) == 8 ? "0x1234" : "0x1234", ETW_TL_IN_POINTER));
        const Event &h = seen.events[1];
        EXPECT(h.name == "Helpers" && h.level == 2 && h.keyword == 0x8);
        EXPECT(value_is(h, "bin", "0x0102FF", ETW_TL_IN_BINARY));
        EXPECT(value_is(h, "h", "0xABC", ETW_TL_IN_HEXINT32));
        EXPECT(value_is(h, "pid", "77", ETW_TL_IN_UINT32) && h.props.at("pid").out_type == 20); // TDH_OUTTYPE_PID
        EXPECT(value_is(h, "tid", "78", ETW_TL_IN_UINT32) && h.props.at("tid").out_type == 21); // TDH_OUTTYPE_TID
        EXPECT(value_is(h, "err", "0x00000002", ETW_TL_IN_UINT32));
        EXPECT(seen.events[2].name == "Empty" && seen.events[2].props.empty());
    }

#ifdef ETWDUMP_PATH
    // etwdump shows the events with their names and values.
    const std::string text = run(std::string("\"") + ETWDUMP_PATH + "\" --format text \"" + file + "\" 2>&1");
    EXPECT(text.find("OpenEtw.Tests.Cpp/Deduced") != std::string::npos);
    EXPECT(text.find("i32=-5") != std::string::npos);
    EXPECT(text.find("s=text") != std::string::npos);
    EXPECT(text.find("OpenEtw.Tests.Cpp/Helpers") != std::string::npos);
    const std::string json = run(std::string("\"") + ETWDUMP_PATH + "\" --format jsonl \"" + file + "\" 2>&1");
    EXPECT(json.find("\"event_name\": \"Deduced\"") != std::string::npos);
    EXPECT(json.find("\"ids\":[1,-2,3]") != std::string::npos);
    EXPECT(json.find("\"w\":\"wide\"") != std::string::npos);
    if (failures)
        std::fprintf(stderr, "etwdump text:\n%s\njsonl:\n%s\n", text.c_str(), json.c_str());
#endif
    std::remove(file.c_str());
    std::printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
