/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rust's v0 mangling (RFC 2603), which rustc uses for std and, by option,
 * for everything: _R then a path, read into the names a reader knows, crate
 * hashes left out (as rustc-demangle's alternate form does).
 */
#include "symbols/demangle.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

/* Bounds against hostile names: nesting, and backrefs that chain. */
enum { MAX_DEPTH = 200 };

struct v0 {
	const char *s;		/* after "_R" */
	size_t len, pos;
	int depth;
	int skip;		/* > 0: parse, print nothing (impl paths) */
	unsigned binders;	/* lifetimes bound so far, for 'a, 'b... */
	bool bad;
	struct strbuf out;
};

static void print(struct v0 *p, const char *s, size_t n)
{
	if (!p->skip && !p->bad && strbuf__add(&p->out, s, n) < 0)
		p->bad = true;
}

static void prints(struct v0 *p, const char *s)
{
	print(p, s, strlen(s));
}

static char peek(const struct v0 *p)
{
	return p->pos < p->len ? p->s[p->pos] : 0;
}

static bool eat(struct v0 *p, char c)
{
	if (peek(p) != c)
		return false;
	p->pos++;
	return true;
}

/* {0-9a-zA-Z} "_": "_" is 0, else the number plus one. */
static uint64_t base62(struct v0 *p)
{
	uint64_t v = 0;

	if (eat(p, '_'))
		return 0;
	for (;;) {
		char c = peek(p);
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 :
			c >= 'A' && c <= 'Z' ? c - 'A' + 36 : c == '_' ? -2 : -1;

		if (d == -2) {
			p->pos++;
			if (v == UINT64_MAX)
				p->bad = true;
			return v + 1;
		}
		if (d == -1 || v > (UINT64_MAX - (uint64_t)d) / 62) {
			p->bad = true;
			return 0;
		}
		p->pos++;
		v = v * 62 + (uint64_t)d;
	}
}

/* "s" base-62, the number plus one; 0 when absent. */
static uint64_t disambiguator(struct v0 *p)
{
	return eat(p, 's') ? base62(p) + 1 : 0;
}

static size_t decimal(struct v0 *p)
{
	size_t v = 0;

	if (peek(p) < '0' || peek(p) > '9') {
		p->bad = true;
		return 0;
	}
	if (eat(p, '0'))
		return 0;
	while (peek(p) >= '0' && peek(p) <= '9') {
		if (v > p->len) {
			p->bad = true;
			return 0;
		}
		v = v * 10 + (size_t)(p->s[p->pos++] - '0');
	}
	return v;
}

struct ident {
	const char *s;
	size_t len;
	bool punycode;
};

static struct ident undisambiguated(struct v0 *p)
{
	struct ident id = { "", 0, eat(p, 'u') };

	id.len = decimal(p);
	eat(p, '_');
	if (p->bad || id.len > p->len - p->pos) {
		p->bad = true;
		id.len = 0;
		return id;
	}
	id.s = p->s + p->pos;
	p->pos += id.len;
	return id;
}

static void print_ident(struct v0 *p, struct ident id)
{
	if (id.punycode) {
		prints(p, "punycode{");
		print(p, id.s, id.len);
		prints(p, "}");
	} else {
		print(p, id.s, id.len);
	}
}

static void path(struct v0 *p, bool in_value);
static void type(struct v0 *p);

/* Runs what at the position a backref names (always an earlier one), then comes back. */
static void backref(struct v0 *p, void (*what)(struct v0 *, bool), bool arg)
{
	size_t at = p->pos - 1;
	uint64_t to = base62(p);
	size_t back = p->pos;

	if (p->bad || to >= at) {
		p->bad = true;
		return;
	}
	p->pos = (size_t)to;
	what(p, arg);
	p->pos = back;
}

static void type_thunk(struct v0 *p, bool unused)
{
	(void)unused;
	type(p);
}

static void lifetime(struct v0 *p)
{
	uint64_t n = base62(p);
	char name[32];

	if (n == 0) {
		prints(p, "'_");
	} else if (n <= p->binders) {
		snprintf(name, sizeof(name), "'%c", (char)('a' + (p->binders - n) % 26));
		prints(p, name);
	} else {
		snprintf(name, sizeof(name), "'_%" PRIu64, n);
		prints(p, name);
	}
}

/* A binder: for<'a, 'b> (the lifetimes it brings, named on from the outer ones). */
static void binder(struct v0 *p)
{
	uint64_t n;

	if (!eat(p, 'G'))
		return;
	n = base62(p) + 1;
	if (p->bad || n > 26) {
		p->bad = true;
		return;
	}
	prints(p, "for<");
	for (uint64_t i = 0; i < n; i++) {
		char name[8];

		snprintf(name, sizeof(name), "%s'%c", i ? ", " : "", (char)('a' + (p->binders + i) % 26));
		prints(p, name);
	}
	prints(p, "> ");
	p->binders += (unsigned)n;
}

static void const_value(struct v0 *p, bool unused);

static void generic_arg(struct v0 *p)
{
	if (eat(p, 'L'))
		lifetime(p);
	else if (eat(p, 'K'))
		const_value(p, false);
	else
		type(p);
}

/* {arg} "E", comma-separated */
static void generic_args(struct v0 *p)
{
	for (bool first = true; !p->bad && !eat(p, 'E'); first = false) {
		if (p->pos >= p->len) {
			p->bad = true;
			return;
		}
		if (!first)
			prints(p, ", ");
		generic_arg(p);
	}
}

static void const_value(struct v0 *p, bool unused)
{
	char ty = peek(p), buf[48];
	bool negative;
	size_t from, n;
	uint64_t v = 0;

	(void)unused;
	if (++p->depth > MAX_DEPTH)
		p->bad = true;
	if (p->bad)
		return;
	p->pos++;
	if (ty == 'p') {
		prints(p, "_");
		goto done;
	}
	if (ty == 'B') {
		backref(p, const_value, false);
		goto done;
	}
	/* integers, bool, char: hex digits then "_" */
	if (!strchr("hmytoajsxlnibc", ty) || ty == 0) {
		p->bad = true;
		goto done;
	}
	negative = eat(p, 'n');
	from = p->pos;
	while (peek(p) && peek(p) != '_' && strchr("0123456789abcdef", peek(p)))
		p->pos++;
	n = p->pos - from;
	if (!eat(p, '_')) {
		p->bad = true;
		goto done;
	}
	if (n > 16) {
		snprintf(buf, sizeof(buf), "%s0x", negative ? "-" : "");
		prints(p, buf);
		print(p, p->s + from, n);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		char c = p->s[from + i];

		v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	if (ty == 'b')
		snprintf(buf, sizeof(buf), "%s", v == 0 ? "false" : "true");
	else if (ty == 'c' && v >= 0x20 && v < 0x7f && v != '\'' && v != '\\')
		snprintf(buf, sizeof(buf), "'%c'", (char)v);
	else if (ty == 'c')
		snprintf(buf, sizeof(buf), "'\\u{%" PRIx64 "}'", v);
	else
		snprintf(buf, sizeof(buf), "%s%" PRIu64, negative ? "-" : "", v);
	prints(p, buf);
done:
	p->depth--;
}

static const char *basic_type(char c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	default: return NULL;
	}
}

static void fn_sig(struct v0 *p)
{
	unsigned outer = p->binders;

	binder(p);
	if (eat(p, 'U'))
		prints(p, "unsafe ");
	if (eat(p, 'K')) {
		prints(p, "extern \"");
		if (eat(p, 'C')) {
			prints(p, "C");
		} else {
			struct ident abi = undisambiguated(p);

			for (size_t i = 0; i < abi.len; i++)
				print(p, abi.s[i] == '_' ? "-" : abi.s + i, 1);
		}
		prints(p, "\" ");
	}
	prints(p, "fn(");
	generic_args(p);
	prints(p, ")");
	/* returning () goes unsaid */
	if (!eat(p, 'u')) {
		prints(p, " -> ");
		type(p);
	}
	p->binders = outer;
}

static void dyn_bounds(struct v0 *p)
{
	unsigned outer = p->binders;

	prints(p, "dyn ");
	binder(p);
	for (bool first = true; !p->bad && !eat(p, 'E'); first = false) {
		bool open = false;

		if (p->pos >= p->len) {
			p->bad = true;
			break;
		}
		if (!first)
			prints(p, " + ");
		path(p, false);
		while (!p->bad && eat(p, 'p')) {
			struct ident name = undisambiguated(p);

			/* bindings join the trait's own generic arguments: Fn<(A,), Output = R> */
			if (!open && !p->skip && p->out.len && p->out.s[p->out.len - 1] == '>') {
				p->out.len--;
				prints(p, ", ");
			} else {
				prints(p, open ? ", " : "<");
			}
			open = true;
			print_ident(p, name);
			prints(p, " = ");
			type(p);
		}
		if (open)
			prints(p, ">");
	}
	p->binders = outer;
	if (!eat(p, 'L')) {
		p->bad = true;
	} else if (!eat(p, '_')) {
		prints(p, " + ");
		lifetime(p);
	}
}

static void type(struct v0 *p)
{
	char c = peek(p);
	const char *basic = basic_type(c);

	if (++p->depth > MAX_DEPTH)
		p->bad = true;
	if (p->bad)
		goto done;
	if (basic) {
		p->pos++;
		prints(p, basic);
		goto done;
	}
	p->pos++;
	switch (c) {
	case 'A':
	case 'S':
		prints(p, "[");
		type(p);
		if (c == 'A') {
			prints(p, "; ");
			const_value(p, false);
		}
		prints(p, "]");
		break;
	case 'T': {
		size_t n = 0;

		prints(p, "(");
		for (; !p->bad && !eat(p, 'E'); n++) {
			if (p->pos >= p->len) {
				p->bad = true;
				break;
			}
			if (n)
				prints(p, ", ");
			type(p);
		}
		prints(p, n == 1 ? ",)" : ")");
		break;
	}
	case 'R':
	case 'Q':
		prints(p, "&");
		/* an erased lifetime (L_) says nothing */
		if (eat(p, 'L') && !eat(p, '_')) {
			lifetime(p);
			prints(p, " ");
		}
		if (c == 'Q')
			prints(p, "mut ");
		type(p);
		break;
	case 'P':
	case 'O':
		prints(p, c == 'P' ? "*const " : "*mut ");
		type(p);
		break;
	case 'F':
		fn_sig(p);
		break;
	case 'D':
		dyn_bounds(p);
		break;
	case 'B':
		backref(p, type_thunk, false);
		break;
	default:
		/* a path names the type */
		p->pos--;
		path(p, false);
		break;
	}
done:
	p->depth--;
}

static void namespace_item(struct v0 *p, char ns, struct ident name, uint64_t dis)
{
	char num[32];

	prints(p, "::");
	if (ns >= 'a' && ns <= 'z') {
		print_ident(p, name);
		return;
	}
	prints(p, "{");
	prints(p, ns == 'C' ? "closure" : ns == 'S' ? "shim" : (char[]){ ns, 0 });
	if (name.len) {
		prints(p, ":");
		print_ident(p, name);
	}
	snprintf(num, sizeof(num), "#%" PRIu64 "}", dis);
	prints(p, num);
}

static void path(struct v0 *p, bool in_value)
{
	char c = peek(p);

	if (++p->depth > MAX_DEPTH)
		p->bad = true;
	if (p->bad)
		goto done;
	p->pos++;
	switch (c) {
	case 'C': {
		struct ident crate;

		disambiguator(p);
		crate = undisambiguated(p);
		print_ident(p, crate);
		break;
	}
	case 'N': {
		char ns = peek(p);
		uint64_t dis;
		struct ident name;

		if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z'))) {
			p->bad = true;
			break;
		}
		p->pos++;
		path(p, in_value);
		dis = disambiguator(p);
		name = undisambiguated(p);
		namespace_item(p, ns, name, dis);
		break;
	}
	case 'M':
	case 'X':
	case 'Y':
		if (c != 'Y') {
			/* the impl's own path says where it is written, not what it is */
			disambiguator(p);
			p->skip++;
			path(p, false);
			p->skip--;
		}
		prints(p, "<");
		type(p);
		if (c != 'M') {
			prints(p, " as ");
			path(p, false);
		}
		prints(p, ">");
		break;
	case 'I':
		path(p, in_value);
		prints(p, in_value ? "::<" : "<");
		generic_args(p);
		prints(p, ">");
		break;
	case 'B':
		backref(p, path, in_value);
		break;
	default:
		p->bad = true;
	}
done:
	p->depth--;
}

char *demangle__rust_v0(const char *s)
{
	struct v0 p = { 0 };

	if (strncmp(s, "_R", 2) != 0)
		return NULL;
	p.s = s + 2;
	/* a vendor suffix (".llvm.123") is no part of the name */
	p.len = strcspn(p.s, ".$");
	if (peek(&p) >= '0' && peek(&p) <= '9')
		decimal(&p);	/* the encoding version */
	path(&p, true);
	/* what follows is the instantiating crate: not shown */
	if (p.bad || p.out.len == 0) {
		strbuf__release(&p.out);
		return NULL;
	}
	p.out.s[p.out.len] = 0;	/* strbuf keeps room for it */
	return p.out.s;
}
