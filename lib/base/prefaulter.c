/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "prefaulter.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "hugemem.h"
#include "thread.h"

struct prefaulter {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t asked;
	struct {
		void *p;
		size_t len;
	} queue[PREFAULTER_QUEUE];
	size_t head, n;
	bool done;
};

static void *prefaulter_main(void *arg)
{
	struct prefaulter *f = arg;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		void *p;
		size_t len;

		while (!f->n && !f->done)
			pthread_cond_wait(&f->asked, &f->lock);
		if (f->done)
			break;
		p = f->queue[f->head].p;
		len = f->queue[f->head].len;
		f->head = (f->head + 1) % PREFAULTER_QUEUE;
		f->n--;
		pthread_mutex_unlock(&f->lock);
		hugemem__prefault(p, len);
		pthread_mutex_lock(&f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

struct prefaulter *prefaulter__new(void)
{
	struct prefaulter *f = calloc(1, sizeof(*f));
	int err = ENOMEM;

	if (!f)
		goto fail;
	if ((err = pthread_mutex_init(&f->lock, NULL)) != 0)
		goto fail;
	if ((err = pthread_cond_init(&f->asked, NULL)) != 0) {
		pthread_mutex_destroy(&f->lock);
		goto fail;
	}
	if ((err = thread__start(&f->thread, prefaulter_main, f)) != 0) {
		pthread_cond_destroy(&f->asked);
		pthread_mutex_destroy(&f->lock);
		goto fail;
	}
	return f;
fail:
	free(f);
	errno = err;
	return NULL;
}

void prefaulter__ask(struct prefaulter *f, void *p, size_t len)
{
	if (!len)
		return;
	pthread_mutex_lock(&f->lock);
	if (f->n < PREFAULTER_QUEUE) {
		f->queue[(f->head + f->n) % PREFAULTER_QUEUE].p = p;
		f->queue[(f->head + f->n) % PREFAULTER_QUEUE].len = len;
		f->n++;
		pthread_cond_signal(&f->asked);
	}
	pthread_mutex_unlock(&f->lock);
}

void prefaulter__free(struct prefaulter *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->done = true;
	pthread_cond_signal(&f->asked);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_cond_destroy(&f->asked);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
