#include <errno.h>
#include <stdlib.h>

#include "lpstream.h"
#include "tap.h"

static struct lp_fields f;
static char err[256];

static int parse(const char *line, struct lp_sample *s)
{
	err[0] = 0;
	if (lp_fields__split(&f, line, strlen(line)) < 0)
		abort();
	return lp_sample__parse(&f, s, err, sizeof(err));
}

static void good_sample(void)
{
	struct lp_sample s;
	struct lp_list_iter it;
	struct lp_span item;
	struct strbuf b = STRBUF_INIT;
	size_t n = 0;

	ok(parse("S\t100\t7\t8\tmy app\tcpu\t1000\tmain;a%3Bb;c\t/bin/x+0x1;/bin/x+0x2;-\tcpu=1",
		 &s) == 0, "a full sample parses");
	ok(s.time == 100 && s.pid == 7 && s.tid == 8 && s.weight == 1000, "numbers");
	is_mem(s.comm.s, s.comm.len, "my app", 6, "COMM keeps spaces");
	ok(s.nattrs == 1 && s.attrs[0].len == 5, "one attribute");
	lp_list_iter__init(&it, s.stack);
	while (lp_list_iter__next(&it, &item))
		if (++n == 2)
			lp_span__unescape_to(&b, item);
	ok(n == 3, "three frames");
	is_mem(b.s, b.len, "a;b", 3, "an escaped ';' stays inside its frame");
	strbuf__release(&b);
	ok(parse("S\t1\t1\t1\tx\toffcpu\t5\t\t-", &s) == 0 && lp_list__count(s.stack) == 0,
	   "an empty stack has no frames");
}

static void bad_sample(const char *line, const char *want, const char *name)
{
	struct lp_sample s;
	int ret = parse(line, &s);

	ok(ret == -EINVAL && strcmp(err, want) == 0, name);
	if (strcmp(err, want))
		printf("#   got '%s'\n#  want '%s'\n", err, want);
}

static void bad_samples(void)
{
	bad_sample("S\t1\t2\t3", "expected 9 fields in an S record, got 4", "too few fields");
	bad_sample("S\tx\t1\t1\tc\tcpu\t1\ta\t-", "TIME 'x' is not a non-negative integer",
		   "TIME not a number");
	bad_sample("S\t1\t-1\t1\tc\tcpu\t1\ta\t-", "PID '-1' is not a non-negative integer",
		   "negative PID");
	bad_sample("S\t1\t1\t99999999999\tc\tcpu\t1\ta\t-", "TID 99999999999 is out of range",
		   "TID out of range");
	bad_sample("S\t1\t1\t1\tc\t\t1\ta\t-", "EVENT is empty", "empty EVENT");
	bad_sample("S\t1\t1\t1\tc\tcpu\t1.5\ta\t-", "WEIGHT '1.5' is not a non-negative integer",
		   "fractional WEIGHT");
	bad_sample("S\t1\t1\t1\tc\tcpu\t1\ta;;b\t-", "STACK: frame 2 has an empty name",
		   "empty frame");
	bad_sample("S\t1\t1\t1\tc\tcpu\t1\ta;b\tx+0x1", "LOCS has 1 entries but STACK has 2 frames",
		   "LOCS out of step");
	bad_sample("S\t1\t1\t1\tc\tcpu\t1\ta%zz\t-",
		   "STACK: '%' at byte 2 is not followed by two hex digits", "bad escape");
	bad_sample("S\t1\t1\t1\tc\tcpu\t1\ta\t-\tnoequals",
		   "attribute 'noequals' is not KEY=VALUE", "attribute without '='");
}

static void line_kinds(void)
{
	int v = 0;

	ok(lp_line_kind("#lp.host\tx", 10, err, sizeof(err)) == LP_LINE_COMMENT, "metadata");
	ok(lp_line_kind("P\t1", 3, err, sizeof(err)) == LP_LINE_RECORD, "a record");
	ok(lp_line_kind("", 0, err, sizeof(err)) == -EINVAL && !strcmp(err, "empty line"), "empty");
	ok(lp_line_kind("SS\t1", 4, err, sizeof(err)) == -EINVAL &&
	   !strcmp(err, "record type must be one capital letter, got 'SS'"), "two-letter type");
	ok(lp_line_kind("s\t1", 3, err, sizeof(err)) == -EINVAL, "lower-case type");
	ok(lp_version_line("#lp-stream 1", 12, &v, err, sizeof(err)) == 1 && v == 1, "version 1");
	ok(lp_version_line("#lp-stream x", 12, &v, err, sizeof(err)) == -EINVAL, "bad version");
	ok(lp_version_line("#lp.x", 5, &v, err, sizeof(err)) == 0, "not a version line");
}

static void deep_stack(void)
{
	size_t frames = 150000;
	struct strbuf line = STRBUF_INIT, locs = STRBUF_INIT;
	struct lp_sample s;
	char name[32];

	strbuf__add(&line, "S\t1\t2\t3\tdeep\tcpu\t10\t", 20);
	for (size_t i = 0; i < frames; i++) {
		int n = snprintf(name, sizeof(name), "f%zu", i);

		lp_list__append(&locs, "/bin/deep+0x10", 14);
		if (i)
			strbuf__addc(&line, ';');
		strbuf__add(&line, name, (size_t)n);
	}
	strbuf__addc(&line, '\t');
	strbuf__add(&line, locs.s, locs.len);
	strbuf__addc(&line, 0);
	ok(parse(line.s, &s) == 0 && lp_list__count(s.stack) == frames,
	   "a stack of 150000 frames parses");
	strbuf__release(&line);
	strbuf__release(&locs);
}

static void write_round_trip(void)
{
	const char *in = "S\t5\t6\t7\tc%09x\tcpu\t9\ta%3B;b\t-;-\tdur=3";
	const char *values[] = { "two\twords", "100%" };
	struct lp_sample s;
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	parse(in, &s);
	lp_write_version(out);
	lp_write_meta(out, "test", values, 2);
	lp_write_sample(out, &s);
	fclose(out);
	is_str(buf, "#lp-stream 1\n#lp.test\ttwo%09words\t100%25\n"
		    "S\t5\t6\t7\tc%09x\tcpu\t9\ta%3B;b\t-;-\tdur=3\n",
	       "version, metadata and a sample written back as read");
	free(buf);
}

static void list_building(void)
{
	struct strbuf b = STRBUF_INIT;

	lp_list__append(&b, "a;b", 3);
	lp_list__append(&b, "c%", 2);
	is_mem(b.s, b.len, "a%3Bb;c%25", 10, "items escaped and joined by ';'");
	strbuf__release(&b);
}

int main(void)
{
	good_sample();
	bad_samples();
	line_kinds();
	deep_stack();
	write_round_trip();
	list_building();
	lp_fields__release(&f);
	return tap_done();
}
