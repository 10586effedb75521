/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer's code regions: each probe sample of the recorded processes as
 * a C record, regions kept nested per thread. An end whose region is not
 * open is counted, not written; an end of an outer region closes the inner
 * ones still open, and a thread's exit those still open, each counted.
 */
#include "record/writer-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stream/lpregions.h"
#include "record/perfevent.h"
#include "record/regions.h"

static void note_first(char *first, size_t size, const char *name)
{
	if (!first[0])
		snprintf(first, size, "%s", name);
}

/* Ends thread tid's open regions from the innermost down to the one at keep (0: the outermost), each written. */
static int write_ends(struct writer *w, pid_t pid, pid_t tid, size_t keep, uint64_t time)
{
	const struct lp_span *names;
	size_t n = lp_regions__open(w->open_regions, tid, &names);
	int ret;

	while (n-- > keep)
		if ((ret = lp_writer__region(&w->out, time, pid, tid, false, names[n].s)) < 0 ||
		    (ret = lp_writer__end(&w->out)) < 0)
			return ret;
	return 0;
}

int writer__write_region(struct writer *w, const struct perf_event_header *h, int index)
{
	char buf[LP_REGION_NAME_CAP];
	struct region_hit hit;
	struct lp_region c;
	const struct lp_span *names;
	size_t n;
	long k;
	int ret = region_probes__read(w->r->regions, index, h, buf, sizeof(buf), &hit);

	if (ret == -ENOENT) {
		w->stats->region_unnamed++;
		return 0;
	}
	if (ret < 0)
		return 0;
	/* the probes fire in any process that runs them: the recorded ones have their mappings known */
	if (!symbolizer__maps(w->sym, hit.pid, hit.ip))
		return 0;
	if (!w->open_regions && !(w->open_regions = lp_regions__new()))
		return -ENOMEM;
	c = (struct lp_region){ .time = hit.time, .pid = hit.pid, .tid = hit.tid, .begin = hit.begin,
				.name = { hit.name, strlen(hit.name) } };
	if (hit.begin) {
		if ((ret = lp_regions__add(w->open_regions, &c)) < 0 ||
		    (ret = lp_writer__region(&w->out, hit.time, hit.pid, hit.tid, true, hit.name)) < 0)
			return ret;
		w->stats->regions++;
		return lp_writer__end(&w->out);
	}
	if ((k = lp_regions__find(w->open_regions, hit.tid, c.name)) < 0) {
		w->stats->region_orphans++;
		note_first(w->stats->first_orphan, sizeof(w->stats->first_orphan), hit.name);
		return 0;
	}
	/* inner regions left open: closed with it */
	n = lp_regions__open(w->open_regions, hit.tid, &names);
	for (size_t i = (size_t)k + 1; i < n; i++) {
		w->stats->region_unclosed++;
		note_first(w->stats->first_unclosed, sizeof(w->stats->first_unclosed), names[i].s);
	}
	if ((ret = write_ends(w, hit.pid, hit.tid, (size_t)k, hit.time)) < 0)
		return ret;
	return lp_regions__add(w->open_regions, &c) < 0 ? -ENOMEM : 0;
}

int writer__close_regions(struct writer *w, pid_t pid, pid_t tid, uint64_t time)
{
	const struct lp_span *names;
	size_t n = w->open_regions ? lp_regions__open(w->open_regions, tid, &names) : 0;
	int ret;

	for (size_t i = 0; i < n; i++) {
		w->stats->region_unclosed++;
		note_first(w->stats->first_unclosed, sizeof(w->stats->first_unclosed), names[i].s);
	}
	if (!n)
		return 0;
	ret = write_ends(w, pid, tid, 0, time);
	lp_regions__end_thread(w->open_regions, tid);
	return ret;
}
