/* lp-lines' reader on one input, both ways (leaf lines, --inclusive). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lineprofile.h"

static void ignore_warning(void *ctx, const struct lp_error *w)
{
	(void)ctx, (void)w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	struct line_profile_opts o = { .warn = ignore_warning };
	struct lp_error err;
	struct line_profile *p;
	int fd;

	if (size == 0)
		return 0;
	o.inclusive = data[0] & 1;
	data++, size--;
	fd = memfd_create("fuzz", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (!sink)
		sink = fopen("/dev/null", "w");
	p = line_profile__new(&o);
	if (!p)
		abort();
	if (line_profile__read(p, fd, "fuzz", &err) == 0)
		line_profile__write(p, sink);
	line_profile__free(p);
	close(fd);
	return 0;
}
