/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cmdutil.h"
#include "version.h"	/* LP_VERSION, made by make from git describe or VERSION */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hugemem.h"
#include "base/numparse.h"

const char *progname = "lp";

void set_progname(const char *name, char **argv)
{
	progname = name;
	argv[0] = (char *)name;
}

int exit_failure = EXIT_RUNTIME;

void exe_dir(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	dir[n > 0 ? n : 0] = 0;
	slash = strrchr(dir, '/');
	if (slash)
		slash[1] = 0;
	else
		dir[0] = 0;
}

const char *program_beside(const char *name, char *buf, size_t size)
{
	size_t n;

	exe_dir(buf, size);
	n = strlen(buf);
	if (n && n + strlen(name) < size) {
		strcpy(buf + n, name);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return name;
}

/* "PROG: KIND: message" ("PROG: message" without a kind) on stderr. */
static void say(const char *kind, const char *fmt, va_list ap)
{
	if (kind)
		fprintf(stderr, "%s: %s: ", progname, kind);
	else
		fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(NULL, fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning", fmt, ap);
	va_end(ap);
}

static void place(const char *file, long line, long col)
{
	if (!file)
		return;
	fprintf(stderr, "%s:", file);
	if (line > 0)
		fprintf(stderr, "%ld:", line);
	if (line > 0 && col > 0)
		fprintf(stderr, "%ld:", col);
	fputc(' ', stderr);
}

void error_report(const struct lp_error *e)
{
	fprintf(stderr, "%s: ", progname);
	place(e->file, e->line, e->col);
	fprintf(stderr, "%s\n", e->msg[0] ? e->msg : "out of memory");
}

void print_warning(void *ctx, const struct lp_error *w)
{
	(void)ctx;
	fprintf(stderr, "%s: ", progname);
	place(w->file, w->line, w->col);
	fprintf(stderr, "warning: %s\n", w->msg);
}

void common_option(int opt, const char *usage_text)
{
	switch (opt) {
	case 'h':
		fputs(usage_text, stdout);
		exit(close_stdout() ? exit_failure : 0);
	case 'V':
		printf("%s %s\n", progname, LP_VERSION);
		exit(close_stdout() ? exit_failure : 0);
	default:
		/* getopt said what was wrong */
		fprintf(stderr, "Try '%s --help' for more information.\n", progname);
		exit(EXIT_USAGE);
	}
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", progname);
	exit(EXIT_USAGE);
}

unsigned default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n >= 2 ? 2 : 1;
}

unsigned count_arg(const char *arg, const char *what, unsigned max)
{
	uint64_t v;

	if (numparse__u64(arg, strlen(arg), &v) < 0 || v == 0 || v > max)
		usage_error("%s must be a whole number from 1 to %u, got '%s'", what, max, arg);
	return (unsigned)v;
}

unsigned jobs_arg(const char *arg)
{
	uint64_t n;

	if (numparse__u64(arg, strlen(arg), &n) < 0 || n < 1 || n > 1024)
		usage_error("--jobs needs a number of cores from 1 to 1024, got '%s'", arg);
	return (unsigned)n;
}

/* Regular files of this many bytes in all, or any pipe, make a big input. */
enum { BIG_INPUT = 8 << 20 };

void heap_for_inputs(char *const *paths, int n)
{
	uint64_t bytes = 0;
	struct stat st;

	for (int i = 0; i < (n ? n : 1) && bytes < BIG_INPUT; i++) {
		const char *path = n ? paths[i] : "-";
		int ret = strcmp(path, "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(path, &st);

		/* one that cannot be read is said so by the reading */
		if (ret == 0)
			bytes += S_ISREG(st.st_mode) ? (uint64_t)st.st_size : BIG_INPUT;
	}
	if (bytes >= BIG_INPUT)
		hugemem__heap(HUGEMEM_HEAP_MAX);
}

void widen_pipe(int fd)
{
	/*
	 * 1 MB (the default fs.pipe-max-size) instead of 64 KB: a writer
	 * faster than its reader wakes it 16 times less often, and each
	 * wake-up across CPUs is dear in a VM. Best effort: a smaller limit
	 * or no pipe leaves it as it was.
	 */
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

int close_stdout(void)
{
	int failed = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;

	if (fclose(stdout) != 0 && !failed) {
		failed = 1;
		err = errno;
	}
	if (!failed)
		return 0;
	error("cannot write output: %s", err ? strerror(err) : "write error");
	return -1;
}

uint64_t size_arg(const char *opt, const char *arg, bool allow_zero)
{
	size_t len = strlen(arg);
	unsigned shift = 0;
	uint64_t v;

	if (len > 1 && strchr("KMG", arg[len - 1])) {
		shift = arg[len - 1] == 'K' ? 10 : arg[len - 1] == 'M' ? 20 : 30;
		len--;
	}
	if (numparse__u64(arg, len, &v) < 0 || (v == 0 && !allow_zero) || v > (UINT64_MAX >> shift))
		usage_error("%s must be a size such as 16K, 8M or 1G, got '%s'", opt, arg);
	return v << shift;
}

uint64_t range_arg(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (numparse__u64(arg, strlen(arg), &v) < 0 || v < min || v > max)
		usage_error("%s needs a whole number from %llu to %llu, got '%s'", opt,
			    (unsigned long long)min, (unsigned long long)max, arg);
	return v;
}

void cpu_list_arg(const char *arg, uint64_t *mask, size_t words)
{
	const char *p = arg;

	memset(mask, 0, words * 8);
	while (*p) {
		size_t n = strcspn(p, ","), dash;
		char item[32];
		uint64_t lo, hi;

		if (n == 0 || n >= sizeof(item))
			usage_error("-C needs a list of CPUs such as 0,2-3, got '%s'", arg);
		memcpy(item, p, n);
		item[n] = 0;
		dash = strcspn(item, "-");
		if (numparse__u64(item, dash, &lo) < 0 ||
		    (item[dash] ? numparse__u64(item + dash + 1, strlen(item + dash + 1), &hi) < 0 : (hi = lo, 0)) ||
		    hi < lo || hi >= words * 64)
			usage_error("-C needs a list of CPUs from 0 to %zu such as 0,2-3, got '%s'", words * 64 - 1,
				    arg);
		for (uint64_t c = lo; c <= hi; c++)
			mask[c / 64] |= 1ULL << (c % 64);
		p += n;
		if (*p == ',')
			p++;
	}
	if (p == arg)
		usage_error("-C needs a list of CPUs such as 0,2-3");
}

size_t pid_list_arg(char *arg, int **pids)
{
	size_t n = 0;

	for (char *save = NULL, *p = strtok_r(arg, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		int *v = realloc(*pids, (n + 1) * sizeof(*v));

		if (!v) {
			error("out of memory");
			exit(exit_failure);
		}
		*pids = v;
		v[n++] = (int)range_arg("--pid", p, 1, 4194304);
	}
	if (n == 0)
		usage_error("--pid needs a process id");
	return n;
}
