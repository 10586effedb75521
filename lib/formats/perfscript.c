/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "formats/perfscript.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dso.h"
#include "base/numparse.h"
#include "base/strbuf.h"

/* The patterns of stackcollapse-perf.pl, kept verbatim so that edge cases match. */
static const char RE_HEADER[] = "^(\\S.+?)\\s+(\\d+)\\/*(\\d+)*\\s+";
static const char RE_EVENT[] = ":\\s*(\\d+)*\\s+(\\S+):\\s*$";
static const char RE_FRAME[] = "^\\s*(\\w+)\\s*(.+) \\((.*)\\)";

struct piece {
	size_t off, len;
	bool group_start;	/* first piece of one input line */
};

struct perfscript {
	struct perfscript_opts opts;
	pcre2_code *re_header, *re_event, *re_frame;
	pcre2_match_data *md;

	struct strbuf event_filter;
	bool filter_defaulted, filter_warned;

	bool has_pname;
	bool sideband;	/* the header is a PERF_RECORD_* line: no sample follows it */
	struct strbuf pname;
	struct strbuf thread;
	uint64_t period;

	struct strbuf frames;	/* bytes of all pieces of the current sample */
	struct piece *pieces;
	size_t npieces, pieces_cap;
	struct strbuf func;	/* one piece being tidied */

	struct strbuf key;
	struct perfscript_sample sample;
	char error[160];
};

static pcre2_code *compile(const char *pattern)
{
	int code;
	PCRE2_SIZE at;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0,
				       &code, &at, NULL);

	if (re)
		pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);	/* the interpreter is the fallback */
	return re;
}

struct perfscript *perfscript__new(const struct perfscript_opts *opts)
{
	struct perfscript *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->opts = *opts;
	p->re_header = compile(RE_HEADER);
	p->re_event = compile(RE_EVENT);
	p->re_frame = compile(RE_FRAME);
	p->md = pcre2_match_data_create(8, NULL);
	if (!p->re_header || !p->re_event || !p->re_frame || !p->md) {
		perfscript__free(p);
		errno = EINVAL;
		return NULL;
	}
	if (opts->event_filter && *opts->event_filter &&
	    strbuf__add(&p->event_filter, opts->event_filter, strlen(opts->event_filter)) < 0) {
		perfscript__free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->filter_defaulted = opts->event_defaulted;
	return p;
}

void perfscript__free(struct perfscript *p)
{
	if (!p)
		return;
	pcre2_code_free(p->re_header);
	pcre2_code_free(p->re_event);
	pcre2_code_free(p->re_frame);
	pcre2_match_data_free(p->md);
	strbuf__release(&p->event_filter);
	strbuf__release(&p->pname);
	strbuf__release(&p->thread);
	strbuf__release(&p->frames);
	strbuf__release(&p->func);
	strbuf__release(&p->key);
	free(p->pieces);
	free(p);
}

const struct perfscript_sample *perfscript__sample(const struct perfscript *p)
{
	return &p->sample;
}

const char *perfscript__error(const struct perfscript *p)
{
	return p->error;
}

bool perfscript__pending(const struct perfscript *p)
{
	return p->has_pname && !(p->sideband && p->npieces == 0);
}

/* Perl's \s and \w on bytes. */
static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static bool is_lower_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static int match(struct perfscript *p, pcre2_code *re, const char *s, size_t len)
{
	int rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, p->md, NULL);

	return rc > 0;
}

/* Group n of the last match, or false if it did not take part. */
static bool group(struct perfscript *p, int n, const char *s, const char **g, size_t *len)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);

	if ((int)pcre2_get_ovector_count(p->md) <= n || ov[2 * n] == PCRE2_UNSET)
		return false;
	*g = s + ov[2 * n];
	*len = ov[2 * n + 1] - ov[2 * n];
	return true;
}

static bool span_is(const char *s, size_t len, const char *lit)
{
	return strlen(lit) == len && memcmp(s, lit, len) == 0;
}

static bool contains(const char *s, size_t len, const char *lit)
{
	return memmem(s, len, lit, strlen(lit)) != NULL;
}

static bool is_sideband(const char *s, size_t len)
{
	return memmem(s, len, "PERF_RECORD_", 12) != NULL;
}

