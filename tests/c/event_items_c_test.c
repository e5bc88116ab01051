/* One TraceLogging event meeting the rest of the modern provider features,
   from C99 through the public headers: a session enables the provider with
   etw_session_enable_provider_ex, asking SID, EVENT_KEY and STACK_TRACE and
   admitting one event name (an EVENT_NAME filter). The admitted event carries
   RELATED_ACTIVITYID, the properties' items and TraceLogging's PROV_TRAITS and
   EVENT_SCHEMA_TL in that order, each linked to the next but the last; it
   decodes with its field; the other name is not written at all. */
#include <openetw/openetw.h>

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ITEMS 8

typedef struct seen {
    etw_decoder *decoder;
    uint32_t kept, dropped, other, failures;
    uint32_t item_count;
    uint16_t types[MAX_ITEMS];
    uint16_t linkage[MAX_ITEMS];
    uint32_t frames;
    char sid[64];
    char field[32];
} seen;

static int32_t on_event(void *user_data, const etw_event_record *ev)
{
    seen *s = (seen *)user_data;
    const etw_decoded_event *d = NULL;
    uint32_t i;
    if (etw_decoder_decode(&d, s->decoder, ev->record) != ETW_OK) {
        ++s->failures;
        fprintf(stderr, "decode failed: %s\n", etw_last_error_message());
        return 0;
    }
    if (d->event_name == NULL || strcmp(d->event_name, "Kept") != 0) {
        if (d->event_name != NULL && strcmp(d->event_name, "Dropped") == 0)
            ++s->dropped;
        else
            ++s->other;
        return 0;
    }
    ++s->kept;
    if (d->property_count == 1 && d->properties[0].value != NULL)
        snprintf(s->field, sizeof s->field, "%s=%s", d->properties[0].name, d->properties[0].value);
    s->item_count = ev->extended_data_count < MAX_ITEMS ? ev->extended_data_count : MAX_ITEMS;
    for (i = 0; i < s->item_count; ++i) {
        const etw_extended_item *it = &ev->extended_data[i];
        uint64_t match = 0, addresses[256];
        uint32_t n = 0;
        s->types[i] = it->ext_type;
        s->linkage[i] = it->linkage;
        if (it->ext_type == ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 ||
            it->ext_type == ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32)
            if (etw_extended_item_stack(it, &match, addresses, 256, &n) == ETW_OK)
                s->frames = n;
        if (it->ext_type == ETW_EVENT_HEADER_EXT_TYPE_SID)
            (void)etw_extended_item_sid_string(it, s->sid, sizeof s->sid, &n);
    }
    return 0;
}

int main(void)
{
    const char *file = "event_items_c_test.etl";
    const etw_guid related = {0x5eed0001, 0x2222, 0x3333, {1, 2, 3, 4, 5, 6, 7, 8}};
    etw_guid g;
    etw_properties *props = NULL;
    etw_session *session = NULL;
    etw_session_options o;
    etw_provider *p = NULL;
    etw_consumer *c = NULL;
    etw_consumer_options co;
    etw_enable_parameters params;
    etw_event_filter_descriptor filter;
    static seen s;
    char session_name[64], expected_sid[64];
    /* An EVENT_NAME filter admitting "Kept" at every level and keyword. */
    union {
        etw_event_filter_event_name f;
        uint8_t bytes[64];
    } names;
    const uint16_t expected[] = {ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID,
                                 ETW_EVENT_HEADER_EXT_TYPE_SID,
                                 ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY,
                                 sizeof(void *) == 8 ? ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64
                                                     : ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32,
                                 ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS,
                                 ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL};
    const uint32_t n_expected = sizeof expected / sizeof expected[0];
    uint32_t i;
    int dummy = 0;

    snprintf(session_name, sizeof session_name, "event-items-c-%p", (void *)&dummy);
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

    CHECK(etw_provider_guid_from_name(&g, "OpenEtw.Test.EventItems") == ETW_OK);
    CHECK(etw_provider_register(&p, &g, NULL, NULL, NULL) == ETW_OK);
    CHECK(etw_provider_set_name(p, "OpenEtw.Test.EventItems", NULL) == ETW_OK);

    memset(&names, 0, sizeof names);
    names.f.FilterIn = 1;
    names.f.NameCount = 1;
    memcpy(names.f.Names, "Kept", 5);
    filter.Ptr = (uint64_t)(uintptr_t)&names;
    filter.Size = 20 + 5;
    filter.Type = ETW_EVENT_FILTER_TYPE_EVENT_NAME;
    memset(&params, 0, sizeof params);
    params.struct_size = sizeof params;
    params.enable_property =
        ETW_EVENT_ENABLE_PROPERTY_SID | ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY | ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE;
    params.level = 5;
    params.filter_count = 1;
    params.filters = &filter;
    CHECK(etw_session_enable_provider_ex(session, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, &params) == ETW_OK);

    CHECK(ETW_TRACELOGGING_WRITE(p, "Dropped", ETW_TL_INT32("x", 2)) == ETW_OK);
    CHECK(ETW_TRACELOGGING_WRITE(p, "Kept", ETW_TL_INT32("x", 1), ETW_TL_RELATED_ACTIVITY_ID(&related)) == ETW_OK);
    CHECK(ETW_TRACELOGGING_WRITE(p, "Dropped", ETW_TL_INT32("x", 3)) == ETW_OK);

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
    CHECK(s.kept == 1);
    CHECK(s.dropped == 0); /* the EVENT_NAME filter turned them away in the writer */
    CHECK(strcmp(s.field, "x=1") == 0);
    CHECK(s.item_count == n_expected);
    for (i = 0; i < s.item_count && i < n_expected; ++i) {
        if (s.types[i] != expected[i])
            fprintf(stderr, "item %u: type %u, expected %u\n", i, (unsigned)s.types[i], (unsigned)expected[i]);
        CHECK(s.types[i] == expected[i]);
        /* Each item says whether another follows: all do but the last. */
        CHECK(s.linkage[i] == (i + 1 < n_expected ? 1 : 0));
    }
    CHECK(s.frames > 0);
    snprintf(expected_sid, sizeof expected_sid, "S-1-22-1-%u", (unsigned)geteuid());
    CHECK(strcmp(s.sid, expected_sid) == 0);
    remove(file);
    return check_summary();
}
