/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "stream/lpstream.h"
#include "base/strbuf.h"
#include "tap.h"

static struct lp_fields f;
static struct lp_error e;
static const char *err = e.msg;

static int parse(const char *line, struct lp_sample *s)
{
	lp_error__clear(&e);
	if (lp_fields__split(&f, line, strlen(line)) < 0)
		abort();
	return lp_sample__parse(&f, s, &e);
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
	while (lp_list_iter__next(&it, &item, NULL))
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

	ok(lp_stream__line_kind("#lp.host\tx", 10, &e) == LP_LINE_COMMENT, "metadata");
	ok(lp_stream__line_kind("P\t1", 3, &e) == LP_LINE_RECORD, "a record");
	ok(lp_stream__line_kind("", 0, &e) == -EINVAL && !strcmp(err, "empty line"), "empty");
	ok(lp_stream__line_kind("SS\t1", 4, &e) == -EINVAL &&
	   !strcmp(err, "record type must be one capital letter, got 'SS'"), "two-letter type");
	ok(lp_stream__line_kind("s\t1", 3, &e) == -EINVAL, "lower-case type");
	ok(lp_stream__version_line("#lp-stream 1", 12, &v, &e) == 1 && v == 1, "version 1");
	ok(lp_stream__version_line("#lp-stream x", 12, &v, &e) == -EINVAL, "bad version");
	ok(lp_stream__version_line("#lp.x", 5, &v, &e) == 0, "not a version line");
	ok(lp_stream__version_line("#lp-stream 99", 13, &v, &e) == -EINVAL &&
	   !strcmp(err, "lp stream version 99 is newer than this program reads (1)"), "a newer version");
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
	struct lp_writer w;
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);

	parse(in, &s);
	lp_writer__init(&w, out);
	lp_writer__version(&w);
	lp_writer__meta(&w, "test", values, 2);
	lp_writer__copy_sample(&w, &s);
	lp_writer__sample(&w, 1, 2, 3, "my\tcomm", "offcpu", 4, LP_SPAN("main;f"), LP_SPAN(""));
	lp_writer__attr_u64(&w, "dur", 18446744073709551615ULL);
	lp_writer__attr_str(&w, "state", "S");
	lp_writer__end(&w);
	lp_writer__proc(&w, 7, 8, 9, LP_PROC_SPAWN, "kid");
	lp_writer__spawn_parent(&w, 8, 8, LP_SPAN("main;fork"), LP_SPAN("/a+0x1;/b+0x2"));
	lp_writer__end(&w);
	lp_writer__proc(&w, 7, 8, 8, LP_PROC_EXEC, "ls");
	lp_writer__exec_path(&w, "/bin/l s");
	lp_writer__end(&w);
	lp_writer__proc(&w, 9, 8, 8, LP_PROC_EXIT, "ls");
	lp_writer__end(&w);
	lp_writer__release(&w);
	fclose(out);
	is_str(buf, "#lp-stream 1\n#lp.test\ttwo%09words\t100%25\n"
		    "S\t5\t6\t7\tc%09x\tcpu\t9\ta%3B;b\t-;-\tdur=3\n"
		    "S\t1\t2\t3\tmy%09comm\toffcpu\t4\tmain;f\t-\tdur=18446744073709551615\tstate=S\n"
		    "P\t7\t8\t9\tspawn\tkid\t8\t8\tmain;fork\t/a+0x1;/b+0x2\n"
		    "P\t7\t8\t8\texec\tls\t/bin/l s\n"
		    "P\t9\t8\t8\texit\tls\n",
	       "version, metadata, samples and P records written");
	free(buf);
}

