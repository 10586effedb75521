/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/xml.h"

#include <stdint.h>

static const char REPLACEMENT[] = "\xEF\xBF\xBD";

/* Length of the well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
		return 0;
	return n;
}

static int put(struct strbuf *out, const char *s, size_t len, int escape)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int ret = 0;

	while (i < len && ret == 0) {
		unsigned char c = p[i];
		size_t n = utf8_seq(p + i, len - i);

		if (n == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
			ret = strbuf__add(out, REPLACEMENT, 3);
			i += n ? n : 1;
			continue;
		}
		if (escape && c == '&')
			ret = strbuf__add(out, "&amp;", 5);
		else if (escape && c == '<')
			ret = strbuf__add(out, "&lt;", 4);
		else if (escape && c == '>')
			ret = strbuf__add(out, "&gt;", 4);
		else if (escape && c == '"')
			ret = strbuf__add(out, "&quot;", 6);
		else if (escape && c == '\'')
			ret = strbuf__add(out, "&#39;", 5);
		else
			ret = strbuf__add(out, s + i, n);
		i += n;
	}
	return ret;
}

int xml__escape(struct strbuf *out, const char *s, size_t len)
{
	return put(out, s, len, 1);
}

int xml__utf8_sanitize(struct strbuf *out, const char *s, size_t len)
{
	return put(out, s, len, 0);
}
