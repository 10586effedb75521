/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "record/followgate.h"
#include "record/perfrecord.h"
#include "tap.h"

/* A record of type with pid/tid words as the kernel lays them out, then the trailer's time. */
static struct perf_event_header *task(void *buf, uint32_t type, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid,
				      uint64_t time)
{
	struct perf_event_header *h = buf;
	uint32_t *w = (uint32_t *)(h + 1);

	memset(buf, 0, 64);
	h->type = type;
	h->size = 64;
	w[0] = (uint32_t)pid;
	w[1] = (uint32_t)ppid;
	w[2] = (uint32_t)tid;
	w[3] = (uint32_t)ptid;
	memcpy((char *)buf + 64 - 24, &time, 8);
	return h;
}

static struct perf_event_header *fork_rec(void *buf, pid_t parent, pid_t child, uint64_t time)
{
	return task(buf, PERF_RECORD_FORK, child, parent, child, parent, time);
}

static struct perf_event_header *exit_rec(void *buf, pid_t tid, uint64_t time)
{
	return task(buf, PERF_RECORD_EXIT, tid, 1, tid, 1, time);
}

static struct perf_event_header *comm_rec(void *buf, pid_t tid, uint64_t time)
{
	return perf_comm__encode(buf, 128, &(struct perf_comm){ .pid = tid, .tid = tid, .comm = "x" }, time);
}

/* What the gate passed on, by time. */
struct kept {
	uint64_t times[64];
	size_t n;
	int fail;	/* the error to return, once */
};

static int keep(void *ctx, const struct perf_event_header *h)
{
	struct kept *k = ctx;

	if (k->fail) {
		int e = k->fail;

		k->fail = 0;
		return e;
	}
	if (k->n < 64)
		k->times[k->n++] = perf_record__time(h);
	return 0;
}

static int offer(struct follow_gate *g, struct kept *k, const struct perf_event_header *h)
{
	int ret = follow_gate__offer(g, h);

	/* what the recorder does with a record passed at once */
	if (ret == 1)
		keep(k, h);
	return ret;
}

static bool kept_are(const struct kept *k, const uint64_t *want, size_t n)
{
	return k->n == n && memcmp(k->times, want, n * sizeof(*want)) == 0;
}

int main(void)
{
	_Alignas(8) char buf[128];
	struct follow_gate *g = follow_gate__new();
	struct kept k = { 0 };

	ok(g && follow_gate__follow(g, 100) == 0, "a gate follows the command");
	ok(offer(g, &k, comm_rec(buf, 100, 1)) == 1, "the command's own records pass at once");
	ok(offer(g, &k, comm_rec(buf, 555, 2)) == 0, "another task's are held");
	struct perf_event_header lost = { .type = PERF_RECORD_LOST, .size = 8 };
	ok(follow_gate__offer(g, &lost) == 1, "records of no task pass");
	ok(follow_gate__held_from(g) == 2, "held_from is the oldest held record's time");
	ok(follow_gate__end_round(g, keep, &k) == 0 && follow_gate__dropped(g) == 0,
	   "a record of an unknown task is held for the round after the one that read it");
	ok(follow_gate__end_round(g, keep, &k) == 0 && follow_gate__dropped(g) == 1 &&
	   follow_gate__held_from(g) == UINT64_MAX, "and dropped after it");
	ok(kept_are(&k, (uint64_t[]){ 1 }, 1), "only the followed task's record was kept");

	/* a child's records read before its FORK (another CPU's ring read first) */
	k.n = 0;
	ok(offer(g, &k, comm_rec(buf, 101, 11)) == 0, "a child's record before its FORK is held");
	ok(offer(g, &k, fork_rec(buf, 100, 101, 10)) == 1, "a followed thread's FORK passes");
	ok(offer(g, &k, comm_rec(buf, 101, 12)) == 1, "and follows the child at once");
	ok(follow_gate__end_round(g, keep, &k) == 0 && kept_are(&k, (uint64_t[]){ 10, 12, 11 }, 3),
	   "the held record of the child is kept at the round's end");

	/* a grandchild's FORK and records read a round before its parent's FORK */
	k.n = 0;
	ok(offer(g, &k, comm_rec(buf, 103, 23)) == 0 && offer(g, &k, fork_rec(buf, 102, 103, 22)) == 0,
	   "a grandchild's records and FORK are held while its parent is unknown");
	ok(follow_gate__end_round(g, keep, &k) == 0 && k.n == 0, "still held after their round");
	ok(offer(g, &k, fork_rec(buf, 101, 102, 21)) == 1, "the parent's FORK, read a round later, passes");
	ok(follow_gate__end_round(g, keep, &k) == 0 && kept_are(&k, (uint64_t[]){ 21, 22, 23 }, 3),
	   "then the grandchild's FORK and records are kept, in time order");

	/* an exit: the thread's records on other CPUs still come after it */
	k.n = 0;
	ok(offer(g, &k, exit_rec(buf, 103, 31)) == 1, "a followed thread's EXIT passes");
	ok(follow_gate__end_round(g, keep, &k) == 0, "round ends");
	ok(offer(g, &k, comm_rec(buf, 103, 30)) == 1, "its records read in the round after still pass");
	ok(follow_gate__end_round(g, keep, &k) == 0, "round ends");
	ok(offer(g, &k, comm_rec(buf, 103, 40)) == 0, "its number is forgotten a round later");
	ok(offer(g, &k, fork_rec(buf, 100, 103, 41)) == 1 && offer(g, &k, comm_rec(buf, 103, 42)) == 1,
	   "unless a followed thread forks a thread of that number again");
	ok(follow_gate__end_round(g, keep, &k) == 0 && follow_gate__end_round(g, keep, &k) == 0 &&
	   kept_are(&k, (uint64_t[]){ 31, 30, 41, 42 }, 4) && follow_gate__dropped(g) == 2,
	   "whose records are kept, not the held one from before its FORK");

	/* an error keeping a held record leaves it held */
	k.n = 0;
	ok(offer(g, &k, comm_rec(buf, 104, 51)) == 0 && offer(g, &k, fork_rec(buf, 100, 104, 50)) == 1,
	   "a record held before its FORK");
	k.fail = -ENOMEM;
	ok(follow_gate__end_round(g, keep, &k) == -ENOMEM && follow_gate__held_from(g) == 51,
	   "an error keeping it ends the round with it held");
	ok(follow_gate__end_round(g, keep, &k) == 0 && kept_are(&k, (uint64_t[]){ 50, 51 }, 2),
	   "and the next round keeps it");
	follow_gate__free(g);
	follow_gate__free(NULL);
	return tap_done();
}
