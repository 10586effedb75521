/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-svg --roofline's and lp-roofline points' readers (R, Q, S and #lp.event lines) on one input. */
#include "fuzz-common.h"
#include "roofline/points.h"
#include "picture/roofline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct roofline_opts ro = { .title = "fuzz", .width = 1200, .height = 720, .fonttype = "Verdana", .fontsize = 12,
				    .js = "", .css = "", .warn = ignore_warning };
	struct points_opts po = { .warn = ignore_warning };
	struct lp_error err;
	struct roofline *r;
	struct points *p;
	int fd;

	if (size == 0)
		return 0;
	po.depth = data[0] & 3;
	data++, size--;
	fd = input_fd(data, size);
	r = roofline__new(&ro);
	if (!r)
		abort();
	if (roofline__read(r, fd, "fuzz", &err) == 0)
		roofline__write(r, sink(), &err);
	roofline__free(r);
	close(fd);
	fd = input_fd(data, size);
	p = points__new(&po);
	if (!p)
		abort();
	if (points__read(p, fd, "fuzz", &err) == 0)
		points__write(p, sink(), &err);
	points__free(p);
	close(fd);
	return 0;
}
