/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What went wrong, and where: the one error-detail type of lib/. Parsers fill
 * in the place (file, line, column: each 0/NULL when unknown) and a message;
 * cmd/ prints it as "PROG: FILE:LINE:COL: message".
 */
#ifndef LP_ERROR_H
#define LP_ERROR_H

#include <stddef.h>

enum { LP_ERROR_MSG = 1024 };	/* a Python traceback's last lines fit */

/*
 * What a caller may act on, beside the errno: the message's words are for
 * people and may change; these do not.
 */
enum lp_error_kind {
	LP_ERROR_OTHER = 0,
	LP_ERROR_EXEC,		/* the command could not be run (the errno says why) */
	LP_ERROR_EVENT,		/* the kernel refused to open an event the user named */
	LP_ERROR_NO_COUNTER,	/* the machine has no hardware counter for an event */
};

struct lp_error {
	const char *file;	/* NULL when not about an input */
	long line, col;		/* 1-based; 0 when not about a place */
	enum lp_error_kind kind;
	char msg[LP_ERROR_MSG];
};

/* Empties e (NULL is allowed: then nothing is recorded). */
void lp_error__clear(struct lp_error *e);

/* Sets e's message (e may be NULL) and returns ret, for `return lp_error__set(e, -EINVAL, ...)`. */
int lp_error__set(struct lp_error *e, int ret, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, with the kind a caller decides on. */
int lp_error__set_kind(struct lp_error *e, enum lp_error_kind kind, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * At most 40 bytes of input for a message, into buf (64 bytes are enough),
 * "..." when there was more; bytes that are not printable ASCII as \xHH, so a
 * message never carries a binary input's bytes to a terminal. Returns buf.
 */
const char *lp_error__quote(const char *s, size_t len, char *buf, size_t size);
enum { LP_QUOTE_SIZE = 4 * 40 + 4 };

/*
 * Warnings: something lib/ went on past (a dropped last sample, a program
 * without frame pointers). The place is set as for errors.
 */
typedef void (*lp_warn_fn)(void *ctx, const struct lp_error *w);

/* Calls warn (if set) with msg at file:line. */
void lp_error__warn(lp_warn_fn warn, void *ctx, const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