/* Numbers as the writer prints them (two digits at a time) against printf, edges and all. */
static void test_writer_numbers(void)
{
	struct lp_writer w;
	struct strbuf want = STRBUF_INIT;
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	uint64_t v[400];
	size_t n = 0;

	for (uint64_t p = 1; n < 60; p *= 10) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
		if (p > UINT64_MAX / 10)
			break;
	}
	v[n++] = UINT64_MAX;
	for (uint64_t x = 0; x < 300; x++)
		v[n++] = x * 37 + x / 7;
	lp_writer__init(&w, out);
	for (size_t i = 0; i < n; i++) {
		lp_writer__sample(&w, v[i], (int64_t)(v[i] % 1000) - 500, 1, "c", "cpu", v[n - 1 - i], LP_SPAN("f"),
				  LP_SPAN("-"));
		lp_writer__end(&w);
		strbuf__addf(&want, "S\t%" PRIu64 "\t%" PRId64 "\t1\tc\tcpu\t%" PRIu64 "\tf\t-\n", v[i],
			     (int64_t)(v[i] % 1000) - 500, v[n - 1 - i]);
	}
	lp_writer__release(&w);
	fclose(out);
	ok(size == want.len && memcmp(buf, want.s, size) == 0, "numbers printed as printf prints them");
	free(buf);
	strbuf__release(&want);
}

/*
 * Records written by the background thread into a file: after what the FILE
 * held, all of them, in order; with no file descriptor, refused.
 */
static void writer_in_background(void)
{
	char path[] = "/tmp/lp-test-bg.XXXXXX", *got = NULL;
	struct strbuf want = STRBUF_INIT;
	struct lp_writer w;
	size_t size = 0;
	int fd = mkstemp(path), ret = 0;
	FILE *out = fd >= 0 ? fdopen(fd, "w+") : NULL, *mem;

	ok(out != NULL, "a file to write to");
	if (!out)
		return;
	unlink(path);
	fputs("#lp-stream 1\n", out);
	strbuf__add(&want, "#lp-stream 1\n", 13);
	lp_writer__init(&w, out);
	ok(lp_writer__background(&w) == 0, "a thread writes the batches");
	for (unsigned i = 0; i < 20000 && ret == 0; i++) {
		lp_writer__sample(&w, i, 1, 2, "c", "cpu", 1, LP_SPAN("main;f"), LP_SPAN("-;-"));
		lp_writer__attr_u64(&w, "cpu", i % 2);
		ret = lp_writer__end(&w);
		strbuf__addf(&want, "S\t%u\t1\t2\tc\tcpu\t1\tmain;f\t-;-\tcpu=%u\n", i, i % 2);
	}
	ret = ret < 0 ? ret : lp_writer__foreground(&w);
	ok(ret == 0, "every record handed over and written");
	lp_writer__release(&w);
	rewind(out);
	got = malloc(want.len + 1);
	size = fread(got, 1, want.len + 1, out);
	is_mem(got, size, want.s, want.len, "the file holds what the FILE held, then every record in order");
	fclose(out);
	free(got);
	strbuf__release(&want);

	got = NULL;
	mem = open_memstream(&got, &size);
	lp_writer__init(&w, mem);
	ok(lp_writer__background(&w) == -EBADF, "a FILE without a file descriptor keeps its batches");
	lp_writer__release(&w);
	fclose(mem);
	free(got);
}

static int parse_proc(const char *line, struct lp_proc *p)
{
	lp_error__clear(&e);
	if (lp_fields__split(&f, line, strlen(line)) < 0)
		abort();
	return lp_proc__parse(&f, p, &e);
}

