/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracepoint's raw sample data as KEY=VALUE pairs, by libtraceevent from
 * the tracepoint's format (tracefs events/SYSTEM/NAME/format): numbers in
 * decimal (pointers in hex), strings as they are.
 */
#ifndef LP_TPFIELDS_H
#define LP_TPFIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

struct tp_fields;

/* From the text of a format file; NULL with errno (and err: what libtraceevent refused). */
struct tp_fields *tp_fields__new(const char *format, size_t len, const char *system, struct lp_error *err);
void tp_fields__free(struct tp_fields *t);

/*
 * Calls fn with each field of raw (a sample's PERF_SAMPLE_RAW data) that is
 * not one of the common ones, in the format's order; value is NUL-ended,
 * valid during the call. Stops at fn's first negative return and returns it.
 */
int tp_fields__each(struct tp_fields *t, const uint8_t *raw, size_t size,
		    int (*fn)(void *ctx, const char *key, const char *value), void *ctx);

#endif