static int header(struct perfscript *p, const char *line, size_t len)
{
	const char *comm = "", *pid = "", *tid = "", *period = NULL, *event = "";
	size_t commlen = 0, pidlen = 0, tidlen = 0, periodlen = 0, eventlen = 0;
	int ret;

	group(p, 1, line, &comm, &commlen);
	group(p, 2, line, &pid, &pidlen);
	if (!group(p, 3, line, &tid, &tidlen) || span_is(tid, tidlen, "0")) {
		tid = pid;
		tidlen = pidlen;
		pid = "?";
		pidlen = 1;
	}
	if (match(p, p->re_event, line, len)) {
		if (!group(p, 1, line, &period, &periodlen))
			period = NULL;
		group(p, 2, line, &event, &eventlen);
		if (p->event_filter.len == 0) {
			if (strbuf__add(&p->event_filter, event, eventlen) < 0)
				return -ENOMEM;
			p->filter_defaulted = true;
		} else if (!(p->event_filter.len == eventlen &&
			     memcmp(p->event_filter.s, event, eventlen) == 0)) {
			if (p->filter_defaulted && !p->filter_warned) {
				lp_error__warn(p->opts.warn, p->opts.ctx, NULL, 0,
					"counting only events of type '%.*s' (the first seen), "
					"skipping '%.*s'; choose with --event-filter",
					(int)(p->event_filter.len > 60 ? 60 : p->event_filter.len),
					p->event_filter.s, (int)(eventlen > 60 ? 60 : eventlen), event);
				p->filter_warned = true;
			}
			return 0;
		}
	}
	if (!period || span_is(period, periodlen, "0")) {
		p->period = 1;
	} else if ((ret = numparse__u64(period, periodlen, &p->period)) < 0) {
		snprintf(p->error, sizeof(p->error), "period '%.*s' does not fit 64 bits",
			 (int)(periodlen > 40 ? 40 : periodlen), period);
		return ret;
	}

	strbuf__reset(&p->pname);
	strbuf__reset(&p->thread);
	if (strbuf__add(&p->pname, comm, commlen) < 0 ||
	    strbuf__add(&p->thread, tid, tidlen) < 0)
		return -ENOMEM;
	if (p->opts.naming != NAMING_COMM &&
	    (strbuf__addc(&p->pname, '-') < 0 || strbuf__add(&p->pname, pid, pidlen) < 0))
		return -ENOMEM;
	if (p->opts.naming == NAMING_TID &&
	    (strbuf__addc(&p->pname, '/') < 0 || strbuf__add(&p->pname, tid, tidlen) < 0))
		return -ENOMEM;
	for (size_t i = 0; i < p->pname.len; i++)
		if (p->pname.s[i] == ' ')
			p->pname.s[i] = '_';
	p->has_pname = true;
	p->sideband = is_sideband(line, len);
	return 0;
}

/*
 * The frame pattern, without a regex engine for the usual case: with every
 * quantifier at its longest, as Perl tries first, (.+) ends at the last " ("
 * that a ")" follows, and (.*) at the last ")".
 */
static bool split_frame(struct perfscript *p, const char *line, size_t len,
			const char **pc, size_t *pclen, const char **func, size_t *funclen,
			const char **mod, size_t *modlen)
{
	const char *s = line, *end = line + len, *rparen, *q;

	while (s < end && is_space((unsigned char)*s))
		s++;
	*pc = s;
	while (s < end && is_word((unsigned char)*s))
		s++;
	*pclen = (size_t)(s - *pc);
	while (s < end && is_space((unsigned char)*s))
		s++;
	rparen = memrchr(line, ')', len);
	if (*pclen && rparen && rparen - s >= 3) {
		/* the last '(' in [s + 2, rparen) with a space before it */
		for (q = rparen; (q = memrchr(s + 2, '(', (size_t)(q - s - 2)));) {
			if (q[-1] == ' ') {
				*func = s;
				*funclen = (size_t)(q - 1 - s);
				*mod = q + 1;
				*modlen = (size_t)(rparen - q - 1);
				return true;
			}
		}
	}
	if (!match(p, p->re_frame, line, len))
		return false;
	group(p, 1, line, pc, pclen);
	group(p, 2, line, func, funclen);
	group(p, 3, line, mod, modlen);
	return true;
}

/* \.\(.*\)\. : a Go method name such as net/http.(*Client).Do */
static bool looks_like_go(const char *s, size_t len)
{
	const char *open = memmem(s, len, ".(", 2);

	return open && memmem(open + 2, len - (size_t)(open + 2 - s), ").", 2);
}

/* Bytes that the generic tidying of stackcollapse-perf.pl acts on. */
static bool needs_tidying(const char *s, size_t len)
{
	static const bool special[256] = { [';'] = true, ['('] = true, ['"'] = true, ['\''] = true };

	for (size_t i = 0; i < len; i++)
		if (special[(unsigned char)s[i]])
			return true;
	return false;
}

