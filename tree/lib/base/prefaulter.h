/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pages faulted in by a thread of their own, ahead of the thread that will
 * use them: a cache that grows by MBs while it is filled costs its page
 * faults where it is filled (in these VMs a fresh huge page costs up to 5
 * ms: a fifth of lp-record's write phase), or on a CPU with nothing else to
 * do. Best effort: what is not faulted in yet is faulted in on use.
 */
#ifndef LP_PREFAULTER_H
#define LP_PREFAULTER_H

#include <stddef.h>

struct prefaulter;

/* A thread to fault pages in; NULL+errno (then pages are faulted in on use). */
struct prefaulter *prefaulter__new(void);
/*
 * Has the pages of [p, p + len) faulted in (hugemem__prefault), after those
 * asked for before; their contents stay as they are. Ranges asked for while
 * PREFAULTER_QUEUE are waiting are not: asking is never a wait.
 */
enum { PREFAULTER_QUEUE = 16 };
void prefaulter__ask(struct prefaulter *f, void *p, size_t len);
/* Stops the thread once the huge page it is on is done, and frees f; NULL is a no-op. */
void prefaulter__free(struct prefaulter *f);

#endif
