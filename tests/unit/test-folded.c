/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "formats/folded.h"
#include "tap.h"

static struct lp_error e;
static const char *err = e.msg;

static int parse(const char *line, struct folded_line *f)
{
	lp_error__clear(&e);
	return folded__parse(line, strlen(line), f, &e);
}

int main(void)
{
	struct folded_line f;

	ok(parse("a;b;c 42", &f) == 0 && f.ncounts == 1 && f.count[0] == 42, "one count");
	is_mem(f.stack, f.stacklen, "a;b;c", 5, "the stack before it");
	ok(parse("a b;c d 7", &f) == 0 && f.count[0] == 7, "spaces inside frames");
	is_mem(f.stack, f.stacklen, "a b;c d", 7, "the count follows the last space");
	ok(parse("a;b 3 5", &f) == 0 && f.ncounts == 2 && f.count[0] == 3 && f.count[1] == 5,
	   "two counts: a differential line");
	ok(parse("a;b\t9", &f) == 0 && f.count[0] == 9, "a TAB before the count");
	ok(parse("a;b", &f) == -EINVAL && !strcmp(err, "expected 'STACK COUNT', found no count"),
	   "no count");
	ok(parse("a;b 1.5", &f) == -EINVAL &&
	   !strcmp(err, "count '1.5' is not a non-negative integer"), "fractional count");
	ok(parse("a 99999999999999999999", &f) == -EINVAL &&
	   !strcmp(err, "count '99999999999999999999' is too large"), "count too large");
	ok(parse(" 5", &f) == -EINVAL && !strcmp(err, "empty stack before the count"), "no stack");
	return tap_done();
}
