/* TraceLogging from C99 (tracelogging.h): events written with
   ETW_TRACELOGGING_WRITE into an in-process session's file, read back with
   the consumer and the decoder (names, types, values), the provider's name
   in every event, the name-derived GUID, and the statuses of bad input. */
#include <openetw/openetw.h>

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 8
#define MAX_PROPS 32

/* What the decoder said about each TraceLogging event of the file. */
typedef struct seen_property {
    char name[64];
    char value[128];
    uint16_t in_type, out_type;
    uint32_t kind, child_count;
} seen_property;

typedef struct seen_event {
    char name[64];
    char provider[64];
    uint8_t level, channel, opcode;
    uint64_t keyword;
    uint16_t ext_types[4];
    uint32_t ext_count;
    uint32_t prop_count;
    seen_property props[MAX_PROPS];
} seen_event;

typedef struct seen {
    etw_decoder *decoder;
    uint32_t count;
    uint32_t failures;
    seen_event events[MAX_EVENTS];
} seen;

static void copy_text(char *to, size_t cap, const char *from)
{
    size_t n = from ? strlen(from) : 0;
    if (n >= cap)
        n = cap - 1;
    if (n)
        memcpy(to, from, n);
    to[n] = 0;
}

static int32_t on_event(void *user_data, const etw_event_record *ev)
{
    seen *s = (seen *)user_data;
    const etw_decoded_event *d = NULL;
    seen_event *e;
    uint32_t i;
    if (s->count == MAX_EVENTS)
        return 0;
    if (etw_decoder_decode(&d, s->decoder, ev->record) != ETW_OK) {
        ++s->failures;
        fprintf(stderr, "decode failed: %s\n", etw_last_error_message());
        return 0;
    }
    e = &s->events[s->count++];
    copy_text(e->name, sizeof e->name, d->event_name);
    copy_text(e->provider, sizeof e->provider, d->provider_name);
    e->level = ev->level;
    e->channel = ev->channel;
    e->opcode = ev->opcode;
    e->keyword = ev->keyword;
    e->ext_count = ev->extended_data_count < 4 ? ev->extended_data_count : 4;
    for (i = 0; i < e->ext_count; ++i)
        e->ext_types[i] = ev->extended_data[i].ext_type;
    e->prop_count = d->property_count < MAX_PROPS ? d->property_count : MAX_PROPS;
    for (i = 0; i < e->prop_count; ++i) {
        const etw_event_property *p = &d->properties[i];
        copy_text(e->props[i].name, sizeof e->props[i].name, p->name);
        copy_text(e->props[i].value, sizeof e->props[i].value, p->value);
        e->props[i].in_type = p->in_type;
        e->props[i].out_type = p->out_type;
        e->props[i].kind = p->kind;
        e->props[i].child_count = p->child_count;
    }
    return 0;
}

static const seen_property *prop(const seen_event *e, const char *name)
{
    uint32_t i;
    for (i = 0; i < e->prop_count; ++i)
        if (strcmp(e->props[i].name, name) == 0)
            return &e->props[i];
    fprintf(stderr, "event %s has no property %s\n", e->name, name);
    return NULL;
}

/* The property's value is text, its in-type in (TDH_INTYPE_* = TlgIn_t below 26). */
static int is_value(const seen_event *e, const char *name, const char *text, uint16_t in)
{
    const seen_property *p = prop(e, name);
    if (!p)
        return 0;
    if (strcmp(p->value, text) != 0 || p->in_type != in) {
        fprintf(stderr, "%s.%s: value '%s' in-type %u, expected '%s' in-type %u\n", e->name, name, p->value,
                (unsigned)p->in_type, text, (unsigned)in);
        return 0;
    }
    return 1;
}

