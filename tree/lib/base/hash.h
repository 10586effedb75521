/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fast 64-bit hash of byte strings, for hash tables (not cryptographic). */
#ifndef LP_HASH_H
#define LP_HASH_H

#include <stdint.h>
#include <string.h>

static inline uint64_t hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static inline uint64_t hash_word(uint64_t h, uint64_t w)
{
	h ^= w * 0x87c37b91114253d5ULL;
	h = (h << 31) | (h >> 33);
	return h * 0x4cf5ad432745937fULL;
}

/* The 128-bit product folded to 64 bits: one multiply mixes two words. */
static inline uint64_t hash_mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t hash_load(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/*
 * Frame names (mostly under 32 bytes) are read as up to four words that may
 * overlap, with no loop and no call: two independent multiplies.
 */
static inline uint64_t hash_short(const unsigned char *p, size_t len, uint64_t seed)
{
	uint64_t a = 0, b = 0, c = 0, d = 0;

	if (len > 16) {
		a = hash_load(p, 8);
		b = hash_load(p + 8, 8);
		c = hash_load(p + len - 16, 8);
		d = hash_load(p + len - 8, 8);
	} else if (len >= 8) {
		a = hash_load(p, 8);
		b = hash_load(p + len - 8, 8);
	} else if (len >= 4) {
		a = hash_load(p, 4);
		b = hash_load(p + len - 4, 4);
	} else if (len > 0) {
		a = (uint64_t)p[0] << 16 | (uint64_t)p[len / 2] << 8 | p[len - 1];
	}
	return hash_mix(hash_mum(a ^ 0xa0761d6478bd642fULL, b ^ seed) ^
			hash_mum(c ^ 0xe7037ed1a0b428dbULL, d ^ 0x8ebc6af09c88c6e3ULL));
}

/*
 * Stacks are long (kilobytes): four independent lanes keep the multiplier
 * busy. Another seed gives an independent hash of the same bytes.
 */
static inline uint64_t hash_bytes_seeded(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0x100000001b3ULL) ^ hash_mix(seed);
	uint64_t w[4];

	if (len <= 32)
		return hash_short(p, len, h);
	{
		uint64_t a = h, b = h ^ 0x2545f4914f6cdd1dULL, c = h ^ 0x5851f42d4c957f2dULL, d = ~h;

		while (len >= 32) {
			memcpy(w, p, 32);
			a = hash_word(a, w[0]);
			b = hash_word(b, w[1]);
			c = hash_word(c, w[2]);
			d = hash_word(d, w[3]);
			p += 32;
			len -= 32;
		}
		h = hash_mix(a) ^ hash_mix(b + 1) ^ hash_mix(c + 2) ^ hash_mix(d + 3);
	}
	while (len >= 8) {
		memcpy(w, p, 8);
		h = hash_word(h, w[0]);
		p += 8;
		len -= 8;
	}
	w[0] = 0;
	memcpy(w, p, len);
	h ^= w[0] * 0x87c37b91114253d5ULL;
	return hash_mix(h);
}

static inline uint64_t hash_bytes(const void *data, size_t len)
{
	return hash_bytes_seeded(data, len, 0);
}

#endif
