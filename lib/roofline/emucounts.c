/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "roofline/emucounts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/lines.h"
#include "stream/lpstream.h"
#include "base/numparse.h"
#include "base/stackmap.h"
#include "base/strbuf.h"
#include "symbols/symbolizer.h"

/* ISA-precision keys of K records, in the order written */
static const char *const flop_kinds[] = { "scalar-sp", "scalar-dp", "sse-sp", "sse-dp", "neon-sp", "neon-dp",
					  "avx2-sp", "avx2-dp", "avx512-sp", "avx512-dp" };
enum { NKINDS = sizeof(flop_kinds) / sizeof(flop_kinds[0]) };

/* What a thread's code in one function added up to */
struct sums {
	uint64_t insns, flops, loaded, stored;
	uint64_t by_kind[NKINDS];
};

struct block {
	uint64_t id;
	uint32_t name;		/* in e->names */
	uint64_t ninsns;
	size_t first_fp, nfp;
};

struct fp {
	uint32_t name;
	uint64_t flops;
	int kind;
};

struct emucounts {
	lp_warn_fn warn;
	void *ctx;
	struct symbolizer *sym;
	struct stackmap *names;		/* escaped function names */
	struct stackmap *keys;		/* "PID\tTID\tNAME-ID\tREGIONS" -> index in sums */
	struct sums *sums;
	size_t cap;
	const char *unsupported;
	/* one file's contexts of code regions: "a;b", index 0 none */
	char **contexts;
	size_t ncontexts;
	/* one file's blocks, in the order of their ids (as written) */
	struct block *blocks;
	size_t nblocks, cap_blocks;
	struct fp *fps;
	size_t nfps, cap_fps;
};

