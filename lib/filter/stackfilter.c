/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "filter/stackfilter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/htab.h"
#include "base/strbuf.h"

enum target { TARGET_SYM, TARGET_EXEC, TARGET_ANY };

struct statement {
	enum target target;
	pcre2_code *re;
	size_t group;
};

struct memo {
	struct htab_entry head;
	size_t off;		/* in memo_text: symbol, then executable */
	uint32_t symlen, execlen;
	bool verdict;
};

struct stackfilter {
	struct statement *st;
	size_t n, ngroups;
	bool uses_exec;
	pcre2_match_data *md;
	struct htab memo;	/* of struct memo: verdicts by (symbol, executable) */
	struct strbuf memo_text;
};

static int fail(struct lp_error *err, long line, long column, const char *fmt, const char *what)
{
	err->line = line;
	err->col = column;
	lp_error__set(err, 0, fmt, what);
	return -EINVAL;
}

static int add_statement(struct stackfilter *f, enum target t, const char *re, size_t relen, size_t group,
			 long line, long column, struct lp_error *err)
{
	int code;
	PCRE2_SIZE at;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, relen, 0, &code, &at, NULL);
	struct statement *v;

	if (!c) {
		PCRE2_UCHAR msg[200];

		pcre2_get_error_message(code, msg, sizeof(msg));
		return fail(err, line, column + (long)at, "bad regex: %s", (const char *)msg);
	}
	pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
	v = realloc(f->st, (f->n + 1) * sizeof(*v));
	if (!v) {
		pcre2_code_free(c);
		return -ENOMEM;
	}
	f->st = v;
	v[f->n].target = t;
	v[f->n].re = c;
	v[f->n].group = group;
	f->n++;
	f->uses_exec |= t == TARGET_EXEC;
	return 0;
}

/* One line: a comment, blank, OR, or KEYWORD <regex>. */
static int parse_line(struct stackfilter *f, char *line, size_t len, long lineno, size_t *group,
		      bool *group_empty, struct lp_error *err)
{
	static const struct {
		const char *word;
		enum target target;
	} keywords[] = { { "SYM", TARGET_SYM }, { "EXEC", TARGET_EXEC }, { "ANY", TARGET_ANY } };
	size_t i = 0, word, re;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#')
		return 0;
	word = i;
	while (i < len && line[i] != ' ' && line[i] != '\t')
		i++;
	if (i - word == 2 && memcmp(line + word, "OR", 2) == 0) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i < len)
			return fail(err, lineno, (long)i + 1, "%s", "nothing may follow OR on its line");
		if (*group_empty)
			return fail(err, lineno, (long)word + 1, "%s", "OR with no statement before it");
		(*group)++;
		*group_empty = true;
		return 0;
	}
	for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++) {
		if (strlen(keywords[k].word) != i - word || memcmp(line + word, keywords[k].word, i - word))
			continue;
		if (i == len || (line[i] != ' ' && line[i] != '\t'))
			return fail(err, lineno, (long)i + 1, "%s", "expected a regex after the keyword");
		for (re = i; re < len && (line[re] == ' ' || line[re] == '\t'); re++)
			;
		if (re == len)
			return fail(err, lineno, (long)re + 1, "%s", "expected a regex after the keyword");
		*group_empty = false;
		return add_statement(f, keywords[k].target, line + re, len - re, *group, lineno, (long)re + 1, err);
	}
	char q[LP_QUOTE_SIZE];

	return fail(err, lineno, (long)word + 1, "unknown keyword '%s' (SYM, EXEC, ANY or OR)",
		    lp_error__quote(line + word, i - word, q, sizeof(q)));
}

struct stackfilter *stackfilter__load(const char *path, struct lp_error *err)
{
	struct stackfilter *f = calloc(1, sizeof(*f));
	FILE *in;
	char *line = NULL;
	size_t cap = 0, group = 0;
	ssize_t len;
	long lineno = 0;
	bool group_empty = true;
	int ret = 0;

	lp_error__clear(err);
	if (!f)
		return NULL;
	f->memo = HTAB_INIT(struct memo);
	in = fopen(path, "r");
	if (!in) {
		int e = errno;

		lp_error__set(err, 0, "cannot open '%s': %s", path, strerror(e));
		free(f);
		errno = e;
		return NULL;
	}
	err->file = path;
	while (ret == 0 && (len = getline(&line, &cap, in)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		ret = parse_line(f, line, (size_t)len, lineno, &group, &group_empty, err);
	}
	if (ret == 0 && ferror(in))
		ret = fail(err, 0, 0, "read error: %s", strerror(errno));
	if (ret == 0 && f->n == 0)
		ret = fail(err, 0, 0, "%s", "no statements: a filter needs at least one SYM, EXEC or ANY line");
	else if (ret == 0 && group_empty)
		ret = fail(err, lineno, 0, "%s", "OR with no statement after it");
	free(line);
	fclose(in);
	f->ngroups = group + 1;
	f->md = pcre2_match_data_create(1, NULL);
	if (ret == 0 && !f->md)
		ret = -ENOMEM;
	if (ret < 0) {
		stackfilter__free(f);
		errno = -ret;
		return NULL;
	}
	return f;
}

void stackfilter__free(struct stackfilter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		pcre2_code_free(f->st[i].re);
	free(f->st);
	pcre2_match_data_free(f->md);
	htab__release(&f->memo);
	strbuf__release(&f->memo_text);
	free(f);
}

bool stackfilter__uses_exec(const struct stackfilter *f)
{
	return f->uses_exec;
}

static bool search(struct stackfilter *f, pcre2_code *re, const char *s, size_t len)
{
	return pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, f->md, NULL) >= 0;
}

static bool evaluate(struct stackfilter *f, const char *sym, size_t symlen, const char *exec, size_t execlen)
{
	for (size_t g = 0, i = 0; g < f->ngroups; g++) {
		bool all = true;

		for (; i < f->n && f->st[i].group == g; i++) {
			const struct statement *s = &f->st[i];
			bool hit;

			if (!all)
				continue;
			if (s->target == TARGET_SYM)
				hit = search(f, s->re, sym, symlen);
			else if (s->target == TARGET_EXEC)
				hit = search(f, s->re, exec, execlen);
			else
				hit = search(f, s->re, sym, symlen) || search(f, s->re, exec, execlen);
			all = hit;
		}
		if (all)
			return true;
	}
	return false;
}

int stackfilter__match(struct stackfilter *f, const char *sym, size_t symlen, const char *exec,
		       size_t execlen)
{
	uint64_t h = hash_bytes(sym, symlen) ^ (hash_bytes(exec, execlen) * 0x9e3779b97f4a7c15ULL);
	struct memo *m;
	size_t off = f->memo_text.len;

	if (htab__reserve(&f->memo) < 0)
		return -ENOMEM;
	for (size_t i = h; (m = htab__at(&f->memo, i))->head.used; i++) {
		const char *t = f->memo_text.s + m->off;

		if (m->head.hash == h && m->symlen == symlen && m->execlen == execlen &&
		    memcmp(t, sym, symlen) == 0 && memcmp(t + symlen, exec, execlen) == 0)
			return m->verdict;
	}
	if (strbuf__add(&f->memo_text, sym, symlen) < 0 || strbuf__add(&f->memo_text, exec, execlen) < 0)
		return -ENOMEM;
	htab__insert(&f->memo, m, h);
	m->off = off;
	m->symlen = (uint32_t)symlen;
	m->execlen = (uint32_t)execlen;
	m->verdict = evaluate(f, sym, symlen, exec, execlen);
	return m->verdict;
}
