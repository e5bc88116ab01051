/* LTTng-UST tracepoint provider of lttng-bench: the same payloads as the
 * OpenETW runs (0, 64 and 512 bytes, copied as one array). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER oebench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(OEBENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define OEBENCH_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(oebench, ev0, LTTNG_UST_TP_ARGS(const uint8_t *, p), LTTNG_UST_TP_FIELDS())

LTTNG_UST_TRACEPOINT_EVENT(oebench, ev64, LTTNG_UST_TP_ARGS(const uint8_t *, p),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_array(uint8_t, payload, p, 64)))

LTTNG_UST_TRACEPOINT_EVENT(oebench, ev512, LTTNG_UST_TP_ARGS(const uint8_t *, p),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_array(uint8_t, payload, p, 512)))

#endif /* OEBENCH_LTTNG_TP_H */

#include <lttng/tracepoint-event.h>
