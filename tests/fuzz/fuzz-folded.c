/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* auto-detection too: it decides between the three parsers */
	struct profile_opts o = { .format = LP_FORMAT_AUTO };

	if (size > 0) {
		o.diff = data[0] & 1;
		o.strip_hex = data[0] & 2;
		o.time_ordered = !o.diff && (data[0] & 4);
	}
	return collapse_input(data, size, &o);
}
