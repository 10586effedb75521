/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "record/tracefs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "base/numparse.h"

static bool has_events(const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *tracefs__dir(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (has_events(dirs[i]))
			return dirs[i];
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) == 0 && has_events(dirs[0]))
		return dirs[0];
	if (!errno)
		errno = ENOENT;
	return NULL;
}

/* The whole of a small file; NULL with errno. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *b = realloc(buf, cap + 65536);

			if (!b) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = b;
			cap += 65536;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static bool plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

int tracefs__event_id(const char *dir, const char *system, const char *name)
{
	char path[512], *text, *end;
	size_t len;
	uint64_t id;

	if (!plain_name(system) || !plain_name(name))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, system, name);
	if (!(text = slurp(path, &len)))
		return -errno;
	end = text + strcspn(text, "\n");
	*end = 0;
	if (numparse__u64(text, (size_t)(end - text), &id) < 0 || id > 0x7fffffff) {
		free(text);
		return -EPROTO;
	}
	free(text);
	return (int)id;
}

char *tracefs__event_format(const char *dir, const char *system, const char *name, size_t *len)
{
	char path[512];

	if (!plain_name(system) || !plain_name(name)) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, system, name);
	return slurp(path, len);
}
