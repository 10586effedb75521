/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every program's main shares: messages, exit codes, closing stdout. */
#ifndef LP_CMDUTIL_H
#define LP_CMDUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"


enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Set by each main (set_progname): "lp-collapse". */
extern const char *progname;

/* progname, and argv[0] too: getopt's own messages name the program, not the path it was run by. */
void set_progname(const char *name, char **argv);
/* The status of a program's own failures: 1, or 125 where the workload's status is the norm. */
extern int exit_failure;

/* "PROG: message" on stderr. */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: warning: message" on stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: FILE:LINE:COL: message", each part of the place left out when unknown. */
void error_report(const struct lp_error *e);
/* An lp_warn_fn: "PROG: FILE:LINE: warning: message". */
void print_warning(void *ctx, const struct lp_error *w);

/*
 * What every program does with -h/--help, -V/--version and getopt's own
 * complaints ('?'): prints the help or version and exits 0, or exits 2 with
 * the hint. Call it from the default case of the option switch.
 */
void common_option(int opt, const char *usage_text) __attribute__((noreturn));

/* Prints "PROG: message" and "Try 'PROG --help'", exits 2. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* A size option's bytes: "4096", "16K", "8M", "1G"; a usage error otherwise (0 too, unless allowed). */
uint64_t size_arg(const char *opt, const char *arg, bool allow_zero);

/* A count option's number: 1 to max, a usage error naming what otherwise. */
unsigned count_arg(const char *arg, const char *what, unsigned max);

/* A number option's value from min to max, a usage error naming opt otherwise. */
uint64_t range_arg(const char *opt, const char *arg, uint64_t min, uint64_t max);

/* -C LIST: "0,2-3" into a bitmap of words * 64 CPUs; a usage error otherwise. */
void cpu_list_arg(const char *arg, uint64_t *mask, size_t words);

/* -p PID[,PID]...: the pids (malloc'ed into *pids, appended) and their number; a usage error otherwise. */
size_t pid_list_arg(char *arg, int **pids);

/* Cores to read a big input with: two halves at most, when there are two CPUs to run them. */
unsigned default_jobs(void);
/* The argument of -j/--jobs: 1 to 1024, a usage error otherwise. */
unsigned jobs_arg(const char *arg);

/*
 * malloc's heap in huge pages (hugemem__heap) when the inputs, paths[0..n)
 * ("-" or none: stdin), are big: in a VM each first touch of a 4 KB page
 * costs about 13 us, and a big input's tables are thousands of them; a small
 * input is left its few pages, not 2 MB each. A pipe counts as big.
 */
void heap_for_inputs(char *const *paths, int n);

/* Lets a pipe at fd hold more, where it is one. */
void widen_pipe(int fd);

/* The folder the running program is in, with its '/' ("" when unknown), into dir. */
void exe_dir(char *dir, size_t size);

/* The lp program name beside the running one (into buf) if it is there, else name itself, for PATH. */
const char *program_beside(const char *name, char *buf, size_t size);

/* Flushes and closes stdout; 0, or prints why not and returns -1. */
int close_stdout(void);

#endif
