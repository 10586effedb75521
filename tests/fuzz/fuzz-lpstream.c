/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_opts o = { .format = LP_FORMAT_LP };

	/* the first byte picks options, so that every path is reached */
	if (size > 0) {
		o.naming = data[0] % 3;
		o.annotate_kernel = data[0] & 4;
		o.annotate_jit = data[0] & 8;
		o.time_ordered = data[0] & 16;
		o.samples = data[0] & 32;
		o.strip_hex = data[0] & 64;
		o.spawn_notes = data[0] & 128;
	}
	return collapse_input(data, size, &o);
}
