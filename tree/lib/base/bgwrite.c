/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/bgwrite.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * A ring of buffers: the producer swaps a full one in at tail, the thread
 * writes them from head. A slot not in flight keeps the memory of a buffer
 * written, for the producer to fill again.
 */
struct bgwrite {
	int fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;	/* a buffer was handed over, written, or the end asked for */
	struct strbuf slots[BGWRITE_SLOTS];
	size_t head, tail, in_flight;
	bool done;
	int err;		/* the first write's that failed, positive */
};

int bgwrite__write_all(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct bgwrite *b = arg;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		struct strbuf *buf;
		int err = 0;

		while (!b->in_flight && !b->done)
			pthread_cond_wait(&b->changed, &b->lock);
		if (!b->in_flight)
			break;
		buf = &b->slots[b->head];
		/* after a failure the rest is dropped: the producer hears of it and stops */
		if (!b->err) {
			pthread_mutex_unlock(&b->lock);
			err = -bgwrite__write_all(b->fd, buf->s, buf->len);
			pthread_mutex_lock(&b->lock);
		}
		if (err && !b->err)
			b->err = err;
		buf->len = 0;
		b->head = (b->head + 1) % BGWRITE_SLOTS;
		b->in_flight--;
		pthread_cond_broadcast(&b->changed);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

struct bgwrite *bgwrite__new(int fd)
{
	struct bgwrite *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		return NULL;
	b->fd = fd;
	if ((err = pthread_mutex_init(&b->lock, NULL)) != 0)
		goto fail;
	if ((err = pthread_cond_init(&b->changed, NULL)) != 0) {
		pthread_mutex_destroy(&b->lock);
		goto fail;
	}
	if ((err = pthread_create(&b->thread, NULL, writer_main, b)) != 0) {
		pthread_cond_destroy(&b->changed);
		pthread_mutex_destroy(&b->lock);
		goto fail;
	}
	return b;
fail:
	free(b);
	errno = err;
	return NULL;
}

int bgwrite__put(struct bgwrite *b, struct strbuf *buf)
{
	struct strbuf empty;
	int err;

	pthread_mutex_lock(&b->lock);
	while (b->in_flight == BGWRITE_SLOTS && !b->err)
		pthread_cond_wait(&b->changed, &b->lock);
	if (!(err = b->err)) {
		empty = b->slots[b->tail];
		b->slots[b->tail] = *buf;
		*buf = empty;
		b->tail = (b->tail + 1) % BGWRITE_SLOTS;
		b->in_flight++;
		pthread_cond_broadcast(&b->changed);
	}
	pthread_mutex_unlock(&b->lock);
	return -err;
}

int bgwrite__finish(struct bgwrite *b)
{
	int err;

	if (!b)
		return 0;
	pthread_mutex_lock(&b->lock);
	b->done = true;
	pthread_cond_broadcast(&b->changed);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	err = b->err;
	for (size_t i = 0; i < BGWRITE_SLOTS; i++)
		strbuf__release(&b->slots[i]);
	pthread_cond_destroy(&b->changed);
	pthread_mutex_destroy(&b->lock);
	free(b);
	return -err;
}