static void proc_records(void)
{
	struct lp_proc p;

	ok(parse_proc("P\t7\t8\t9\tspawn\tkid\t8\t8\tmain;fork\t/a+0x1;/b+0x2", &p) == 0 &&
	   p.what == LP_PROC_SPAWN && p.ppid == 8 && p.ptid == 8 && lp_span__eq(p.stack, "main;fork", 9) &&
	   p.stack_field == 8, "a spawn record");
	ok(parse_proc("P\t7\t8\t8\texec\tls\t/bin/ls", &p) == 0 && p.what == LP_PROC_EXEC &&
	   lp_span__eq(p.path, "/bin/ls", 7), "an exec record");
	ok(parse_proc("P\t7\t8\t8\texit\tls", &p) == 0 && p.what == LP_PROC_EXIT, "an exit record");
	ok(parse_proc("P\t7\t8\t8\tborn\tls\tx", &p) == 0 && p.what == LP_PROC_OTHER &&
	   lp_span__eq(p.what_name, "born", 4), "a kind this version does not know passes");
	ok(parse_proc("P\t7\t8\t8\tspawn\tkid\t8", &p) == -EINVAL &&
	   !strcmp(err, "expected 10 fields in a spawn record, got 7"), "a short spawn record");
	ok(parse_proc("P\t7\t8\t8\tspawn\tkid\t8\t8\ta;b\t/x+0x1", &p) == -EINVAL &&
	   !strcmp(err, "LOCS has 1 entries but STACK has 2 frames"), "a spawn stack out of step");
	ok(parse_proc("P\tx\t8\t8\texit\tls", &p) == -EINVAL, "a bad TIME");
}

static void metadata(void)
{
	const char *line = "#lp.event\tpf\tpage-faults\t1\tPage faults\tfaults";
	struct lp_meta m;
	struct lp_event_def d;

	ok(lp_meta__parse(&f, line, strlen(line), &m) == 1 && lp_span__eq(m.key, "event", 5) && m.nvalues == 5,
	   "a metadata line");
	ok(lp_event_def__parse(&m, &d, &e) == 1 && lp_span__eq(d.key, "pf", 2) &&
	   lp_span__eq(d.unit, "faults", 6) && lp_span__eq(d.title, "Page faults", 11), "an event definition");
	ok(lp_meta__parse(&f, "# plain", 7, &m) == 0, "a plain comment is no metadata");
	line = "#lp.event\tpf\tpage-faults";
	lp_meta__parse(&f, line, strlen(line), &m);
	ok(lp_event_def__parse(&m, &d, &e) == -EINVAL, "a short event definition");
}

/* #lp.sampling written and read by the stream module alone, every mode. */
static void sampling_lines(void)
{
	static const struct {
		enum lp_sampling_mode mode;
		uint64_t value;
		const char *line;
	} modes[] = {
		{ LP_SAMPLING_FREQ, 999, "#lp.sampling\tcpu\ttask-clock\tfreq=999\n" },
		{ LP_SAMPLING_PERIOD, 1000003, "#lp.sampling\tcpu\ttask-clock\tperiod=1000003\n" },
		{ LP_SAMPLING_EVERY, 0, "#lp.sampling\tcpu\ttask-clock\tevery-interval\n" },
	};
	struct lp_sampling sm;
	struct lp_meta m;
	const char *line;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct lp_writer w;
		char *buf = NULL;
		size_t size = 0;
		FILE *out = open_memstream(&buf, &size);

		lp_writer__init(&w, out);
		lp_writer__sampling(&w, "cpu", "task-clock", modes[i].mode, modes[i].value);
		lp_writer__release(&w);
		fclose(out);
		is_str(buf, modes[i].line, "#lp.sampling written");
		ok(lp_meta__parse(&f, buf, strlen(buf) - 1, &m) == 1 && lp_sampling__parse(&m, &sm, &e) == 1 &&
		   sm.mode == modes[i].mode && sm.value == modes[i].value && lp_span__eq(sm.event, "cpu", 3) &&
		   lp_span__eq(sm.source, "task-clock", 10), "#lp.sampling read back");
		free(buf);
	}
	line = "#lp.sampling\tcpu\ttask-clock\tfreq=x";
	lp_meta__parse(&f, line, strlen(line), &m);
	ok(lp_sampling__parse(&m, &sm, &e) == 1 && sm.mode == LP_SAMPLING_OTHER, "a mode not known is no number");
	line = "#lp.sampling\tcpu";
	lp_meta__parse(&f, line, strlen(line), &m);
	ok(lp_sampling__parse(&m, &sm, &e) == -EINVAL, "a short sampling line");
	line = "#lp.event\tpf\tpage-faults\t1\tPage faults\tfaults";
	lp_meta__parse(&f, line, strlen(line), &m);
	ok(lp_sampling__parse(&m, &sm, &e) == 0, "other metadata is no sampling line");
}

