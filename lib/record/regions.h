/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Code regions (lp/region.h) while recording: the USDT probes of lp's
 * region marks in each file the workload maps, attached through the uprobe
 * PMU, and their samples read back as a region's begin or end.
 *
 *   lp:NAME__begin, lp:NAME__end     LP_REGION_BEGIN(NAME), LP_REGION_END(NAME)
 *   lp:region_begin, lp:region_end   lp_region_begin("name"), ...: the name is
 *                                    in the argument's buffer, on the stack
 */
#ifndef LP_REGIONS_H
#define LP_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

struct event_rings;
struct perf_event_header;
struct region_probes;

struct region_probes *region_probes__new(void);
void region_probes__free(struct region_probes *rp);

/*
 * Attaches the region probes of the file at path (dev and ino, or 0, tell a
 * file seen before: each is scanned once): the number attached, 0 when it has
 * none, or -errno with err set (a file that is not ELF has none).
 */
int region_probes__scan(struct region_probes *rp, struct event_rings *s, const char *path, uint64_t dev,
			uint64_t ino, struct lp_error *err);

/* Probes attached so far. */
size_t region_probes__count(const struct region_probes *rp);

/* A region probe's sample, read. */
struct region_hit {
	pid_t pid, tid;
	uint64_t time, ip;
	bool begin;
	const char *name;	/* the probe's, or the caller's buffer */
};

/*
 * Reads sample h of region probe index (event_rings__region_of): 0 and
 * *hit (a function form's name copied into buf), -EINVAL for a malformed
 * sample, -ENOENT when its name cannot be read (its argument off the copied
 * stack, or no name there).
 */
int region_probes__read(const struct region_probes *rp, int index, const struct perf_event_header *h, char *buf,
			size_t size, struct region_hit *hit);

#endif
