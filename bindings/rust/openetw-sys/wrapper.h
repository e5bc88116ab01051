/* The public headers the Rust binding covers: a header joins here when it is
   bound (keep in step with bindings/swig/openetw.i). */
#include <openetw/status.h>
#include <openetw/constants.h>
#include <openetw/records.h>
#include <openetw/properties.h>
#include <openetw/session.h>
#include <openetw/provider.h>
#include <openetw/tracelogging.h>
#include <openetw/consumer.h>
#include <openetw/collect.h>
#include <openetw/version.h>
#include <openetw/decode.h>
