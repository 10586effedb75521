/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp streams in the formats of other viewers: pprof (gzipped profile.proto),
 * speedscope's JSON, the Trace Event JSON of Perfetto and chrome://tracing,
 * and `perf script` text. Inputs are read one after another into one
 * exporter; each format keeps what it must (per-thread state, unique stacks),
 * never every sample, so memory does not grow with the length of the inputs.
 */
#ifndef LP_EXPORT_H
#define LP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

enum export_format {
	EXPORT_PPROF,
	EXPORT_SPEEDSCOPE,
	EXPORT_TRACE,
	EXPORT_PERF_SCRIPT,
};

/* The format of a name ("pprof", "speedscope", "trace", "perf-script"); -EINVAL. */
int export_format__parse(const char *name, enum export_format *f);

struct export_opts {
	enum export_format format;
	const char *const *events;	/* events to keep, NULL = all */
	size_t nevents;
	const char *name;		/* what the profile is called (speedscope, pprof comment) */
	const char *reader;		/* the program, in messages ("lp-export") */
	const void *format_opts;	/* what a format of exporter__new_with takes */
	bool strict;			/* a stream without its trailer is an error, not a warning */
	lp_warn_fn warn;
	void *ctx;
};

struct exporter;

/* Writes to out (which stays the caller's). NULL+errno. */
struct exporter *exporter__new(const struct export_opts *o, FILE *out);
void exporter__free(struct exporter *e);

/*
 * The same reading for a consumer of lp streams outside this module (lp-svg's
 * timeline): its own export_ops (export-format.h). NULL+errno.
 */
struct export_ops;
struct exporter *exporter__new_with(const struct export_opts *o, const struct export_ops *ops, FILE *out);

/*
 * Reads all of fd, an lp stream named name in messages. Comments, metadata it
 * does not use and record types it does not know are skipped; a malformed
 * record is an error. -errno with err filled in (file and line).
 */
int exporter__read(struct exporter *e, int fd, const char *name, struct lp_error *err);

/* Writes what the format keeps for the end; -errno (-EIO: out failed). */
int exporter__finish(struct exporter *e, struct lp_error *err);

#endif
