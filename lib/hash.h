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

static inline uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0x100000001b3ULL);
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ (w * 0x87c37b91114253d5ULL)) * 0x4cf5ad432745937fULL;
		h = (h << 31) | (h >> 33);
		p += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, p, len);
	h ^= w * 0x87c37b91114253d5ULL;
	return hash_mix(h);
}

#endif
