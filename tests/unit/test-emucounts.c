/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-count's files read back: blocks named by the symbolizer (a function of
 * this test, mapped as QEMU would have it), counts summed per thread and
 * function as K records; what is malformed named with its file and line.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "roofline/emucounts.h"
#include "tap.h"

/* global, so that dladdr names it */
int counted_function(int x);
__attribute__((noinline)) int counted_function(int x)
{
	return x * 3 + 1;
}

static char warned[4096];

static void warn(void *ctx, const struct lp_error *w)
{
	(void)ctx;
	size_t at = strlen(warned);

	if (at + strlen(w->msg) + 2 < sizeof(warned))
		sprintf(warned + at, "%s\n", w->msg);
}

static const char *write_file(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/test-emucounts.%d", (int)getpid());
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Reads text as a file; the error's "LINE: message" (or "ok"), and the K records into out */
static void read_text(const char *text, char *said, size_t size, char *out, size_t outsize)
{
	struct emucounts *e = emucounts__new(warn, NULL);
	struct lp_error err;
	const char *path = write_file(text);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (emucounts__read(e, path, &err) < 0)
		snprintf(said, size, "%ld: %.200s", err.line, err.msg);
	else
		snprintf(said, size, "ok");
	if (out) {
		emucounts__write(e, m, &err);
		fclose(m);
		snprintf(out, outsize, "%s", buf ? buf : "");
	} else {
		fclose(m);
	}
	free(buf);
	unlink(path);
	emucounts__free(e);
}

int main(void)
{
	char exe[512] = "", text[4096], said[512], out[4096];
	Dl_info info;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uintptr_t base, fn = (uintptr_t)counted_function;

	exe[n > 0 ? n : 0] = 0;
	if (!dladdr((void *)counted_function, &info))
		return 1;
	base = (uintptr_t)info.dli_fbase;
	/* two threads ran the block; its FP instruction is an avx2 FMA of 4 doubles */
	snprintf(text, sizeof(text),
		 "lp-count 1 x86_64\npid 77\nmap %lx %lx 0 %s\n"
		 "block 5 %lx %lx 4 0\nfp 5 %lx 8 avx2 dp\n"
		 "thread 77\ncount 5 10 320 160\nthread 78\ncount 5 1 32 16\nend\n",
		 (unsigned long)base, (unsigned long)(base + 0x200000), exe, (unsigned long)fn, (unsigned long)fn + 4,
		 (unsigned long)fn + 2);
	read_text(text, said, sizeof(said), out, sizeof(out));
	is_str(said, "ok", "a whole file is read");
	ok(strstr(out, "K\t77\t77\tcounted_function\t40\t80\t320\t160\tcounts=emulated\tavx2-dp=80\n") != NULL,
	   "thread 77: 10 runs of 4 instructions, 8 FLOPs each, its bytes");
	ok(strstr(out, "K\t77\t78\tcounted_function\t4\t8\t32\t16\tcounts=emulated\tavx2-dp=8\n") != NULL,
	   "thread 78 apart");
	ok(strncmp(out, "#lp-stream 1\n", 13) == 0 && strstr(out, "#lp.end\t2\n"), "a stream of its own: version, trailer");
	if (!strstr(out, "counted_function"))
		printf("# %s", out);

	/* what a process that did not finish, or a broken file, says */
	read_text("lp-count 1 x86_64\npid 7\n", said, sizeof(said), NULL, 0);
	is_str(said, "0: no 'end' line: the process did not finish writing its counts", "no end line");
	read_text("lp-count 2 x86_64\n", said, sizeof(said), NULL, 0);
	is_str(said, "1: not lp-count's counts (expected 'lp-count 1 ARCH')", "another version");
	read_text("lp-count 1 x86_64\nblock 1 10 10 1 0\nend\n", said, sizeof(said), NULL, 0);
	is_str(said, "2: expected 'pid N' after the first line", "no pid");
	read_text("lp-count 1 x86_64\npid 7\nblock 1 10 zz 1 0\nend\n", said, sizeof(said), NULL, 0);
	is_str(said, "3: malformed 'block' line", "a bad address");
	read_text("lp-count 1 x86_64\npid 7\ncount 1 1 1 1\nend\n", said, sizeof(said), NULL, 0);
	is_str(said, "3: counts before a 'thread' line", "counts of no thread");
	read_text("lp-count 1 x86_64\npid 7\nthread 7\ncount 9 1 1 1\nend\n", said, sizeof(said), NULL, 0);
	is_str(said, "4: counts of block 9, which the file does not have", "an unknown block");
	read_text("lp-count 1 x86_64\npid 7\nblock 2 10 10 1 -1\nblock 1 20 20 1 -1\nend\n", said, sizeof(said), NULL,
		  0);
	is_str(said, "4: block 1 out of order", "blocks out of order");
	read_text("lp-count 1 x86_64\npid 7\nblock 1 10 10 1 -1\nfp 1 10 8 avx3 dp\nend\n", said, sizeof(said), NULL,
		  0);
	is_str(said, "4: unknown ISA or precision 'avx3 dp'", "an unknown ISA");
	read_text("lp-count 1 x86_64\npid 7\nlost 3\nend\n", said, sizeof(said), NULL, 0);
	is_str(said, "3: lp-count lost 3 counts (out of memory in QEMU)", "lost counts are an error, not a silent gap");
	read_text("lp-count 1 x86_64\npid 7\nend\nthread 7\n", said, sizeof(said), NULL, 0);
	is_str(said, "4: a line after 'end'", "a line after end");
	read_text("lp-count 1 x86_64\npid 7\nend", said, sizeof(said), NULL, 0);
	is_str(said, "3: cut short (no newline)", "a last line without its newline");

	/* said and read on: a program exec'd, an instruction QEMU cannot run */
	warned[0] = 0;
	read_text("lp-count 1 x86_64\npid 7\nexec /bin/true\nend\n", said, sizeof(said), NULL, 0);
	is_str(said, "ok", "an exec is no error");
	is_str(warned, "pid 7 exec'd '/bin/true', which ran natively: what it did is not counted\n", "an exec is warned");
	{
		struct emucounts *e = emucounts__new(warn, NULL);
		struct lp_error err;

		ok(emucounts__read(e, write_file("lp-count 1 x86_64\npid 7\nunsupported 10 avx512\nend\n"), &err) == 0 &&
			   emucounts__unsupported(e) && strcmp(emucounts__unsupported(e), "avx512") == 0,
		   "an AVX-512 instruction is known for the SIGILL that follows");
		unlink(write_file(""));
		emucounts__free(e);
	}
	emucounts__free(NULL);
	return tap_done();
}
