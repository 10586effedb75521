/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdutil.h"
#include "export/export.h"

void add_events(char *arg, const char ***events, size_t *n)
{
	for (char *save = NULL, *ev = strtok_r(arg, ",", &save); ev; ev = strtok_r(NULL, ",", &save)) {
		const char **v = realloc(*events, (*n + 1) * sizeof(*v));

		if (!v) {
			error("out of memory");
			exit(EXIT_RUNTIME);
		}
		v[(*n)++] = ev;
		*events = v;
	}
	if (*n == 0)
		usage_error("--event needs at least one event name");
}

void parse_by(char *arg, struct profile_opts *o)
{
	for (char *save = NULL, *key = strtok_r(arg, ",", &save); key; key = strtok_r(NULL, ",", &save)) {
		if (strcmp(key, "host") == 0)
			o->by_host = true;
		else if (strcmp(key, "rank") == 0)
			o->by_rank = true;
		else if (strcmp(key, "region") == 0)
			o->by_region = true;
		else
			usage_error("--by takes host, rank, region or several (host,rank), not '%s'", key);
	}
	if (!o->by_host && !o->by_rank && !o->by_region)
		usage_error("--by takes host, rank, region or several (host,rank)");
}

void parse_waits(const char *arg, struct profile_opts *o)
{
	if (strcmp(arg, "all") == 0)
		o->waits = WAITS_ALL;
	else if (strcmp(arg, "unexplained") == 0)
		o->waits = WAITS_UNEXPLAINED;
	else if (strcmp(arg, "none") == 0)
		o->waits = WAITS_NONE;
	else
		usage_error("--waits takes all, unexplained or none, not '%s'", arg);
}

int read_input_with(const char *path, input_reader read, void *ctx)
{
	struct lp_error err;
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = read(ctx, fd, is_stdin ? "stdin" : path, &err);
	if (!is_stdin)
		close(fd);
	if (ret < 0) {
		error_report(&err);
		return -1;
	}
	return 0;
}

struct column {
	struct profile *c;
	int col;
};

static int read_column(void *ctx, int fd, const char *name, struct lp_error *err)
{
	struct column *k = ctx;

	return profile__read(k->c, fd, name, k->col, err);
}

static int read_input(struct profile *c, const char *path, int col)
{
	struct column k = { c, col };

	return read_input_with(path, read_column, &k);
}

int read_inputs(struct profile *c, char *const *paths, int n, bool two_columns)
{
	if (n == 0)
		return read_input(c, "-", 0);
	for (int i = 0; i < n; i++)
		if (read_input(c, paths[i], two_columns ? i : 0) < 0)
			return -1;
	return 0;
}

static int read_export(void *ctx, int fd, const char *name, struct lp_error *err)
{
	return exporter__read(ctx, fd, name, err);
}

int export_inputs(struct exporter *e, char *const *paths, int n)
{
	struct lp_error err;

	if (n == 0 && read_input_with("-", read_export, e) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (read_input_with(paths[i], read_export, e) < 0)
			return -1;
	if (exporter__finish(e, &err) < 0) {
		error_report(&err);
		return -1;
	}
	return 0;
}
