/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/safeout.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* stdout's buffer: a failure found within the first this many bytes leaves nothing written */
enum { SAFEOUT_HOLD = 1 << 20 };

struct safeout {
	FILE *f;
	char *path;		/* where the file goes, NULL for stdout */
	char *tmp;		/* the temporary file beside it */
	uint64_t written;	/* bytes that reached stdout */
	char *buf;
};

static ssize_t count_write(void *cookie, const char *data, size_t len)
{
	struct safeout *o = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)n;
		o->written += (uint64_t)n;
	}
	return (ssize_t)done;
}

static struct safeout *open_stdout(struct safeout *o)
{
	static const cookie_io_functions_t io = { .write = count_write };

	if (!(o->buf = malloc(SAFEOUT_HOLD)) || !(o->f = fopencookie(o, "w", io)))
		return NULL;
	setvbuf(o->f, o->buf, _IOFBF, SAFEOUT_HOLD);
	return o;
}

/* The file to replace: a symlink's target, so that the link is kept. */
static char *final_path(const char *path)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		return real;
	return strdup(path);
}

static struct safeout *open_file(struct safeout *o, const char *path)
{
	struct stat st;
	char *dir_copy;
	const char *dir;
	int fd;

	if (!(o->path = final_path(path)))
		return NULL;
	/* a device or a pipe is written as it is: there is nothing to put in place */
	if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(o->path);
		o->path = NULL;
		return (o->f = fopen(path, "we")) ? o : NULL;
	}
	if (!(dir_copy = strdup(o->path)))
		return NULL;
	dir = dirname(dir_copy);
	o->tmp = malloc(strlen(dir) + sizeof("/.lp-XXXXXX"));
	if (o->tmp)
		sprintf(o->tmp, "%s/.lp-XXXXXX", dir);
	free(dir_copy);
	if (!o->tmp || (fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return NULL;
	}
	/* as a file created by open(2) would be, under the umask */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	if (!(o->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(o->tmp);
		return NULL;
	}
	return o;
}

struct safeout *safeout__open(const char *path)
{
	struct safeout *o = calloc(1, sizeof(*o));
	int err;

	if (o && (path ? open_file(o, path) : open_stdout(o)))
		return o;
	err = errno;
	if (o) {
		free(o->path);
		free(o->tmp);
		free(o->buf);
		free(o);
	}
	errno = err;
	return NULL;
}

FILE *safeout__file(struct safeout *o)
{
	return o->f;
}

static void release(struct safeout *o)
{
	free(o->path);
	free(o->tmp);
	free(o->buf);
	free(o);
}

int safeout__commit(struct safeout *o)
{
	int ret = 0;

	if (fflush(o->f) != 0 || ferror(o->f))
		ret = -(errno ? errno : EIO);
	if (fclose(o->f) != 0 && ret == 0)
		ret = -(errno ? errno : EIO);
	if (o->tmp) {
		if (ret == 0 && rename(o->tmp, o->path) < 0)
			ret = -errno;
		if (ret < 0)
			unlink(o->tmp);
	}
	release(o);
	return ret;
}

uint64_t safeout__abort(struct safeout *o)
{
	uint64_t written;

	if (!o)
		return 0;
	__fpurge(o->f);
	fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	written = o->written;
	release(o);
	return written;
}
