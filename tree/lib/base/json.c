/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/json.h"

#include <stdbool.h>
#include <stdio.h>

#include "base/xml.h"

/* Names are nearly always plain ASCII: those need no copy and no escape. */
static bool is_plain(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return false;
	}
	return true;
}

int json__string(struct strbuf *b, const char *s, size_t len)
{
	struct strbuf clean = STRBUF_INIT;
	int ret;

	if (is_plain(s, len)) {
		if ((ret = strbuf__grow(b, len + 2)) < 0)
			return ret;
		b->s[b->len++] = '"';
		if (len)	/* s may be NULL then: an empty buffer's */
			memcpy(b->s + b->len, s, len);
		b->len += len;
		b->s[b->len++] = '"';
		return 0;
	}
	ret = xml__utf8_sanitize(&clean, s, len);
	if (ret == 0)
		ret = strbuf__addc(b, '"');
	for (size_t i = 0; ret == 0 && i < clean.len; i++) {
		unsigned char c = (unsigned char)clean.s[i];
		char esc[8];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			ret = strbuf__add(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			ret = strbuf__add(b, esc, 6);
		} else {
			ret = strbuf__addc(b, (char)c);
		}
	}
	if (ret == 0)
		ret = strbuf__addc(b, '"');
	strbuf__release(&clean);
	return ret;
}
