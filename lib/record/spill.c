/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A temporary file written once and read through a mapping. See spill.h. */
#include "record/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/thread.h"

struct spill {
	int fd;
	uint64_t size;
	char *map;
	/* the block handed over to the writer thread (started at the first) */
	struct worker w;
	bool started;
	const void *block;
	size_t block_size;
	bool pending;	/* handed over, being written */
	bool written;	/* ... and written: ret and at say how */
	int ret;
	uint64_t at;
};

/* O_TMPFILE where the file system has it, else a named file unlinked at once. */
static int open_unlinked(const char *dir)
{
	char *path;
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (asprintf(&path, "%s/lp-record.XXXXXX", dir) < 0)
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

struct spill *spill__new(const char *dir)
{
	struct spill *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->fd = open_unlinked(dir);
	if (s->fd < 0) {
		int e = errno;

		free(s);
		errno = e;
		return NULL;
	}
	return s;
}

static void stop_writer(struct spill *s)
{
	uint64_t at;

	if (!s->started)
		return;
	spill__collect(s, &at);
	worker__stop(&s->w);
	s->started = false;
}

void spill__free(struct spill *s)
{
	if (!s)
		return;
	stop_writer(s);
	if (s->map)
		munmap(s->map, s->size);
	close(s->fd);
	free(s);
}

int spill__append(struct spill *s, const void *data, size_t size, uint64_t *at)
{
	const char *p = data;
	size_t left = size;

	if (s->map)
		return -EINVAL;
	*at = s->size;
	while (left) {
		ssize_t n = pwrite(s->fd, p, left, (off_t)(s->size + (size - left)));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		left -= (size_t)n;
	}
	s->size += size;
	return 0;
}

static void *writer_main(void *arg)
{
	struct spill *s = arg;
	uint64_t at = 0;
	int ret;

	pthread_mutex_lock(&s->w.lock);
	for (;;) {
		while (!s->pending && !s->w.done)
			pthread_cond_wait(&s->w.changed, &s->w.lock);
		if (!s->pending)
			break;
		/* the block and the file's size are this thread's until it says written */
		pthread_mutex_unlock(&s->w.lock);
		ret = spill__append(s, s->block, s->block_size, &at);
		pthread_mutex_lock(&s->w.lock);
		s->ret = ret;
		s->at = at;
		s->pending = false;
		s->written = true;
		pthread_cond_broadcast(&s->w.changed);
	}
	pthread_mutex_unlock(&s->w.lock);
	return NULL;
}

int spill__put(struct spill *s, const void *data, size_t size)
{
	int err;

	if (s->map)
		return -EINVAL;
	if (!s->started) {
		if ((err = worker__start(&s->w, writer_main, s)) != 0)
			return -err;
		s->started = true;
	}
	pthread_mutex_lock(&s->w.lock);
	if (s->pending || s->written) {
		pthread_mutex_unlock(&s->w.lock);
		return -EBUSY;
	}
	s->block = data;
	s->block_size = size;
	s->pending = true;
	pthread_cond_broadcast(&s->w.changed);
	pthread_mutex_unlock(&s->w.lock);
	return 0;
}

int spill__collect(struct spill *s, uint64_t *at)
{
	int ret;

	if (!s->started)
		return 0;
	pthread_mutex_lock(&s->w.lock);
	while (s->pending)
		pthread_cond_wait(&s->w.changed, &s->w.lock);
	ret = s->written ? (s->ret < 0 ? s->ret : 1) : 0;
	*at = s->at;
	s->written = false;
	pthread_mutex_unlock(&s->w.lock);
	return ret;
}

uint64_t spill__size(const struct spill *s)
{
	return s->size;
}

const char *spill__map(struct spill *s)
{
	void *m;

	stop_writer(s);
	if (s->map || !s->size)
		return s->map;
	m = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	s->map = m;
	return s->map;
}

void spill__release(struct spill *s)
{
	/* the pages stay in the page cache, out of our resident set */
	if (s->map)
		madvise(s->map, s->size, MADV_DONTNEED);
}

bool spill__holds(const struct spill *s, const void *p)
{
	return s->map && (const char *)p >= s->map && (const char *)p < s->map + s->size;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

void spill__prefetch(struct spill *s, const void *from, const void *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)from & ~(page - 1);
	uintptr_t end = s->map ? (uintptr_t)(s->map + s->size) : 0, hi = (uintptr_t)to < end ? (uintptr_t)to : end;

	/* one call maps the pages a page fault each would (Linux 5.14; older ones fault as before) */
	if (s->map && hi > (uintptr_t)from)
		madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
}
