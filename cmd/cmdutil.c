#include "cmdutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *progname = "lp";

void error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void error_at(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:", progname, file);
	if (line > 0)
		fprintf(stderr, "%ld:", line);
	fputc(' ', stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
