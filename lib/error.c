#include "error.h"

#include <stdarg.h>
#include <stdio.h>

void lp_error__clear(struct lp_error *e)
{
	if (!e)
		return;
	e->file = NULL;
	e->line = e->col = 0;
	e->msg[0] = 0;
}

int lp_error__set(struct lp_error *e, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return ret;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return ret;
}

void lp_warn(lp_warn_fn warn, void *ctx, const char *file, long line, const char *fmt, ...)
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
