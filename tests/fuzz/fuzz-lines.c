/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-lines' reader on one input, each way (leaf lines, --inclusive, --nearest-source). */
#include "fuzz-common.h"
#include "profile/lineprofile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct line_profile_opts o = { .warn = ignore_warning };
	struct lp_error err;
	struct line_profile *p;
	int fd;

	if (size == 0)
		return 0;
	o.inclusive = data[0] & 1;
	o.nearest_source = !o.inclusive && (data[0] & 2);
	data++, size--;
	fd = input_fd(data, size);
	p = line_profile__new(&o);
	if (!p)
		abort();
	if (line_profile__read(p, fd, "fuzz", &err) == 0)
		line_profile__write(p, sink());
	line_profile__free(p);
	close(fd);
	return 0;
}
