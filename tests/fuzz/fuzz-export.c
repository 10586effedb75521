/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-export's reader and every format on one input, lp-svg's timeline too:
 * the first byte picks which.
 */
#include "export/export.h"
#include "fuzz-common.h"
#include "picture/timeline.h"

static const char js[] = "/* script */", css[] = "/* style */";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct export_opts o = { 0 };
	struct timeline_opts to = { .title = "t", .width = 400, .rowheight = 16, .fonttype = "f", .fontsize = 12,
				    .js = js, .css = css, .jslen = sizeof(js) - 1, .csslen = sizeof(css) - 1 };
	struct lp_error err;
	struct exporter *e;
	int fd;

	if (size == 0)
		return 0;
	o.format = data[0] % 5;
	o.format_opts = &to;
	data++, size--;
	fd = input_fd(data, size);
	/* 4: the timeline (its spawning stacks' lines are not looked up: no files are opened) */
	e = o.format == 4 ? exporter__new_with(&o, &timeline__ops, sink()) : exporter__new(&o, sink());
	if (!e)
		abort();
	/* read twice: state kept from one input to the next is reached too */
	if (exporter__read(e, fd, "fuzz", &err) == 0 && lseek(fd, 0, SEEK_SET) == 0 &&
	    exporter__read(e, fd, "fuzz", &err) == 0)
		exporter__finish(e, &err);
	exporter__free(e);
	close(fd);
	return 0;
}
