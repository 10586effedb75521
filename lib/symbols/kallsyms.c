/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/kallsyms.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hugemem.h"

struct ksym {
	uint64_t start, end;
	uint32_t name, module;	/* offsets in names */
};

struct symtab {
	struct ksym *v;
	size_t n, cap;
	char *names;
	size_t len, names_cap;
};

static int add_name(struct symtab *t, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	if (t->len + n > t->names_cap) {
		size_t cap = t->names_cap ? t->names_cap * 2 : 65536;
		char *v;

		while (cap < t->len + n)
			cap *= 2;
		if (!(v = hugemem__grow(t->names, t->names_cap, cap)))
			return -ENOMEM;
		t->names = v;
		t->names_cap = cap;
	}
	memcpy(t->names + t->len, s, n);
	*off = (uint32_t)t->len;
	t->len += n;
	return 0;
}

static int add(struct symtab *t, uint64_t start, uint64_t end, const char *name, const char *module)
{
	struct ksym *k;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;

		/* the kernel's are MBs: huge pages, not a page fault per 4 KB */
		if (!(k = hugemem__grow(t->v, t->cap * sizeof(*k), cap * sizeof(*k))))
			return -ENOMEM;
		t->v = k;
		t->cap = cap;
	}
	k = &t->v[t->n];
	k->start = start;
	k->end = end;
	if (add_name(t, name, &k->name) < 0 || add_name(t, module, &k->module) < 0)
		return -ENOMEM;
	t->n++;
	return 0;
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void finish(struct symtab *t)
{
	size_t sorted = 1;

	/* the kernel's own symbols come sorted, its modules' after them mostly not */
	while (sorted < t->n && t->v[sorted - 1].start <= t->v[sorted].start)
		sorted++;
	if (sorted < t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_ksym);
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].end <= t->v[i].start)
			t->v[i].end = i + 1 < t->n ? t->v[i + 1].start : t->v[i].start + 4096;
}

/*
 * "ADDR TYPE NAME", then "\t[MODULE]" for a module's: name and module cut
 * out in place. False for a line that is not one.
 */
static bool kallsyms_line(char *line, uint64_t *addr, char *type, char **name, char **module)
{
	char *p = line, *end;
	unsigned long long v;

	if (!isxdigit((unsigned char)*p))
		return false;
	errno = 0;
	v = strtoull(p, &end, 16);
	if (errno || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	*type = end[1];
	*name = p = end + 3;
	p += strcspn(p, " \t\n");
	if (p == *name)
		return false;
	*module = "";
	if (*p) {
		*p++ = 0;
		p += strspn(p, " \t");
		if (*p == '[' && (end = strchr(p + 1, ']'))) {
			*end = 0;
			*module = p + 1;
		}
	}
	*addr = v;
	return true;
}

struct symtab *kallsyms__load(const char *path)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "r");
	struct symtab *t;
	char *line = NULL;
	size_t cap = 0;
	bool any_address = false;

	if (!f)
		return NULL;
	/* the kernel writes as much of the table as a read asks for: fewer, bigger reads */
	setvbuf(f, NULL, _IOFBF, 256 << 10);
	t = calloc(1, sizeof(*t));
	while (t && getline(&line, &cap, f) > 0) {
		char type, *name, *module;
		uint64_t addr;

		if (!kallsyms_line(line, &addr, &type, &name, &module))
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		any_address |= addr != 0;
		if (add(t, addr, 0, name, module) < 0) {
			symtab__free(t);
			t = NULL;
		}
	}
	free(line);
	fclose(f);
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	if (!any_address) {
		symtab__free(t);
		errno = ENODATA;
		return NULL;
	}
	finish(t);
	return t;
}

struct symtab *perfmap__load(const char *path, struct lp_error *err)
{
	FILE *f = fopen(path, "r");
	struct symtab *t;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;

	lp_error__clear(err);
	lp_error__clear(err);
	if (!f)
		return NULL;
	t = calloc(1, sizeof(*t));
	while (t && (len = getline(&line, &cap, f)) > 0) {
		unsigned long long start, size;
		int name_at = 0;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (len == 0)
			continue;
		if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) < 2 || name_at == 0 ||
		    !line[name_at]) {
			err->file = path;
			err->line = lineno;
			lp_error__set(err, 0, "expected 'START SIZE NAME'");
			symtab__free(t);
			t = NULL;
			errno = EINVAL;
			break;
		}
		if (add(t, start, start + size, line + name_at, "") < 0) {
			symtab__free(t);
			t = NULL;
			errno = ENOMEM;
		}
	}
	free(line);
	fclose(f);
	if (t)
		finish(t);
	return t;
}

void symtab__free(struct symtab *t)
{
	if (!t)
		return;
	hugemem__release(t->v, t->cap * sizeof(*t->v));
	hugemem__release(t->names, t->names_cap);
	free(t);
}

const char *symtab__lookup(const struct symtab *t, uint64_t addr, const char **module)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= t->v[lo - 1].end)
		return NULL;
	if (module)
		*module = t->names + t->v[lo - 1].module;
	return t->names + t->v[lo - 1].name;
}