struct emucounts *emucounts__new(lp_warn_fn warn, void *ctx)
{
	struct emucounts *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->warn = warn;
	e->ctx = ctx;
	e->sym = symbolizer__new(warn, ctx);
	e->names = stackmap__new();
	e->keys = stackmap__new();
	if (!e->sym || !e->names || !e->keys) {
		emucounts__free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

void emucounts__free(struct emucounts *e)
{
	if (!e)
		return;
	symbolizer__free(e->sym);
	stackmap__free(e->names);
	stackmap__free(e->keys);
	free(e->sums);
	free(e->blocks);
	free(e->fps);
	for (size_t i = 0; i < e->ncontexts; i++)
		free(e->contexts[i]);
	free(e->contexts);
	free(e);
}

const char *emucounts__unsupported(const struct emucounts *e)
{
	return e->unsupported;
}

static int kind_of(const char *isa, const char *precision)
{
	char k[32];

	snprintf(k, sizeof(k), "%s-%s", isa, precision);
	for (int i = 0; i < NKINDS; i++)
		if (strcmp(k, flop_kinds[i]) == 0)
			return i;
	return -1;
}

/* The function at addr in pid, as lp-record would name the frame: its id in e->names. */
static int name_at(struct emucounts *e, pid_t pid, uint64_t addr, uint32_t *id)
{
	struct strbuf stack = STRBUF_INIT, locs = STRBUF_INIT;
	struct stack_entry *n;
	int ret = symbolizer__frame(e->sym, pid, addr, false, true, &stack, &locs);

	if (ret >= 0) {
		n = stackmap__add(e->names, stack.s ? stack.s : "", stack.len, 0, 0);
		if (!n)
			ret = -ENOMEM;
		else
			*id = n->id;
	}
	strbuf__release(&stack);
	strbuf__release(&locs);
	return ret < 0 ? ret : 0;
}

static struct sums *sums_of(struct emucounts *e, pid_t pid, pid_t tid, uint32_t name, const char *regions)
{
	struct strbuf key = STRBUF_INIT;
	struct stack_entry *k = NULL;

	if (strbuf__addf(&key, "%d\t%d\t%" PRIu32 "\t%s", (int)pid, (int)tid, name, regions) == 0)
		k = stackmap__add(e->keys, key.s, key.len, 0, 0);
	strbuf__release(&key);
	if (!k)
		return NULL;
	if (k->id >= e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 256;
		struct sums *v = realloc(e->sums, cap * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + e->cap, 0, (cap - e->cap) * sizeof(*v));
		e->sums = v;
		e->cap = cap;
	}
	return &e->sums[k->id];
}

static const struct block *block_of(const struct emucounts *e, uint64_t id)
{
	size_t lo = 0, hi = e->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->blocks[mid].id == id)
			return &e->blocks[mid];
		if (e->blocks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 256;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	if (!(p = realloc(*v, n * size)))
		return false;
	*v = p;
	*cap = n;
	return true;
}

/* Splits a line into up to max words at spaces; the last takes the rest (a path). */
static size_t words(char *line, char **w, size_t max)
{
	size_t n = 0;

	while (*line && n < max) {
		while (*line == ' ')
			line++;
		if (!*line)
			break;
		w[n++] = line;
		if (n == max)
			break;
		while (*line && *line != ' ')
			line++;
		if (*line)
			*line++ = 0;
	}
	return n;
}

static bool hex(const char *s, uint64_t *v)
{
	return numparse__hex_u64(s, strlen(s), v) == 0;
}

static bool dec(const char *s, uint64_t *v)
{
	return numparse__u64(s, strlen(s), v) == 0;
}

/* What one file is saying as it is read */
struct file_state {
	pid_t pid, tid;
	const char *regions;	/* the thread's context: its open code regions */
	bool header, ended, thread;
};

/* Context number e->ncontexts: its open regions, "a;b" ("" for 0, none) */
static int push_context(struct emucounts *e, const char *regions, struct lp_error *err)
{
	char **v = realloc(e->contexts, (e->ncontexts + 1) * sizeof(*v));

	if (!v)
		return lp_error__set(err, -ENOMEM, "out of memory");
	e->contexts = v;
	if (!(v[e->ncontexts] = strdup(regions)))
		return lp_error__set(err, -ENOMEM, "out of memory");
	e->ncontexts++;
	return 0;
}

/* "context N a;b": N the next one (from 1), the regions a list of names */
static int take_context(struct emucounts *e, char **w, size_t n, struct lp_error *err)
{
	uint64_t id;
	int ret;

	if (!e->ncontexts && (ret = push_context(e, "", err)) < 0)
		return ret;
	if (n != 3 || !dec(w[1], &id) || id != e->ncontexts || !*w[2] || strchr(w[2], ' ') || strchr(w[2], '\t'))
		return lp_error__set(err, -EINVAL, "malformed 'context' line");
	return push_context(e, w[2], err);
}

static int take_line(struct emucounts *e, struct file_state *st, char *line, struct lp_error *err)
{
	char *w[8];
	size_t n = words(line, w, 8);
	uint64_t a, b, c, d;

	if (n == 0)
		return lp_error__set(err, -EINVAL, "empty line");
	if (st->ended)
		return lp_error__set(err, -EINVAL, "a line after 'end'");
	if (!st->header) {
		if (n != 3 || strcmp(w[0], "lp-count") != 0 || strcmp(w[1], "1") != 0)
			return lp_error__set(err, -EINVAL, "not lp-count's counts (expected 'lp-count 1 ARCH')");
		st->header = true;
		return 0;
	}
	if (strcmp(w[0], "pid") == 0 && n == 2 && dec(w[1], &a) && a > 0 && a < INT32_MAX) {
		st->pid = (pid_t)a;
		return 0;
	}
	if (!st->pid)
		return lp_error__set(err, -EINVAL, "expected 'pid N' after the first line");
	if (strcmp(w[0], "map") == 0 && n == 5 && hex(w[1], &a) && hex(w[2], &b) && hex(w[3], &c) && b > a) {
		int ret = symbolizer__mmap(e->sym, st->pid, a, b - a, c, w[4], 0, 0);

		return ret < 0 ? lp_error__set(err, ret, "out of memory") : 0;
	}
	if (strcmp(w[0], "block") == 0 && n == 6 && dec(w[1], &a) && hex(w[2], &b) && hex(w[3], &c) && dec(w[4], &d)) {
		struct block *bl;
		int ret;

		if (e->nblocks && e->blocks[e->nblocks - 1].id >= a)
			return lp_error__set(err, -EINVAL, "block %" PRIu64 " out of order", a);
		if (!grow((void **)&e->blocks, &e->cap_blocks, e->nblocks + 1, sizeof(*e->blocks)))
			return lp_error__set(err, -ENOMEM, "out of memory");
		bl = &e->blocks[e->nblocks];
		*bl = (struct block){ .id = a, .ninsns = d, .first_fp = e->nfps };
		if ((ret = name_at(e, st->pid, b, &bl->name)) < 0)
			return lp_error__set(err, ret, "cannot name 0x%" PRIx64 ": %s", b, strerror(-ret));
		e->nblocks++;
		return 0;
	}
	if (strcmp(w[0], "fp") == 0 && n == 6 && dec(w[1], &a) && hex(w[2], &b) && dec(w[3], &c) && c > 0 && c <= 64) {
		struct block *bl = e->nblocks ? &e->blocks[e->nblocks - 1] : NULL;
		struct fp *f;
		int kind = kind_of(w[4], w[5]), ret;

		if (!bl || bl->id != a)
			return lp_error__set(err, -EINVAL, "an FP instruction of block %" PRIu64 " not after it", a);
		if (kind < 0)
			return lp_error__set(err, -EINVAL, "unknown ISA or precision '%s %s'", w[4], w[5]);
		if (!grow((void **)&e->fps, &e->cap_fps, e->nfps + 1, sizeof(*e->fps)))
			return lp_error__set(err, -ENOMEM, "out of memory");
		f = &e->fps[e->nfps];
		*f = (struct fp){ .flops = c, .kind = kind };
		if ((ret = name_at(e, st->pid, b, &f->name)) < 0)
			return lp_error__set(err, ret, "cannot name 0x%" PRIx64 ": %s", b, strerror(-ret));
		e->nfps++;
		bl->nfp++;
		return 0;
	}
	if (strcmp(w[0], "context") == 0)
		return take_context(e, w, n, err);
	if (strcmp(w[0], "thread") == 0 && (n == 2 || n == 3) && dec(w[1], &a) && a > 0 && a < INT32_MAX &&
	    (n == 2 || dec(w[2], &b))) {
		if (n == 3 && b && b >= e->ncontexts)
			return lp_error__set(err, -EINVAL, "thread %" PRIu64 " in context %" PRIu64 ", which the file does not have", a, b);
		st->tid = (pid_t)a;
		st->regions = n == 3 && b ? e->contexts[b] : "";
		return 0;
	}
	if (strcmp(w[0], "count") == 0 && n == 5 && dec(w[1], &a) && dec(w[2], &b) && dec(w[3], &c) && dec(w[4], &d)) {
		const struct block *bl = block_of(e, a);
		struct sums *s;

		if (!st->tid)
			return lp_error__set(err, -EINVAL, "counts before a 'thread' line");
		if (!bl)
			return lp_error__set(err, -EINVAL, "counts of block %" PRIu64 ", which the file does not have", a);
		if (!(s = sums_of(e, st->pid, st->tid, bl->name, st->regions)))
			return lp_error__set(err, -ENOMEM, "out of memory");
		s->insns += b * bl->ninsns;
		s->loaded += c;
		s->stored += d;
		for (size_t i = bl->first_fp; i < bl->first_fp + bl->nfp; i++) {
			const struct fp *f = &e->fps[i];

			if (!(s = sums_of(e, st->pid, st->tid, f->name, st->regions)))
				return lp_error__set(err, -ENOMEM, "out of memory");
			s->flops += b * f->flops;
			s->by_kind[f->kind] += b * f->flops;
		}
		return 0;
	}
	if (strcmp(w[0], "unsupported") == 0 && n == 3 && hex(w[1], &a)) {
		struct strbuf name = STRBUF_INIT, locs = STRBUF_INIT;
		static const char *const said[][2] = {
			{ "avx512", "an AVX-512 instruction in '%.*s' (pid %d), which QEMU 7.2 cannot run" },
			{ "sve", "SVE instructions in '%.*s' (pid %d): their FLOPs are not counted" },
			{ "region-function", "code regions of lp_region_begin/end in '%.*s' (pid %d): QEMU 7.2's plugins "
					     "cannot read the name they pass, so what runs in them is counted outside "
					     "regions (LP_REGION_BEGIN/END are counted in theirs)" },
		};
		const char *const *what = NULL;

		for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
			if (strcmp(w[2], said[i][0]) == 0)
				what = said[i];
		if (!what)
			return lp_error__set(err, -EINVAL, "unknown instruction set '%s'", w[2]);
		if (!e->unsupported && what != said[2])
			e->unsupported = what[0];
		if (symbolizer__frame(e->sym, st->pid, a, false, true, &name, &locs) < 0)
			strbuf__reset(&name);
		lp_error__warn(e->warn, e->ctx, NULL, 0, what[1], (int)name.len, name.s ? name.s : "", (int)st->pid);
		strbuf__release(&name);
		strbuf__release(&locs);
		return 0;
	}
	if (strcmp(w[0], "exec") == 0 && n >= 2) {
		lp_error__warn(e->warn, e->ctx, NULL, 0,
			"pid %d exec'd '%s', which ran natively: what it did is not counted", (int)st->pid, w[1]);
		return 0;
	}
	if (strcmp(w[0], "lost") == 0 && n == 2 && dec(w[1], &a))
		return lp_error__set(err, -ENOMEM, "lp-count lost %" PRIu64 " counts (out of memory in QEMU)", a);
	if (strcmp(w[0], "end") == 0 && n == 1) {
		st->ended = true;
		return 0;
	}
	return lp_error__set(err, -EINVAL, "malformed '%s' line", w[0]);
}

int emucounts__read(struct emucounts *e, const char *path, struct lp_error *err)
{
	FILE *f = fopen(path, "re");
	struct file_state st = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;
	int ret = 0;

	lp_error__clear(err);
	err->file = path;
	if (!f)
		return lp_error__set(err, -errno, "cannot open: %s", strerror(errno));
	e->nblocks = e->nfps = 0;
	for (size_t i = 0; i < e->ncontexts; i++)
		free(e->contexts[i]);
	e->ncontexts = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		err->line = ++lineno;
		if (line[len - 1] != '\n') {
			ret = lp_error__set(err, -EINVAL, "cut short (no newline)");
			break;
		}
		line[len - 1] = 0;
		if ((ret = take_line(e, &st, line, err)) < 0)
			break;
	}
	if (ret == 0 && ferror(f))
		ret = lp_error__set(err, -EIO, "cannot read: %s", strerror(errno));
	if (ret == 0 && !st.ended) {
		err->line = 0;
		ret = lp_error__set(err, -EINVAL, "no 'end' line: the process did not finish writing its counts");
	}
	free(line);
	fclose(f);
	return ret;
}

static void add_kinds(const struct sums *s, struct lp_writer *w, int *ret)
{
	for (int k = 0; k < NKINDS && *ret == 0; k++)
		if (s->by_kind[k])
			*ret = lp_writer__attr_u64(w, flop_kinds[k], s->by_kind[k]);
}

int emucounts__write(struct emucounts *e, FILE *out, struct lp_error *err)
{
	struct stack_entry **keys = stackmap__sorted(e->keys);
	size_t n = stackmap__size(e->keys);
	struct strbuf key = STRBUF_INIT;
	struct lp_writer w;
	int ret;

	lp_error__clear(err);
	if (!keys && n)
		return lp_error__set(err, -ENOMEM, "out of memory");
	lp_writer__init(&w, out);
	ret = lp_writer__version(&w);
	for (size_t i = 0; i < n && ret == 0; i++) {
		const struct sums *s = &e->sums[keys[i]->id];
		int pid, tid, at = 0;
		uint32_t name;
		const struct stack_entry *nm;
		const char *regions;

		/* keys are not terminated: a copy that is */
		strbuf__reset(&key);
		if (strbuf__add(&key, keys[i]->key, keys[i]->len) < 0 || strbuf__addc(&key, 0) < 0) {
			ret = -ENOMEM;
			break;
		}
		if (sscanf(key.s, "%d\t%d\t%" SCNu32 "\t%n", &pid, &tid, &name, &at) != 3 || !at ||
		    !(nm = stackmap__entry(e->names, name)))
			continue;
		regions = key.s + at;
		if (!s->insns && !s->flops && !s->loaded && !s->stored)
			continue;
		ret = lp_writer__counts(&w, pid, tid, (struct lp_span){ nm->key, nm->len }, s->insns, s->flops, s->loaded,
					s->stored) ?:
		      lp_writer__attr_str(&w, "counts", "emulated");
		add_kinds(s, &w, &ret);
		if (ret == 0 && *regions)
			ret = lp_writer__attr_str(&w, "regions", regions);
		if (ret == 0)
			ret = lp_writer__end(&w);
	}
	if (ret == 0)
		ret = lp_writer__trailer(&w);
	lp_writer__release(&w);
	strbuf__release(&key);
	if (ret == 0 && (fflush(out) != 0 || ferror(out)))
		ret = -EIO;
	return ret < 0 ? lp_error__set(err, ret, "cannot write: %s", strerror(-ret)) : 0;
}
