/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each thread's open code regions as a stream is read (its C records), for
 * the readers that place samples in them: lp-collapse and lp-svg --by
 * region, the report. Nested as lp-stream(5) says: an end closes the
 * innermost open region of its name and those opened inside it.
 */
#ifndef LP_LPREGIONS_H
#define LP_LPREGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "stream/lpstream.h"

struct lp_regions;

struct lp_regions *lp_regions__new(void);
void lp_regions__free(struct lp_regions *g);

/*
 * A C record read: 0; 1 for an end whose region was not open (nothing
 * changes); 2 for an end that closed inner regions still open too;
 * -ENOMEM.
 */
int lp_regions__add(struct lp_regions *g, const struct lp_region *c);

/* Where the innermost open region of tid named name is among its open ones (0: the outermost), or -1. */
long lp_regions__find(const struct lp_regions *g, int64_t tid, struct lp_span name);

/* Thread tid's open regions, outermost first (escaped names, owned by g until its next change): their count. */
size_t lp_regions__open(const struct lp_regions *g, int64_t tid, const struct lp_span **names);

/* Thread tid ended: its open regions are closed; how many there were. */
size_t lp_regions__end_thread(struct lp_regions *g, int64_t tid);

#endif
