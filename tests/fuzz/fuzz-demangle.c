/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: demangle__name (C++ through libstdc++, Rust legacy and v0 here) on any name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 3), *out;

	if (!name)
		return 0;
	/* names (starting '_') as they come, anything else made a v0 name */
	if (size == 0 || data[0] != '_') {
		memcpy(name, "_R", 2);
		memcpy(name + 2, data, size);
		name[size + 2] = 0;
	} else {
		memcpy(name, data, size);
		name[size] = 0;
	}
	out = demangle__name(name);
	if (out && strlen(out) == 0)
		abort();	/* a name is never demangled to nothing */
	free(out);
	free(name);
	return 0;
}