static void bad_inputs(etw_provider *p)
{
    etw_tl_field many[ETW_TL_MAX_FIELDS + 1];
    static char long_name[ETW_TL_MAX_METADATA_SIZE + 16];
    int32_t v = 1;
    uint32_t i;
    for (i = 0; i < ETW_TL_MAX_FIELDS + 1; ++i) {
        many[i].name = "f";
        many[i].data = &v;
        many[i].size = 4;
        many[i].in_type = ETW_TL_IN_INT32;
        many[i].out_type = 0;
        many[i].reserved = 0;
    }
    CHECK(etw_provider_write_tracelogging(p, "Many", NULL, NULL, NULL, ETW_TL_MAX_FIELDS, many) == ETW_OK);
    CHECK(etw_provider_write_tracelogging(p, "TooMany", NULL, NULL, NULL, ETW_TL_MAX_FIELDS + 1, many) ==
          ETW_ERROR_INVALID_PARAMETER);
    CHECK(strstr(etw_last_error_message(), "ETW_TL_MAX_FIELDS") != NULL);
    CHECK(etw_provider_write_tracelogging(p, NULL, NULL, NULL, NULL, 1, many) == ETW_ERROR_INVALID_PARAMETER);
    CHECK(strstr(etw_last_error_message(), "event_name") != NULL);
    CHECK(ETW_TRACELOGGING_WRITE(p, "NullName", ETW_TL_INT32(NULL, 1)) == ETW_ERROR_INVALID_PARAMETER);
    CHECK(strstr(etw_last_error_message(), "NULL name") != NULL);
    /* 16 is TDH's POINTER, which TraceLogging does not define. */
    CHECK(ETW_TRACELOGGING_WRITE(p, "BadType", ETW_TL_FIELD("ptr", &v, 4, 16, 0)) == ETW_ERROR_INVALID_PARAMETER);
    CHECK(strstr(etw_last_error_message(), "'ptr'") != NULL);
    CHECK(ETW_TRACELOGGING_WRITE(p, "BadOut", ETW_TL_FIELD("x", &v, 4, ETW_TL_IN_INT32, 20)) ==
          ETW_ERROR_INVALID_PARAMETER);
    CHECK(ETW_TRACELOGGING_WRITE(p, "BadSize", ETW_TL_FIELD("x", &v, 2, ETW_TL_IN_INT32, 0)) ==
          ETW_ERROR_INVALID_PARAMETER);
    CHECK(strstr(etw_last_error_message(), "size 2") != NULL);
    CHECK(ETW_TRACELOGGING_WRITE(p, "BadArray", ETW_TL_FIELD("a", &v, 3, ETW_TL_IN_INT16 | ETW_TL_IN_ARRAY, 0)) ==
          ETW_ERROR_INVALID_PARAMETER);
    CHECK(ETW_TRACELOGGING_WRITE(p, "StringArray",
                                 ETW_TL_FIELD("a", "x", 1, ETW_TL_IN_ANSISTRING | ETW_TL_IN_ARRAY, 0)) ==
          ETW_ERROR_INVALID_PARAMETER);
    CHECK(ETW_TRACELOGGING_WRITE(p, "Nul", ETW_TL_STRING_N("s", "a\0b", 3)) == ETW_ERROR_INVALID_PARAMETER);
    memset(long_name, 'n', sizeof long_name - 1);
    CHECK(ETW_TRACELOGGING_WRITE(p, "Large", ETW_TL_INT32(long_name, 1)) == ETW_ERROR_ARITHMETIC_OVERFLOW);
    CHECK(strstr(etw_last_error_message(), "ETW_TL_MAX_METADATA_SIZE") != NULL);
    CHECK(etw_provider_write_tracelogging(NULL, "x", NULL, NULL, NULL, 0, NULL) == ETW_ERROR_INVALID_PARAMETER);
    CHECK(ETW_TRACELOGGING_WRITE(p, "ShortStruct", ETW_TL_STRUCT("s", 3), ETW_TL_INT32("a", 1)) ==
          ETW_ERROR_INVALID_PARAMETER);
    CHECK(strstr(etw_last_error_message(), "struct of 3 members, but only 1") != NULL);
    CHECK(ETW_TRACELOGGING_WRITE(p, "EmptyStruct", ETW_TL_STRUCT("s", 0)) == ETW_ERROR_INVALID_PARAMETER);
    CHECK(ETW_TRACELOGGING_WRITE(p, "DataStruct", ETW_TL_FIELD("s", &v, 1, ETW_TL_IN_STRUCT, 0),
                                 ETW_TL_INT32("a", 1)) == ETW_ERROR_INVALID_PARAMETER);
}

