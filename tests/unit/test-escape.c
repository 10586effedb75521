/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "stream/escape.h"
#include "tap.h"

static void round_trip_all_bytes(enum escape_mode mode, const char *name)
{
	char raw[256], esc[768], back[768];
	size_t bad, n;
	long m;

	for (int i = 0; i < 256; i++)
		raw[i] = (char)i;
	n = escape__encode(esc, raw, sizeof(raw), mode);
	ok(n == escape__len(raw, sizeof(raw), mode), name);
	ok(!memchr(esc, '\t', n) && !memchr(esc, '\n', n) && !memchr(esc, '\r', n),
	   "escaped text has no TAB, LF or CR");
	ok(mode != ESCAPE_LIST_ITEM || !memchr(esc, ';', n), "list items have no ';'");
	m = escape__decode(back, esc, n, &bad);
	is_mem(back, m < 0 ? 0 : (size_t)m, raw, sizeof(raw), "every byte survives a round trip");
}

static void random_round_trips(void)
{
	char raw[64], esc[192], back[192];
	int good = 1;

	srand(42);
	for (int round = 0; round < 10000 && good; round++) {
		size_t len = (size_t)(rand() % 64), bad, n;
		long m;

		for (size_t i = 0; i < len; i++)
			raw[i] = "%;\t\n\rab\xff"[rand() % 9];
		n = escape__encode(esc, raw, len, ESCAPE_LIST_ITEM);
		m = escape__decode(back, esc, n, &bad);
		good = m == (long)len && memcmp(back, raw, len) == 0;
	}
	ok(good, "10000 random strings of special bytes round-trip");
}

static void bad_escapes(void)
{
	static const struct {
		const char *s;
		size_t at;
	} cases[] = { { "%", 0 }, { "ab%4", 2 }, { "%zz", 0 }, { "ok%41%g1", 5 }, { "%4", 0 } };
	char out[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t bad = 99;
		long r = escape__decode(out, cases[i].s, strlen(cases[i].s), &bad);

		ok(r == -EINVAL && bad == cases[i].at, cases[i].s);
	}
}

static void known_forms(void)
{
	char out[64];
	size_t bad, n = escape__encode(out, "a;b%c\td", 7, ESCAPE_LIST_ITEM);
	long m;

	is_mem(out, n, "a%3Bb%25c%09d", 13, "list item escaping uses %XX upper case");
	n = escape__encode(out, "a;b", 3, ESCAPE_FIELD);
	is_mem(out, n, "a;b", 3, "';' stays raw outside lists");
	m = escape__decode(out, "%3b%3B%41", 9, &bad);
	is_mem(out, (size_t)m, ";;A", 3, "hex digits of either case decode");
}

int main(void)
{
	round_trip_all_bytes(ESCAPE_FIELD, "field escaping: length as announced");
	round_trip_all_bytes(ESCAPE_LIST_ITEM, "list escaping: length as announced");
	random_round_trips();
	bad_escapes();
	known_forms();
	return tap_done();
}