/* ';' becomes ':', argument lists go (but Go methods and anonymous namespaces stay), quotes go. */
static void tidy(struct strbuf *f)
{
	static const char anon[] = "anonymous namespace)";
	size_t o = 0;

	for (size_t i = 0; i < f->len; i++)
		if (f->s[i] == ';')
			f->s[i] = ':';
	if (!looks_like_go(f->s, f->len)) {
		for (size_t i = 0; i < f->len; i++) {
			if (f->s[i] == '(' &&
			    !(f->len - i - 1 >= sizeof(anon) - 1 &&
			      memcmp(f->s + i + 1, anon, sizeof(anon) - 1) == 0)) {
				f->len = i;
				break;
			}
		}
	}
	for (size_t i = 0; i < f->len; i++)
		if (f->s[i] != '"' && f->s[i] != '\'')
			f->s[o++] = f->s[i];
	f->len = o;
}

static int add_piece(struct perfscript *p, const char *raw, size_t rawlen, bool first,
		     const char *pc, size_t pclen, const char *mod, size_t modlen)
{
	struct strbuf *f = &p->func;
	const char *name = raw;
	size_t namelen = rawlen;
	struct piece *piece;

	strbuf__reset(f);
	if (span_is(raw, rawlen, "[unknown]")) {
		if (!span_is(mod, modlen, "[unknown]")) {
			const char *slash = memrchr(mod, '/', modlen);

			name = slash ? slash + 1 : mod;
			namelen = modlen - (size_t)(name - mod);
		} else {
			name = "unknown";
			namelen = 7;
		}
		if (strbuf__addc(f, '[') < 0 || strbuf__add(f, name, namelen) < 0 ||
		    (p->opts.addrs && (strbuf__add(f, " <", 2) < 0 ||
				       strbuf__add(f, pc, pclen) < 0 || strbuf__addc(f, '>') < 0)) ||
		    strbuf__addc(f, ']') < 0)
			return -ENOMEM;
	} else if (strbuf__add(f, raw, rawlen) < 0) {
		return -ENOMEM;
	}

	if (needs_tidying(f->s, f->len))
		tidy(f);
	if (p->pname.len >= 4 && memcmp(p->pname.s, "java", 4) == 0 &&
	    f->len && f->s[0] == 'L' && memchr(f->s, '/', f->len)) {
		memmove(f->s, f->s + 1, --f->len);
	}

	if (!first) {
		if (!contains(f->s, f->len, "_[i]") && strbuf__add(f, "_[i]", 4) < 0)
			return -ENOMEM;
	} else if (p->opts.annotate_kernel && modlen &&
		   (mod[0] == '[' || (modlen >= 7 && memcmp(mod + modlen - 7, "vmlinux", 7) == 0)) &&
		   !contains(mod, modlen, "unknown")) {
		if (strbuf__add(f, "_[k]", 4) < 0)
			return -ENOMEM;
	} else if (p->opts.annotate_jit && dso__is_perf_map(mod, modlen) &&
		   !contains(f->s, f->len, "_[j]")) {
		if (strbuf__add(f, "_[j]", 4) < 0)
			return -ENOMEM;
	}

	if (p->npieces == p->pieces_cap) {
		size_t cap = p->pieces_cap ? p->pieces_cap * 2 : 128;
		struct piece *v = realloc(p->pieces, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->pieces = v;
		p->pieces_cap = cap;
	}
	piece = &p->pieces[p->npieces++];
	piece->off = p->frames.len;
	piece->len = f->len;
	piece->group_start = first;
	return strbuf__add(&p->frames, f->s, f->len);
}

static int frame(struct perfscript *p, const char *pc, size_t pclen,
		 const char *func, size_t funclen, const char *mod, size_t modlen)
{
	const char *end, *s;
	bool first = true;
	size_t hex = funclen;

	while (hex > 0 && is_lower_hex((unsigned char)func[hex - 1]))
		hex--;
	if (hex < funclen && hex >= 3 && memcmp(func + hex - 3, "+0x", 3) == 0)
		funclen = hex - 3;
	if (funclen == 0 || func[0] == '(')
		return 0;	/* split() of "" gives no pieces */

	end = func + funclen;
	if (!memchr(func, '>', funclen))	/* the usual case: no inline frames */
		return add_piece(p, func, funclen, true, pc, pclen, mod, modlen);
	/* split /->/ drops trailing empty pieces */
	while (end - func >= 2 && end[-1] == '>' && end[-2] == '-')
		end -= 2;
	for (s = func; s < end;) {
		const char *arrow = memmem(s, (size_t)(end - s), "->", 2);
		const char *stop = arrow ? arrow : end;
		int ret = add_piece(p, s, (size_t)(stop - s), first, pc, pclen, mod, modlen);

		if (ret < 0)
			return ret;
		first = false;
		if (!arrow)
			break;
		s = arrow + 2;
	}
	return 0;
}

static int finish_sample(struct perfscript *p)
{
	struct strbuf *k = &p->key;
	size_t i = p->npieces;

	strbuf__reset(k);
	if (strbuf__add(k, p->pname.s, p->pname.len) < 0)
		return -ENOMEM;
	/* lines came leaf first; each line's pieces stay in their order */
	while (i > 0) {
		size_t start = i - 1;

		while (start > 0 && !p->pieces[start].group_start)
			start--;
		for (size_t j = start; j < i; j++) {
			if (strbuf__addc(k, ';') < 0 ||
			    strbuf__add(k, p->frames.s + p->pieces[j].off, p->pieces[j].len) < 0)
				return -ENOMEM;
		}
		i = start;
	}
	p->sample.key = k->s;
	p->sample.keylen = k->len;
	p->sample.period = p->period;
	p->sample.thread = p->thread.s;
	p->sample.threadlen = p->thread.len;
	p->npieces = 0;
	strbuf__reset(&p->frames);
	p->has_pname = false;
	return 1;
}

int perfscript__line(struct perfscript *p, const char *line, size_t len)
{
	const char *pc = NULL, *func = NULL, *mod = NULL;
	size_t pclen = 0, funclen = 0, modlen = 0;

	if (len == 0)
		return p->has_pname ? finish_sample(p) : 0;
	if (line[0] == '#')
		return 0;
	if (!is_space((unsigned char)line[0]) && match(p, p->re_header, line, len))
		return header(p, line, len);
	if (split_frame(p, line, len, &pc, &pclen, &func, &funclen, &mod, &modlen))
		return p->has_pname ? frame(p, pc, pclen, func, funclen, mod, modlen) : 0;
	snprintf(p->error, sizeof(p->error),
		 "unrecognized line: not a sample header, a stack frame or a blank line");
	return -EINVAL;
}

/* RE_HEADER (above) from the line's start: a command, then PID or PID/TID between white space. */
static bool has_header(const char *s, size_t len)
{
	if (len < 2 || is_space((unsigned char)s[0]))
		return false;
	/* the command is at least two bytes: its first, then anything */
	for (size_t i = 2; i < len; i++) {
		size_t j = i, digits;

		if (!is_space((unsigned char)s[i]) || (i > 2 && is_space((unsigned char)s[i - 1])))
			continue;
		while (j < len && is_space((unsigned char)s[j]))
			j++;
		for (digits = 0; j < len && s[j] >= '0' && s[j] <= '9'; j++)
			digits++;
		while (j < len && s[j] == '/')
			j++;
		while (j < len && s[j] >= '0' && s[j] <= '9')
			j++;
		if (digits && j < len && is_space((unsigned char)s[j]))
			return true;
	}
	return false;
}

/* RE_EVENT: :\s*(\d+)*\s+(\S+):\s*$, read from the end. */
static bool has_event(const char *s, size_t len)
{
	size_t i = len, token;

	while (i > 0 && is_space((unsigned char)s[i - 1]))
		i--;
	if (i == 0 || s[--i] != ':')
		return false;
	for (token = i; i > 0 && !is_space((unsigned char)s[i - 1]); i--)
		;
	if (i == token || i == 0)
		return false;
	while (i > 0 && is_space((unsigned char)s[i - 1]))
		i--;
	if (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') {
		while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
			i--;
		while (i > 0 && is_space((unsigned char)s[i - 1]))
			i--;
	}
	return i > 0 && s[i - 1] == ':';
}

/* Indented, a word (the address), then " (" and a later ")": RE_FRAME's shape. */
static bool has_frame(const char *s, size_t len)
{
	const char *end = s + len, *open;
	size_t i = 0, word;

	while (i < len && is_space((unsigned char)s[i]))
		i++;
	for (word = i; i < len && is_word((unsigned char)s[i]); i++)
		;
	if (i == 0 || i == word)
		return false;
	open = memmem(s + i, len - i, " (", 2);
	return open && memchr(open + 2, ')', (size_t)(end - open - 2));
}

enum perfscript_shape perfscript__shape(const char *line, size_t len)
{
	if (len == 0)
		return PERFSCRIPT_OTHER;
	if (is_space((unsigned char)line[0]))
		return has_frame(line, len) ? PERFSCRIPT_FRAME : PERFSCRIPT_OTHER;
	if (line[0] == '#' || !has_header(line, len))
		return PERFSCRIPT_OTHER;
	if (is_sideband(line, len))
		return PERFSCRIPT_SIDEBAND;
	return has_event(line, len) ? PERFSCRIPT_EVENT_HEADER : PERFSCRIPT_HEADER;
}

const char *perfscript__event(const struct perfscript *p, size_t *len)
{
	*len = p->event_filter.len;
	return p->event_filter.len ? p->event_filter.s : NULL;
}
