/* What every program's main shares: messages, exit codes, closing stdout. */
#ifndef LP_CMDUTIL_H
#define LP_CMDUTIL_H

#define LP_VERSION "0.1.0"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Set by each main: "lp-collapse". */
extern const char *progname;

/* "PROG: message" on stderr. */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: FILE:LINE: message" (LINE left out when 0). */
void error_at(const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prints "PROG: message" and "Try 'PROG --help'", exits 2. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Flushes and closes stdout; 0, or prints why not and returns -1. */
int close_stdout(void);

#endif
