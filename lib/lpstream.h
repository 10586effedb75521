/*
 * The lp stream, version 1 (share/man/man5/lp-stream.5): splitting records
 * into fields, parsing samples, walking stack and location lists, writing.
 * Fields are spans into the caller's line: nothing is copied or unescaped
 * until asked for.
 */
#ifndef LP_LPSTREAM_H
#define LP_LPSTREAM_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "strbuf.h"

#define LP_STREAM_VERSION 1
#define LP_STREAM_MAGIC "#lp-stream"

struct lp_span {
	const char *s;
	size_t len;
};

struct lp_fields {
	struct lp_span *v;
	size_t n, cap;
};

/* Splits line at every TAB into f (reused between calls); -ENOMEM. */
int lp_fields__split(struct lp_fields *f, const char *line, size_t len);
void lp_fields__release(struct lp_fields *f);

enum lp_line_kind {
	LP_LINE_COMMENT,	/* starts with '#': comment or metadata */
	LP_LINE_RECORD,		/* first field is one capital letter */
};

/*
 * Classifies a line. -EINVAL with a message in err for a line that is neither
 * (empty, or a first field that is not one capital letter).
 */
int lp_line_kind(const char *line, size_t len, char *err, size_t errlen);

/*
 * "#lp-stream N": 1 and *version set if line is the version line, 0 if it
 * is another comment, -EINVAL (message in err) for a malformed version line.
 */
int lp_version_line(const char *line, size_t len, int *version, char *err, size_t errlen);

struct lp_sample {
	uint64_t time;
	int64_t pid, tid;
	struct lp_span comm;	/* escaped */
	struct lp_span event;	/* escaped */
	uint64_t weight;
	struct lp_span stack;	/* escaped list, root first, "" for no frames */
	struct lp_span locs;	/* escaped list, or "-" */
	const struct lp_span *attrs;	/* KEY=VALUE fields */
	size_t nattrs;
};

enum { LP_SAMPLE_FIELDS = 9 };

/*
 * Parses and validates an S record split into f. -EINVAL with a message in
 * err naming the field and the problem.
 */
int lp_sample__parse(const struct lp_fields *f, struct lp_sample *s, char *err, size_t errlen);

/* Walks a ';'-separated list: items are escaped spans. */
struct lp_list_iter {
	const char *p, *end;
	int done;
};

void lp_list_iter__init(struct lp_list_iter *it, struct lp_span list);
/* 1 and *item set, or 0 at the end. An empty list has no items. */
int lp_list_iter__next(struct lp_list_iter *it, struct lp_span *item);
size_t lp_list__count(struct lp_span list);

/* Appends the unescaped form of an escaped span; -EINVAL on a bad escape. */
int lp_span__unescape_to(struct strbuf *out, struct lp_span s);

/* Appends one item to an escaped list being built (adds the ';'). */
int lp_list__append(struct strbuf *list, const char *item, size_t len);

/* Writers: return 0 or -EIO (check ferror at the end as well). */
int lp_write_version(FILE *out);
/* "#lp.KEY\tVALUE\t...": values are raw and escaped here. */
int lp_write_meta(FILE *out, const char *key, const char *const *values, size_t n);
/* An S record from a parsed (escaped) sample. */
int lp_write_sample(FILE *out, const struct lp_sample *s);

#endif
