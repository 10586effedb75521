/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A temporary file written once and read through a mapping. See spill.h. */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct spill {
	int fd;
	uint64_t size;
	char *map;
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

void spill__free(struct spill *s)
{
	if (!s)
		return;
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

uint64_t spill__size(const struct spill *s)
{
	return s->size;
}

const char *spill__map(struct spill *s)
{
	void *m;

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
