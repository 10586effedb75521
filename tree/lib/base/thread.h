/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp's helper threads (loading symbols, faulting memory in): a thread that
 * takes work handed over under a lock, and takes no signals, which stay the
 * starting thread's to get, since it is the one whose poll or wait a signal
 * must wake.
 */
#ifndef LP_THREAD_H
#define LP_THREAD_H

#include <pthread.h>
#include <stdbool.h>

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;	/* over the work handed over, and done */
	pthread_cond_t changed;	/* work was handed over, or the end */
	bool done;		/* told to end: its thread ends when it sees it */
};

/* Starts fn(arg) on such a thread, w's lock and condition made: 0, or an error number with nothing left to undo. */
int worker__start(struct worker *w, void *(*fn)(void *), void *arg);
/* Tells w's thread to end (done, changed), waits for it, and lets w's lock and condition go. */
void worker__stop(struct worker *w);

#endif
