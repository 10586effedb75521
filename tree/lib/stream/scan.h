/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding the separators of lp lists fast: items are short, lists long. */
#ifndef LP_SCAN_H
#define LP_SCAN_H

#include <stddef.h>
#ifdef __SSE2__
#include <emmintrin.h>
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
