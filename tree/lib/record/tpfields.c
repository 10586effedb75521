/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/tpfields.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

struct tp_fields {
	struct tep_handle *tep;
	struct tep_event *event;
	struct tep_format_field **fields;	/* the event's own, NULL-ended */
	char value[4096];
};

struct tp_fields *tp_fields__new(const char *format, size_t len, const char *system, struct lp_error *err)
{
	struct tp_fields *t = calloc(1, sizeof(*t));
	enum tep_errno e;
	char msg[256];

	if (!t || !(t->tep = tep_alloc())) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	e = tep_parse_format(t->tep, &t->event, format, len, system);
	if (e != 0 || !t->event || !(t->fields = tep_event_fields(t->event))) {
		tep_strerror(t->tep, e, msg, sizeof(msg));
		lp_error__set(err, 0, "cannot read the format of tracepoint %s: %s", system, e ? msg : "no fields");
		tp_fields__free(t);
		errno = EINVAL;
		return NULL;
	}
	return t;
}

void tp_fields__free(struct tp_fields *t)
{
	if (!t)
		return;
	free(t->fields);
	tep_free(t->tep);
	free(t);
}

/* A string field's text: a fixed char array, or (__data_loc) where the 32-bit value points. */
static int string_of(struct tp_fields *t, const struct tep_format_field *f, const uint8_t *raw, size_t size)
{
	size_t at = (size_t)f->offset, n = (size_t)f->size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (f->size != 4 || at + 4 > size)
			return -EPROTO;
		memcpy(&loc, raw + at, 4);
		at = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			at += (size_t)f->offset + 4;
	}
	if (at > size || n > size - at)
		return -EPROTO;
	if (n >= sizeof(t->value))
		n = sizeof(t->value) - 1;
	memcpy(t->value, raw + at, n);
	t->value[n] = 0;
	return 0;
}

int tp_fields__each(struct tp_fields *t, const uint8_t *raw, size_t size,
		    int (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	for (struct tep_format_field **p = t->fields; *p; p++) {
		struct tep_format_field *f = *p;
		unsigned long long v;
		int ret;

		if ((f->flags & TEP_FIELD_IS_STRING) || (f->flags & TEP_FIELD_IS_DYNAMIC)) {
			if ((ret = string_of(t, f, raw, size)) < 0)
				return ret;
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			/* arrays of numbers (a task's comm is a string): their size, not their bytes */
			continue;
		} else {
			if ((size_t)f->offset + (size_t)f->size > size || tep_read_number_field(f, raw, &v) != 0)
				return -EPROTO;
			if (f->flags & TEP_FIELD_IS_POINTER || strchr(f->type, '*'))
				snprintf(t->value, sizeof(t->value), "%#llx", v);
			else if (f->flags & TEP_FIELD_IS_SIGNED)
				snprintf(t->value, sizeof(t->value), "%lld",
					 f->size == 1 ? (long long)(int8_t)v : f->size == 2 ? (long long)(int16_t)v :
					 f->size == 4 ? (long long)(int32_t)v : (long long)v);
			else
				snprintf(t->value, sizeof(t->value), "%llu", v);
		}
		if ((ret = fn(ctx, f->name, t->value)) < 0)
			return ret;
	}
	return 0;
}
