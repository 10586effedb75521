/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of the followed tasks among every task's. Task and mapping
 * records taken on every CPU (not per task: a task-bound event costs each
 * context switch of the task) come for all of the machine; a recording of a
 * command or of processes keeps those of the tasks it follows: the threads
 * given, and every thread a followed thread forks, as inherited per-task
 * events would have shown them.
 *
 * Rings are read CPU by CPU, so a child's first records can be read before
 * its parent's FORK. A record of a task not known to be followed is held
 * and decided at the end of the next round of reading: every record written
 * before it has been read by then (it was written before the round that
 * read it ended). Likewise a thread's EXIT forgets it a round later, when
 * its records from other CPUs are all in.
 */
#ifndef LP_FOLLOWGATE_H
#define LP_FOLLOWGATE_H

#include <stdint.h>
#include <sys/types.h>

#include "record/perfevent.h"

struct follow_gate;

/* NULL and errno when out of memory. */
struct follow_gate *follow_gate__new(void);
void follow_gate__free(struct follow_gate *g);

/* Follows thread tid (a command, an attached process's threads) from now on; -ENOMEM. */
int follow_gate__follow(struct follow_gate *g, pid_t tid);

/*
 * Offers record h, read in the current round: 1 when it is to be kept now
 * (a followed task's, or not a task's: lost records), 0 when it is held
 * (copied), -ENOMEM. A followed thread's FORK follows the child.
 */
int follow_gate__offer(struct follow_gate *g, const struct perf_event_header *h);

/*
 * Ends a round of reading: the held records now known to be followed are
 * passed to keep in time order, those held since the round before are
 * dropped. Called twice after the last round, it decides every record.
 * keep's error ends it (the record stays held).
 */
int follow_gate__end_round(struct follow_gate *g, perf_record_fn keep, void *ctx);

/* The time of the oldest record held (records up to it may still come), or UINT64_MAX. */
uint64_t follow_gate__held_from(const struct follow_gate *g);

/* Records dropped as no followed task's. */
uint64_t follow_gate__dropped(const struct follow_gate *g);

#endif
