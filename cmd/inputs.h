/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading inputs through the collapser: what lp-collapse and lp-svg share. */
#ifndef LP_INPUTS_H
#define LP_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/profile.h"

/* --by host,rank (either or both): root frames of each input's host and rank; a usage error otherwise. */
void parse_by(char *arg, struct profile_opts *o);
/* --waits=all|unexplained|none; a usage error otherwise. */
void parse_waits(const char *arg, struct profile_opts *o);

/* Appends the events of "a,b,c" (the strings stay in arg); a usage error if none. */
void add_events(char *arg, const char ***events, size_t *n);

/* Reads one input (fd, named name in messages) into ctx; -errno with err filled in. */
typedef int (*input_reader)(void *ctx, int fd, const char *name, struct lp_error *err);

/* Opens path ("-": stdin) for read and closes it; prints what went wrong and returns -1. */
int read_input_with(const char *path, input_reader read, void *ctx);

/*
 * Reads the n paths (stdin when n is 0) into column 0, or into columns 0 and 1
 * in turn with two_columns; prints what went wrong and returns -1.
 */
int read_inputs(struct profile *c, char *const *paths, int n, bool two_columns);

struct exporter;
/*
 * Reads the n paths (stdin when n is 0) into an exporter (lp-export's
 * formats, lp-svg's timeline) and finishes it; prints what went wrong and
 * returns -1.
 */
int export_inputs(struct exporter *e, char *const *paths, int n);

#endif
