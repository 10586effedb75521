/* Telling lp streams, perf script text and folded stacks apart by their first lines. */
#include "lpstream.h"

#include <errno.h>
#include <string.h>

#include "lines.h"
#include "perfscript.h"

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

enum lp_format lp_format__detect(struct lines *r)
{
	const char *line, *next;
	size_t len, nextlen = 0, i;
	int more;
	size_t magic = sizeof(LP_STREAM_MAGIC) - 1;

	for (i = 0; i < 256; i++) {
		if (lines__peek(r, i, &line, &len) <= 0)
			return LP_FORMAT_FOLDED;	/* nothing but comments: no stacks either way */
		if (len >= magic && memcmp(line, LP_STREAM_MAGIC, magic) == 0)
			return LP_FORMAT_LP;
		if (len > 0 && line[0] != '#')
			break;
	}
	/* perf's header of comments alone (a recording without samples) */
	if (i == 256)
		return LP_FORMAT_PERF;
	if (len >= 2 && line[0] >= 'A' && line[0] <= 'Z' && line[1] == '\t')
		return LP_FORMAT_LP;
	/*
	 * perf script text by its real shape: a sample header, followed by its
	 * frames (indented) or a blank line. Anything else is read as folded
	 * stacks, whose parser names the first line that is not one.
	 */
	if (!perfscript__is_header(line, len))
		return LP_FORMAT_FOLDED;
	more = lines__peek(r, i + 1, &next, &nextlen);
	return more == 0 || (more > 0 && (nextlen == 0 || next[0] == ' ' || next[0] == '\t')) ? LP_FORMAT_PERF :
												  LP_FORMAT_FOLDED;
}
