/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/prefaulter.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/hugemem.h"
#include "base/thread.h"

struct prefaulter {
	struct worker w;	/* changed: a range was asked for, or the end */
	struct {
		void *p;
		size_t len;
	} queue[PREFAULTER_QUEUE];
	size_t head, n;
};

static void *prefaulter_main(void *arg)
{
	struct prefaulter *f = arg;

	pthread_mutex_lock(&f->w.lock);
	for (;;) {
		void *p;
		size_t len;

		while (!f->n && !f->w.done)
			pthread_cond_wait(&f->w.changed, &f->w.lock);
		if (f->w.done)
			break;
		p = f->queue[f->head].p;
		len = f->queue[f->head].len;
		/*
		 * a huge page at a time: the call holds the process's mapping
		 * lock (its user's own mmap waits), and an end asked for waits
		 * no longer than one
		 */
		if (len > HUGEMEM_PAGE) {
			len = HUGEMEM_PAGE - ((uintptr_t)p & (HUGEMEM_PAGE - 1));
			f->queue[f->head].p = (char *)p + len;
			f->queue[f->head].len -= len;
		} else {
			f->head = (f->head + 1) % PREFAULTER_QUEUE;
			f->n--;
		}
		pthread_mutex_unlock(&f->w.lock);
		hugemem__prefault(p, len);
		pthread_mutex_lock(&f->w.lock);
	}
	pthread_mutex_unlock(&f->w.lock);
	return NULL;
}

struct prefaulter *prefaulter__new(void)
{
	struct prefaulter *f = calloc(1, sizeof(*f));
	int err = ENOMEM;

	if (f && (err = worker__start(&f->w, prefaulter_main, f)) == 0)
		return f;
	free(f);
	errno = err;
	return NULL;
}

void prefaulter__ask(struct prefaulter *f, void *p, size_t len)
{
	if (!len)
		return;
	pthread_mutex_lock(&f->w.lock);
	if (f->n < PREFAULTER_QUEUE) {
		f->queue[(f->head + f->n) % PREFAULTER_QUEUE].p = p;
		f->queue[(f->head + f->n) % PREFAULTER_QUEUE].len = len;
		f->n++;
		pthread_cond_signal(&f->w.changed);
	}
	pthread_mutex_unlock(&f->w.lock);
}

void prefaulter__free(struct prefaulter *f)
{
	if (!f)
		return;
	worker__stop(&f->w);
	free(f);
}