int main(void)
{
    const char *file = "tracelogging_c_test.etl";
    const etw_guid expected = {0xce5fa4ea, 0xab00, 0x5402, {0x8b, 0x76, 0x9f, 0x76, 0xac, 0x85, 0x8f, 0xb5}};
    const etw_guid activity = {0x11111111, 0x2222, 0x3333, {1, 2, 3, 4, 5, 6, 7, 8}};
    const etw_guid value_guid = {0x01020304, 0x0506, 0x0708, {9, 10, 11, 12, 13, 14, 15, 16}};
    etw_guid g;
    etw_properties *props = NULL;
    etw_session *session = NULL;
    etw_session_options o;
    etw_provider *p = NULL;
    etw_consumer *c = NULL;
    etw_consumer_options co;
    static seen s;
    char session_name[64];
    const int32_t ids[3] = {7, -8, 9};
    const double ratios[2] = {0.5, -2.25};
    const uint8_t blob[3] = {0xDE, 0xAD, 0x01};
    const uint16_t wide[3] = {'h', 'i', 0};
    int dummy = 0;

    /* The name-derived GUID (the TraceLoggingProvider.h sample's pair). */
    CHECK(etw_provider_guid_from_name(&g, "MyCompany.MyComponent") == ETW_OK);
    CHECK(memcmp(&g, &expected, sizeof g) == 0);
    CHECK(etw_provider_guid_from_name(&g, "mycompany.mycomponent") == ETW_OK);
    CHECK(memcmp(&g, &expected, sizeof g) == 0); /* case-insensitive, as EventSource */
    CHECK(etw_provider_guid_from_name(NULL, "x") == ETW_ERROR_INVALID_PARAMETER);

    snprintf(session_name, sizeof session_name, "tl-c-test-%p", (void *)&dummy);
    remove(file);
    CHECK(etw_properties_create(&props, session_name) == ETW_OK);
    CHECK(etw_properties_set_log_file_name(props, file) == ETW_OK);
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_IN_PROCESS;
    CHECK(etw_session_start_ex(&session, props, &o) == ETW_OK);
    etw_properties_destroy(props);
    if (!session)
        return check_summary();

    CHECK(etw_provider_register(&p, &expected, NULL, NULL, NULL) == ETW_OK);
    /* Disabled: nothing is checked, nothing written. */
    CHECK(ETW_TRACELOGGING_WRITE(p, "Unseen", ETW_TL_INT32(NULL, 1)) == ETW_OK);
    CHECK(etw_provider_set_name(p, "MyCompany.MyComponent", NULL) == ETW_OK);
    CHECK(etw_provider_set_name(p, "Again", NULL) == ETW_ERROR_ALREADY_EXISTS);
    CHECK(etw_session_enable_provider(session, &expected, ETW_CONTROL_CODE_ENABLE_PROVIDER, 5, 0, 0) == ETW_OK);

    CHECK(ETW_TRACELOGGING_WRITE(p, "OrderShipped", ETW_TL_LEVEL(4), ETW_TL_INT32("order_id", 4711),
                                 ETW_TL_STRING("customer", "Fabrikam"), ETW_TL_KEYWORD(0x30), ETW_TL_OPCODE(1),
                                 ETW_TL_ACTIVITY_ID(&activity)) == ETW_OK);
    CHECK(ETW_TRACELOGGING_WRITE(
              p, "Scalars", ETW_TL_INT8("i8", -8), ETW_TL_UINT8("u8", 200), ETW_TL_INT16("i16", -1600),
              ETW_TL_UINT16("u16", 65000), ETW_TL_INT32("i32", -320000), ETW_TL_UINT32("u32", 4000000000u),
              ETW_TL_INT64("i64", -6400000000LL), ETW_TL_UINT64("u64", 18000000000000000000ULL),
              ETW_TL_FLOAT("f", 1.5f), ETW_TL_DOUBLE("d", -0.25), ETW_TL_BOOL("b", 1), ETW_TL_HEX32("h32", 0xBEEF),
              ETW_TL_HEX64("h64", 0x1234567890ULL), ETW_TL_GUID("g", value_guid), ETW_TL_PID("pid", 42),
              ETW_TL_TID("tid", 43), ETW_TL_IPV4("ip", 0x0100007F), ETW_TL_WIN32ERROR("err", 5)) == ETW_OK);
    CHECK(ETW_TRACELOGGING_WRITE(p, "Strings", ETW_TL_STRING("s", "h\xC3\xA9llo"), ETW_TL_STRING("empty", NULL),
                                 ETW_TL_STRING_N("counted", "abcdef", 3), ETW_TL_WSTRING("w", wide),
                                 ETW_TL_BINARY("bin", blob, 3)) == ETW_OK);
    CHECK(ETW_TRACELOGGING_WRITE(p, "Arrays", ETW_TL_ARRAY("ids", ids, 3, ETW_TL_IN_INT32),
                                 ETW_TL_ARRAY("ratios", ratios, 2, ETW_TL_IN_DOUBLE),
                                 ETW_TL_UINT8("after", 1)) == ETW_OK);
    CHECK(ETW_TRACELOGGING_WRITE(p, "NoFields") == ETW_OK);
    CHECK(ETW_TRACELOGGING_WRITE(p, "Structs", ETW_TL_STRUCT("box", 2), ETW_TL_STRUCT("corner", 2),
                                 ETW_TL_INT32("x", 1), ETW_TL_INT32("y", 2), ETW_TL_UINT8("color", 3),
                                 ETW_TL_UINT8("after", 4)) == ETW_OK);
    bad_inputs(p);
    /* Level 6 is above the session's 5: not written, no error. */
    CHECK(ETW_TRACELOGGING_WRITE(p, "TooVerbose", ETW_TL_LEVEL(6)) == ETW_OK);

    CHECK(etw_session_stop(session, NULL) == ETW_OK);
    etw_session_close(session);
    etw_provider_unregister(p);

    CHECK(etw_decoder_create(&s.decoder) == ETW_OK);
    memset(&co, 0, sizeof co);
    co.struct_size = sizeof co;
    co.event_record = on_event;
    co.user_data = &s;
    CHECK(etw_consumer_open(&c, &file, 1, &co) == ETW_OK);
    if (c) {
        CHECK(etw_consumer_process(c) == ETW_OK);
        etw_consumer_close(c);
    }
    etw_decoder_destroy(s.decoder);
    CHECK(s.failures == 0);
    CHECK(s.count == 7); /* OrderShipped, Scalars, Strings, Arrays, NoFields, Structs, Many */
    if (s.count == 7) {
        const seen_event *e = &s.events[0];
        CHECK(strcmp(e->name, "OrderShipped") == 0);
        CHECK(strcmp(e->provider, "MyCompany.MyComponent") == 0);
        CHECK(e->level == 4 && e->channel == ETW_TL_CHANNEL && e->keyword == 0x30 && e->opcode == 1);
        /* PROV_TRAITS then EVENT_SCHEMA_TL, as Windows logs them. */
        CHECK(e->ext_count == 2 && e->ext_types[0] == ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS &&
              e->ext_types[1] == ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL);
        CHECK(e->prop_count == 2);
        CHECK(is_value(e, "order_id", "4711", ETW_TL_IN_INT32));
        CHECK(is_value(e, "customer", "Fabrikam", ETW_TL_IN_ANSISTRING));
        CHECK(prop(e, "customer") && prop(e, "customer")->out_type == ETW_TL_OUT_UTF8);

        e = &s.events[1];
        CHECK(strcmp(e->name, "Scalars") == 0 && e->level == 5 && e->prop_count == 18);
        CHECK(is_value(e, "i8", "-8", ETW_TL_IN_INT8));
        CHECK(is_value(e, "u8", "200", ETW_TL_IN_UINT8));
        CHECK(is_value(e, "i16", "-1600", ETW_TL_IN_INT16));
        CHECK(is_value(e, "u16", "65000", ETW_TL_IN_UINT16));
        CHECK(is_value(e, "i32", "-320000", ETW_TL_IN_INT32));
        CHECK(is_value(e, "u32", "4000000000", ETW_TL_IN_UINT32));
        CHECK(is_value(e, "i64", "-6400000000", ETW_TL_IN_INT64));
        CHECK(is_value(e, "u64", "18000000000000000000", ETW_TL_IN_UINT64));
        CHECK(is_value(e, "f", "1.5", ETW_TL_IN_FLOAT));
        CHECK(is_value(e, "d", "-0.25", ETW_TL_IN_DOUBLE));
        CHECK(is_value(e, "b", "true", ETW_TL_IN_BOOL32));
        CHECK(is_value(e, "h32", "0xBEEF", ETW_TL_IN_HEXINT32));
        CHECK(is_value(e, "h64", "0x1234567890", ETW_TL_IN_HEXINT64));
        CHECK(is_value(e, "g", "{01020304-0506-0708-090A-0B0C0D0E0F10}", ETW_TL_IN_GUID));
        CHECK(is_value(e, "pid", "42", ETW_TL_IN_UINT32));
        CHECK(is_value(e, "tid", "43", ETW_TL_IN_UINT32));
        CHECK(is_value(e, "ip", "127.0.0.1", ETW_TL_IN_UINT32));
        CHECK(is_value(e, "err", "0x00000005", ETW_TL_IN_UINT32));

        e = &s.events[2];
        CHECK(strcmp(e->name, "Strings") == 0 && e->prop_count == 5);
        CHECK(is_value(e, "s", "h\xC3\xA9llo", ETW_TL_IN_ANSISTRING));
        CHECK(is_value(e, "empty", "", ETW_TL_IN_ANSISTRING));
        CHECK(is_value(e, "counted", "abc", ETW_TL_IN_COUNTEDANSISTRING));
        CHECK(is_value(e, "w", "hi", ETW_TL_IN_UNICODESTRING));
        CHECK(is_value(e, "bin", "0xDEAD01", ETW_TL_IN_BINARY));

        e = &s.events[3];
        CHECK(strcmp(e->name, "Arrays") == 0);
        CHECK(prop(e, "ids") && prop(e, "ids")->kind == ETW_PROPERTY_KIND_ARRAY && prop(e, "ids")->child_count == 3);
        CHECK(prop(e, "ratios") && prop(e, "ratios")->child_count == 2);
        CHECK(is_value(e, "after", "1", ETW_TL_IN_UINT8));

        CHECK(strcmp(s.events[4].name, "NoFields") == 0 && s.events[4].prop_count == 0);
        e = &s.events[5];
        CHECK(strcmp(e->name, "Structs") == 0 && e->prop_count == 6);
        CHECK(prop(e, "box") && prop(e, "box")->kind == ETW_PROPERTY_KIND_STRUCT && prop(e, "box")->child_count == 2);
        CHECK(prop(e, "corner") && prop(e, "corner")->kind == ETW_PROPERTY_KIND_STRUCT);
        CHECK(is_value(e, "x", "1", ETW_TL_IN_INT32) && is_value(e, "y", "2", ETW_TL_IN_INT32));
        CHECK(is_value(e, "color", "3", ETW_TL_IN_UINT8) && is_value(e, "after", "4", ETW_TL_IN_UINT8));
        CHECK(strcmp(s.events[6].name, "Many") == 0 && s.events[6].prop_count == MAX_PROPS);
    }
    remove(file);
    return check_summary();
}
