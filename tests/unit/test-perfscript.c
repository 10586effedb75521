/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf script text line by line: shapes for telling formats apart, and samples folded as stackcollapse-perf.pl. */
#include <errno.h>
#include <string.h>

#include "formats/perfscript.h"
#include "tap.h"

static void shapes(void)
{
	static const struct {
		const char *line;
		enum perfscript_shape shape;
		const char *name;
	} cases[] = {
		{ "app 10 [000] 1.000: 5 cycles:", PERFSCRIPT_EVENT_HEADER, "default fields: an event header" },
		{ "ls 29419/29419  2272.847733:     333444 cpu-clock: ", PERFSCRIPT_EVENT_HEADER, "PID/TID and a period" },
		{ "ls 29419/29419  2272.847733: ", PERFSCRIPT_HEADER, "-F without event: a header" },
		{ "ls 29419 ", PERFSCRIPT_HEADER, "one id and a space" },
		{ "ls 29419", PERFSCRIPT_OTHER, "one id at the end: no header (perf ends the ids with a space)" },
		{ "perf-exec 0 0.000000: PERF_RECORD_COMM: perf-exec:1/1", PERFSCRIPT_SIDEBAND, "a side-band line" },
		{ "\t 400100 main+0x10 (/app)", PERFSCRIPT_FRAME, "a frame" },
		{ "\t 0 [unknown] ([unknown])", PERFSCRIPT_FRAME, "an unknown frame" },
		{ "\t 400100 main", PERFSCRIPT_OTHER, "indented, without (DSO): no frame" },
		{ "a;b 1", PERFSCRIPT_OTHER, "a folded line" },
		{ "", PERFSCRIPT_OTHER, "a blank line" },
		{ "# comment 1 2 cycles:", PERFSCRIPT_OTHER, "a comment" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(perfscript__shape(cases[i].line, strlen(cases[i].line)) == cases[i].shape, cases[i].name);
}

/* Feeds lines; the key of the sample the last of them completed, or "" if none did. */
static const char *feed(struct perfscript *p, const char *const *lines, size_t n, uint64_t *period)
{
	const char *key = "";
	static char buf[256];

	for (size_t i = 0; i < n; i++) {
		int ret = perfscript__line(p, lines[i], strlen(lines[i]));

		if (ret == 1) {
			const struct perfscript_sample *s = perfscript__sample(p);

			snprintf(buf, sizeof(buf), "%.*s", (int)s->keylen, s->key);
			*period = s->period;
			key = buf;
		}
	}
	return key;
}

static void samples(void)
{
	struct perfscript_opts o = { .naming = NAMING_COMM };
	struct perfscript *p = perfscript__new(&o);
	uint64_t period = 0;
	const char *const one[] = { "app 10 [000] 1.000: 5 cycles:", "\t 400100 leaf+0x10 (/app)",
				    "\t 400000 main+0x4 (/app)", "" };
	const char *const noevent[] = { "ls 7/7 ", "\t 1 f (/x)", "" };
	const char *const side[] = { "ls 7 1.0: PERF_RECORD_EXIT(7:7):(1:1)" };

	is_str(feed(p, one, 4, &period), "app;main;leaf", "frames leaf first become root first");
	ok(period == 5, "the period is the weight");
	is_str(feed(p, noevent, 3, &period), "ls;f", "a header without an event");
	ok(period == 1, "... weighs 1, as stackcollapse-perf.pl's");
	feed(p, side, 1, &period);
	ok(!perfscript__pending(p), "a last PERF_RECORD line is no cut sample");
	ok(perfscript__line(p, "\tnot a frame", 12) == -EINVAL && strstr(perfscript__error(p), "unrecognized line"),
	   "an indented line that is no frame is an error");
	perfscript__free(p);
	perfscript__free(NULL);
	ok(1, "perfscript__free(NULL) is a no-op");
}

int main(void)
{
	shapes();
	samples();
	return tap_done();
}
