/* Finding the separators of lp lists fast: items are short, lists long. */
#ifndef LP_SCAN_H
#define LP_SCAN_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first ';' or '%' in [p, end), or end: items are short, so a block at a time, no byte loop. */
#ifdef __SSE2__
static inline const char *next_special(const char *p, const char *end)
{
	const __m128i semi = _mm_set1_epi8(';'), pct = _mm_set1_epi8('%');

	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, semi), _mm_cmpeq_epi8(v, pct)));

		if (m)
			return p + __builtin_ctz(m);
	}
	while (p < end && *p != ';' && *p != '%')
		p++;
	return p;
}
#else
static inline const char *next_special(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;

	for (; end - p >= 8; p += 8) {
		uint64_t v, a, b, m;

		memcpy(&v, p, 8);
		a = v ^ (ones * ';');
		b = v ^ (ones * '%');
		/* the lowest flagged byte is exact (false flags only come above a true one) */
		m = ((a - ones) & ~a & highs) | ((b - ones) & ~b & highs);
		if (m && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
			return p + (__builtin_ctzll(m) >> 3);
		if (m)
			break;
	}
	while (p < end && *p != ';' && *p != '%')
		p++;
	return p;
}
#endif

/* Bit i set when p[i] is ';' or '%', for i < 16 and i < len. */
static inline unsigned special_mask(const char *p, size_t len)
{
	unsigned m = 0;

#ifdef __SSE2__
	if (len >= 16) {
		const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

		return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(';')),
								_mm_cmpeq_epi8(v, _mm_set1_epi8('%'))));
	}
#endif
	for (size_t i = 0; i < len && i < 16; i++)
		m |= (unsigned)(p[i] == ';' || p[i] == '%') << i;
	return m;
}

#endif
