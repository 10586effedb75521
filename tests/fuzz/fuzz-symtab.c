/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: kernel symbols (/proc/kallsyms' shape) and JIT maps (/tmp/perf-PID.map) from any bytes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz-common.h"
#include "symbols/kallsyms.h"

/* Every lookup names a module with its symbol; symbols cover the address they are found at. */
static void look_up(const struct symtab *t, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 8 <= size && i < 64; i += 8) {
		uint64_t addr;
		const char *module = NULL, *name;

		memcpy(&addr, data + i, 8);
		name = symtab__lookup(t, addr, &module);
		if (name && !module)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = input_fd(data, size);
	char path[64];
	struct lp_error err = { 0 };
	struct symtab *t;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((t = kallsyms__load(path)))
		look_up(t, data, size);
	symtab__free(t);
	errno = 0;
	t = perfmap__load(path, &err);
	/* a map that is not one says which line */
	if (!t && errno == EINVAL && err.line < 1)
		abort();
	if (t)
		look_up(t, data, size);
	symtab__free(t);
	close(fd);
	return 0;
}
