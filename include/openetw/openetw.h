/*
 * openetw/openetw.h - the whole public API of OpenETW.
 *
 * OpenETW is a portable implementation of classic Event Tracing for Windows
 * sessions. Include this header, link with -lopenetw (pkg-config openetw).
 */
#ifndef OPENETW_OPENETW_H
#define OPENETW_OPENETW_H

#include "export.h"
#include "status.h"
#include "constants.h"
#include "records.h"
#include "properties.h"
#include "filter.h"
#include "session.h"
#include "provider.h"
#include "tracelogging.h"
#include "consumer.h"
#include "collect.h"
#include "decode.h"
#include "version.h"

#endif /* OPENETW_OPENETW_H */
