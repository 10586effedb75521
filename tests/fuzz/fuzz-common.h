/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the libFuzzer targets: run the whole collapse path on one input. */
#ifndef LP_FUZZ_COMMON_H
#define LP_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "profile/profile.h"

static inline void ignore_warning(void *ctx, const struct lp_error *w)
{
	(void)ctx, (void)w;
}

/* The input as a file at its start, as the readers take it. */
static inline int input_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	return fd;
}

/* Where the output goes: nowhere. */
static inline FILE *sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

static inline int collapse_input(const uint8_t *data, size_t size, struct profile_opts *o)
{
	struct lp_error err;
	struct folded_output out = { .diff = o->diff };
	struct profile *c;
	int fd = input_fd(data, size);

	o->warn = ignore_warning;
	c = profile__new(o);
	if (profile__read(c, fd, "fuzz", 0, &err) == 0)
		profile__write_folded(c, sink(), &out);
	profile__free(c);
	close(fd);
	return 0;
}

#endif