/* Items of every length across the 16-byte blocks the walker reads. */
static void list_walking(void)
{
	struct strbuf list = STRBUF_INIT, got = STRBUF_INIT;
	struct lp_list_iter it;
	struct lp_span item;
	bool escaped, all = true;
	size_t n = 0;

	for (size_t len = 0; len < 40; len++) {
		if (len)
			strbuf__addc(&list, ';');
		for (size_t i = 0; i < len; i++)
			strbuf__addc(&list, (char)('a' + i % 26));
		if (len % 7 == 3)
			strbuf__add(&list, "%3B", 3);
	}
	lp_list_iter__init(&it, (struct lp_span){ list.s, list.len });
	while (lp_list_iter__next(&it, &item, &escaped)) {
		size_t want = n + (n % 7 == 3 ? 3 : 0);

		all = all && item.len == want && escaped == (n % 7 == 3);
		n++;
	}
	ok(n == 40 && all, "40 items of lengths 0..39: each found, escapes noted");
	ok(lp_list__count(LP_SPAN(";")) == 2 && lp_list__count(LP_SPAN("")) == 0 &&
	   lp_list__count(LP_SPAN("a")) == 1, "counts: one separator, empty, one item");
	strbuf__release(&list);
	strbuf__release(&got);
}

static void locations(void)
{
	struct lp_loc l;

	lp_loc__parse(LP_SPAN("/usr/lib/libc.so.6+0x1f3a"), &l);
	ok(lp_span__eq(l.dso, "/usr/lib/libc.so.6", 18) && l.has_offset && l.offset == 0x1f3a, "DSO+0xOFFSET");
	lp_loc__parse(LP_SPAN("-"), &l);
	ok(l.dso.len == 0 && !l.has_offset, "unknown");
	lp_loc__parse(LP_SPAN("/tmp/a+b"), &l);
	ok(lp_span__eq(l.dso, "/tmp/a+b", 8) && !l.has_offset, "no offset: all DSO");
	{
		char buf[64];
		size_t n = lp_loc__format(buf, sizeof(buf), "/usr/lib/libc.so.6", 0xffffffff81000000ull);

		lp_loc__parse((struct lp_span){ buf, n }, &l);
		ok(n == strlen(buf) && lp_span__eq(l.dso, "/usr/lib/libc.so.6", 18) && l.offset == 0xffffffff81000000ull,
		   "a location formatted is parsed back");
	}
	ok(lp_loc__is_kernel(LP_SPAN("[kernel.kallsyms]+0xffffffff81000000")), "kernel");
	ok(lp_loc__is_kernel(LP_SPAN("[ext4]+0x10")), "a module");
	ok(!lp_loc__is_kernel(LP_SPAN("[vdso]+0x10")) && !lp_loc__is_kernel(LP_SPAN("/bin/x+0x1")),
	   "vdso and files are user code");
}

static void list_building(void)
{
	struct strbuf b = STRBUF_INIT;

	lp_list__append(&b, "a;b", 3);
	lp_list__append(&b, "c%", 2);
	is_mem(b.s, b.len, "a%3Bb;c%25", 10, "items escaped and joined by ';'");
	strbuf__release(&b);
}


/* lp_list__check's answer the slow way: item by item, as lp_list_iter__next walks them. */
static int check_slowly(struct lp_span list, bool empty_is_bad, size_t *items)
{
	struct lp_list_iter it;
	struct lp_span item;
	bool escaped;

	*items = 0;
	lp_list_iter__init(&it, list);
	while (lp_list_iter__next(&it, &item, &escaped)) {
		if (item.len == 0 && empty_is_bad)
			return -EINVAL;
		for (size_t i = 0; i < item.len; i++)
			if (item.s[i] == '%' && (i + 2 >= item.len || !isxdigit((unsigned char)item.s[i + 1]) ||
						 !isxdigit((unsigned char)item.s[i + 2])))
				return -EINVAL;
		++*items;
	}
	return 0;
}

