/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: .eh_frame_hdr and .eh_frame from any bytes (they come
 * from the files a recorded program maps). The input: the two sections'
 * addresses (4 bytes each), the size of the first (2 bytes), then the bytes
 * of .eh_frame_hdr and of .eh_frame.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/ehframe.h"

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t hdr_addr, eh_addr;
	size_t hdr_size;
	struct eh_frame *f;
	uint8_t *hdr, *eh;

	if (size < 10)
		return 0;
	hdr_addr = le(data, 4);
	eh_addr = le(data + 4, 4);
	hdr_size = (size_t)le(data + 8, 2);
	data += 10;
	size -= 10;
	if (hdr_size > size)
		hdr_size = size;
	/* copies of their own size: a read past either end is the sanitizer's to see */
	hdr = malloc(hdr_size ? hdr_size : 1);
	eh = malloc(size - hdr_size ? size - hdr_size : 1);
	if (!hdr || !eh)
		abort();
	memcpy(hdr, data, hdr_size);
	memcpy(eh, data + hdr_size, size - hdr_size);
	if ((f = eh_frame__new(hdr, hdr_size, hdr_addr, eh, size - hdr_size, eh_addr))) {
		/* around every address the first entries start at, and wherever the bytes say */
		for (size_t i = 12; i + 4 <= hdr_size && i < 12 + 8 * 32; i += 8) {
			uint64_t start = hdr_addr + (uint64_t)(int64_t)(int32_t)le(hdr + i, 4);
			struct cfi_rule r;

			for (uint64_t pc = start - 1; pc < start + 64; pc += 5)
				if (eh_frame__rule(f, pc, &r) == 0 && !r.simple)
					abort();
		}
		for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
			struct cfi_rule r;

			eh_frame__rule(f, le(data + i, 8), &r);
		}
	}
	eh_frame__free(f);
	free(hdr);
	free(eh);
	return 0;
}
