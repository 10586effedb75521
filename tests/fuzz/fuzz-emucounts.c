/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: lp-count's counts files (emucounts.h), any bytes: read
 * (named against /proc/self/exe's symbols, the files its maps name), then
 * written as K records. A file is read whole or refused with a line. The
 * same bytes as a disassembly for the FP classifier of lp-count (fpclass.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "roofline/emucounts.h"
#include "roofline/fpclass.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("counts", MFD_CLOEXEC);
	struct emucounts *e = emucounts__new(NULL, NULL);
	struct lp_error err;
	char path[64];
	FILE *out = fopen("/dev/null", "w");

	char *text = malloc(size + 1);
	struct fp_op op;

	if (fd < 0 || !e || !out || !text || write(fd, data, size) != (ssize_t)size)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	for (int arch = FP_X86_64; arch <= FP_ARM64; arch++)
		if (fpclass__classify(arch, text, &op) == 1 && (op.flops == 0 || op.flops > 32 || op.width >= FP_NWIDTHS))
			abort();	/* at most 16 lanes of a 512-bit FMA */
	free(text);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (emucounts__read(e, path, &err) == 0 && emucounts__write(e, out, &err) < 0)
		abort();
	fclose(out);
	emucounts__free(e);
	close(fd);
	return 0;
}
