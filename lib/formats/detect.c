/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "formats/detect.h"

#include <errno.h>
#include <string.h>

#include "formats/folded.h"
#include "base/lines.h"
#include "stream/lpstream.h"
#include "formats/perfscript.h"

/*
 * How far to look for a line that settles the format: past a perf header
 * (--header) and thousands of side-band lines, not through a whole big file
 * of something else.
 */
enum { DETECT_LINES = 1 << 16, DETECT_BYTES = 16 << 20 };

static const char *const format_names[] = {
	[LP_FORMAT_AUTO] = "auto",
	[LP_FORMAT_LP] = "lp",
	[LP_FORMAT_PERF] = "perf",
	[LP_FORMAT_FOLDED] = "folded",
};

int lp_format__parse(const char *name, enum lp_format *f)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (strcmp(name, format_names[i]) == 0) {
			*f = (enum lp_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *lp_format__name(enum lp_format f)
{
	return f <= LP_FORMAT_FOLDED ? format_names[f] : "?";
}

/* What a line can say about the format. */
struct shape {
	enum perfscript_shape perf;
	bool folded;	/* parses as "STACK COUNT" */
	bool indented;
};

static struct shape shape_of(const char *line, size_t len)
{
	struct shape s = { .perf = perfscript__shape(line, len) };
	struct folded_line f;

	s.indented = len > 0 && (line[0] == ' ' || line[0] == '\t');
	s.folded = len > 0 && !s.indented && folded__parse(line, len, &f, NULL) == 0;
	return s;
}

/* Whether the line after prev (next) settles the format, and as what. */
static bool settles(const struct shape *prev, const struct shape *next, bool blank, enum lp_format *f)
{
	if (prev->perf == PERFSCRIPT_HEADER || prev->perf == PERFSCRIPT_EVENT_HEADER) {
		if (next->perf == PERFSCRIPT_FRAME || (blank && prev->perf == PERFSCRIPT_EVENT_HEADER)) {
			*f = LP_FORMAT_PERF;
			return true;
		}
	}
	if (prev->folded && !next->indented) {
		*f = LP_FORMAT_FOLDED;
		return true;
	}
	return false;
}

static bool is_lp_record(const char *line, size_t len)
{
	return len >= 2 && line[0] >= 'A' && line[0] <= 'Z' && line[1] == '\t';
}

int lp_format__detect(struct lines *r, enum lp_format *f, struct lp_error *err)
{
	static const struct shape end = { .perf = PERFSCRIPT_OTHER };
	const size_t magic = sizeof(LP_STREAM_MAGIC) - 1;
	struct shape prev = end, cur;
	const char *line;
	size_t len, at = 0;
	long n = 0, first = 0;
	int ret = 0;

	while (n < DETECT_LINES && at < DETECT_BYTES && (ret = lines__peek_next(r, &at, &line, &len)) > 0) {
		n++;
		if (len > 0 && line[0] == '#') {
			if (!first && len >= magic && memcmp(line, LP_STREAM_MAGIC, magic) == 0)
				goto found_lp;
			continue;
		}
		if (!first && len > 0) {
			first = n;
			if (is_lp_record(line, len))
				goto found_lp;
		}
		cur = shape_of(line, len);
		if (settles(&prev, &cur, len == 0, f))
			return 0;
		if (cur.perf == PERFSCRIPT_SIDEBAND) {
			*f = LP_FORMAT_PERF;
			return 0;
		}
		prev = cur;
	}
	if (ret < 0) {
		if (err)
			err->line = 0;
		return lp_error__set(err, ret, "read error: %s", strerror(-ret));
	}
	if (settles(&prev, &end, ret == 0, f))
		return 0;
	if (!first)
		goto found_lp;	/* nothing to read: the lp reader's verdict on that is every program's */
	if (err)
		err->line = lines__lineno(r) + first;
	return lp_error__set(err, -EINVAL, "not an lp stream, folded stacks or perf script text with call stacks");
found_lp:
	*f = LP_FORMAT_LP;
	return 0;
}
