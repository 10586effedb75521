// SPDX-License-Identifier: GPL-2.0-or-later
#include "eventargs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdutil.h"
#include "record/eventlist.h"
#include "record/eventspec.h"

static int print_event(void *ctx, const struct event_info *e)
{
	(void)ctx;
	if (e->unavailable)
		printf("%-50s %s (%s)\n", e->name, event_kind__name(e->kind), e->unavailable);
	else
		printf("%-50s %s\n", e->name, event_kind__name(e->kind));
	return ferror(stdout) ? -EIO : 0;
}

int list_events(int failure, const char *pattern)
{
	if (event_list__each(pattern, print_event, NULL) < 0 || close_stdout() != 0) {
		error("cannot write the list: %s", strerror(errno ? errno : EIO));
		return failure;
	}
	return 0;
}

static int one(const char *name, int (*fn)(void *ctx, const char *name), void *ctx)
{
	int ret;

	if (!event_list__is_tracepoint_glob(name))
		return fn(ctx, name);
	ret = event_list__tracepoints(name, fn, ctx);
	if (ret == 0)
		usage_error("no tracepoint matches '%s' (see --list-events)", name);
	if (ret < 0 && ret != -EINVAL)
		usage_error("cannot expand '%s': %s", name, strerror(-ret));
	return ret > 0 ? 0 : ret;
}

int event_args__each(const char *arg, int (*fn)(void *ctx, const char *name), void *ctx)
{
	const char *p = arg;
	int ret = 0;

	if (!*arg)
		usage_error("-e needs an event");
	while (ret == 0 && *p) {
		size_t n = event_spec__name_length(p);
		char *name;

		if (n == 0)
			usage_error("-e needs events separated by single commas, got '%s'", arg);
		if (!(name = strndup(p, n))) {
			error("out of memory");
			exit(exit_failure);
		}
		ret = one(name, fn, ctx);
		free(name);
		p += n;
		if (*p == ',' && !*++p)
			usage_error("-e needs an event after the last comma in '%s'", arg);
	}
	return ret;
}