/* Random lists of a, ;, % and hex digits, 0 to 99 bytes: the fast check agrees with the slow one. */
static void lists_agree(void)
{
	static const char alphabet[] = "aaaaaaaa;;;%41";
	unsigned seed = 12345, bad = 0;
	char buf[100];

	for (int round = 0; round < 200000; round++) {
		size_t len = (seed = seed * 1103515245 + 12345) % 100, want, got;
		bool empty_is_bad = round & 1;
		struct lp_error list_err;

		for (size_t i = 0; i < len; i++)
			buf[i] = alphabet[(seed = seed * 1103515245 + 12345) >> 16 & 0xf ? ((seed >> 8) % (sizeof(alphabet) - 1)) : 0];
		int a = check_slowly((struct lp_span){ buf, len }, empty_is_bad, &want);
		int b = lp_list__check((struct lp_span){ buf, len }, "STACK", empty_is_bad, &got, &list_err);
		if (a != b || (a == 0 && want != got)) {
			if (!bad++)
				printf("# '%.*s': slow %d (%zu items), fast %d (%zu)\n", (int)len, buf, a, want, b, got);
		}
	}
	ok(bad == 0, "lp_list__check agrees with an item-by-item check on 200000 random lists");
}

/* N records: what the writer writes the parser reads back, totals and threads, counted or not. */
static void count_records(void)
{
	struct lp_writer w;
	struct lp_count n;
	char *buf = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	int i = 0;

	lp_writer__init(&w, out);
	lp_writer__count(&w, 900, -1, -1, NULL, "task-clock", LP_COUNT_COUNTED, 5000, 6000, 5000);
	lp_writer__attr_u64(&w, "run", 2);
	lp_writer__end(&w);
	lp_writer__count(&w, 901, 7, 8, "my\tapp", "pmu/a=1,b=2/", LP_COUNT_COUNTED, 0, 10, 10);
	lp_writer__end(&w);
	lp_writer__count(&w, 902, -1, -1, NULL, "cycles", LP_COUNT_NOT_SUPPORTED, 0, 0, 0);
	lp_writer__end(&w);
	lp_writer__release(&w);
	fclose(out);
	is_str(buf, "N\t900\t-\t-\t-\ttask-clock\t5000\t6000\t5000\trun=2\n"
		    "N\t901\t7\t8\tmy%09app\tpmu/a=1,b=2/\t0\t10\t10\n"
		    "N\t902\t-\t-\t-\tcycles\t-\t0\t0\tstate=not-supported\n", "N records written");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		lp_error__clear(&e);
		if (lp_fields__split(&f, line, strlen(line)) < 0)
			abort();
		ok(lp_count__parse(&f, &n, &e) == 0, "an N record read back");
		if (i == 0)
			ok(n.pid == -1 && n.tid == -1 && n.value == 5000 && n.enabled == 6000 && n.running == 5000 &&
			   n.state == LP_COUNT_COUNTED && n.nattrs == 1, "a total's fields");
		if (i == 1)
			ok(n.pid == 7 && n.tid == 8 && n.value == 0 && n.event.len == 12, "a thread's, a zero count");
		if (i == 2)
			ok(n.state == LP_COUNT_NOT_SUPPORTED, "not supported: no value, its state");
	}
	free(buf);
	lp_error__clear(&e);
	line = "N\t1\t-\t-\t-\tcycles\t-\t0\t0\tstate=maybe";
	lp_fields__split(&f, line, strlen(line));
	ok(lp_count__parse(&f, &n, &e) == -EINVAL, "an unknown state refused");
	is_str(err, "state 'maybe' is neither 'not-supported' nor 'not-counted'", "and named");
}

int main(void)
{
	good_sample();
	bad_samples();
	line_kinds();
	deep_stack();
	write_round_trip();
	test_writer_numbers();
	writer_in_background();
	proc_records();
	metadata();
	sampling_lines();
	list_walking();
	locations();
	list_building();
	lp_fields__release(&f);
	lists_agree();
	count_records();
	return tap_done();
}
