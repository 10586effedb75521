/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *lp_error__quote(const char *s, size_t len, char *buf, size_t size)
{
	size_t n = len < 40 ? len : 40, o = 0;

	for (size_t i = 0; i < n && o + 5 < size; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f)
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
	}
	if (len > n && o + 4 < size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

void lp_error__clear(struct lp_error *e)
{
	if (!e)
		return;
	e->file = NULL;
	e->line = e->col = 0;
	e->kind = LP_ERROR_OTHER;
	e->msg[0] = 0;
}

static void set_message(struct lp_error *e, enum lp_error_kind kind, const char *fmt, va_list ap)
{
	e->kind = kind;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
}

int lp_error__set(struct lp_error *e, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return ret;
	va_start(ap, fmt);
	set_message(e, LP_ERROR_OTHER, fmt, ap);
	va_end(ap);
	return ret;
}

int lp_error__set_kind(struct lp_error *e, enum lp_error_kind kind, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return ret;
	va_start(ap, fmt);
	set_message(e, kind, fmt, ap);
	va_end(ap);
	return ret;
}

void lp_error__warn(lp_warn_fn warn, void *ctx, const char *file, long line, const char *fmt, ...)
{
	struct lp_error w = { .file = file, .line = line };
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(w.msg, sizeof(w.msg), fmt, ap);
	va_end(ap);
	warn(ctx, &w);
}
