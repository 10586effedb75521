/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: a USDT probe's argument operands (".note.stapsdt" text), any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/sdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args = malloc(size + 1);
	struct sdt_arg a;

	if (!args)
		return 0;
	memcpy(args, data, size);
	args[size] = 0;
	for (int n = 0; n < 4; n++)
		if (sdt_arg__parse(args, n, &a) == 0 && (a.size == 0 || a.size < -8 || a.size > 8))
			abort();	/* a size parsed is 1 to 8 bytes, signed or not */
	free(args);
	return 0;
}
