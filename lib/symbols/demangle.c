/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/demangle.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "base/numparse.h"

/* Rust's legacy escapes of characters C++ identifiers cannot hold. */
static const struct {
	const char *code;
	char c;
} rust_escapes[] = {
	{ "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' }, { "$GT$", '>' }, { "$LP$", '(' },
	{ "$RP$", ')' }, { "$C$", ',' },
};

/*
 * Undoes Rust's escapes in place: $LT$ and the like, $uXX$ (a character by its
 * code), ".." for "::", and the "_" that guards an escape at a name's start.
 * A "$" that starts none of these is kept as it is.
 */
static void rust_unescape(char *s)
{
	char *out = s;
	bool name_start = true;

	for (const char *p = s; *p;) {
		size_t i;
		int code;

		if (name_start && p[0] == '_' && p[1] == '$')
			p++;
		name_start = false;
		if (p[0] == ':' && p[1] == ':') {
			*out++ = *p++;
			*out++ = *p++;
			name_start = true;
			continue;
		}
		if (p[0] == '.' && p[1] == '.') {
			*out++ = ':';
			*out++ = ':';
			p += 2;
			name_start = true;
			continue;
		}
		if (p[0] != '$') {
			*out++ = *p++;
			continue;
		}
		for (i = 0; i < sizeof(rust_escapes) / sizeof(rust_escapes[0]); i++) {
			size_t n = strlen(rust_escapes[i].code);

			if (strncmp(p, rust_escapes[i].code, n) == 0) {
				*out++ = rust_escapes[i].c;
				p += n;
				break;
			}
		}
		if (i < sizeof(rust_escapes) / sizeof(rust_escapes[0]))
			continue;
		code = p[1] == 'u' && p[2] && p[3] && p[4] == '$' && hex_digit((unsigned char)p[2]) >= 0 &&
		       hex_digit((unsigned char)p[3]) >= 0 ?
			       hex_digit((unsigned char)p[2]) * 16 + hex_digit((unsigned char)p[3]) : -1;
		if (code >= 0x20 && code < 0x7f) {
			*out++ = (char)code;
			p += 5;
			continue;
		}
		*out++ = *p++;
	}
	*out = 0;
}

char *demangle__name(const char *s)
{
	char *out;
	size_t n;

	if (strncmp(s, "_R", 2) == 0)
		return demangle__rust_v0(s);
	if (strncmp(s, "_Z", 2) != 0)
		return NULL;
	/*
	 * libiberty's, with what libstdc++'s __cxa_demangle asks of the same
	 * code: linking libstdc++ for it alone cost each start 3.4 ms.
	 */
	if (!(out = cplus_demangle_v3(s, DMGL_PARAMS | DMGL_TYPES)))
		return NULL;
	/* a Rust legacy name ends in a hash, ...::h0123456789abcdef, that says nothing to a reader */
	n = strlen(out);
	if (n > 19 && memcmp(out + n - 19, "::h", 3) == 0 && strspn(out + n - 16, "0123456789abcdef") == 16) {
		out[n - 19] = 0;
		rust_unescape(out);
	}
	return out;
}

/* A Rust legacy name: ..._17h<16 hex digits>E (the hash demangle takes away; no parameters to leave out). */
static bool rust_legacy(const char *s)
{
	size_t n = strlen(s);

	return n > 20 && s[n - 1] == 'E' && memcmp(s + n - 20, "17h", 3) == 0;
}

char *demangle__as(const char *s, enum demangle_style style)
{
	char *brief;

	if (style == DEMANGLE_NONE)
		return NULL;
	/* libiberty's without DMGL_PARAMS: what perf shows (binutils' demangler; libstdc++'s has no such mode) */
	if (style == DEMANGLE_SHORT && strncmp(s, "_Z", 2) == 0 && !rust_legacy(s) && (brief = cplus_demangle(s, DMGL_NO_OPTS)))
		return brief;
	return demangle__name(s);
}
