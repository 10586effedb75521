/* Reading inputs through the collapser: what lp-collapse and lp-svg share. */
#ifndef LP_INPUTS_H
#define LP_INPUTS_H

#include <stddef.h>

#include "collapse.h"

/* Prints a collapser warning as "PROG: FILE:LINE: warning: ...". */
void print_collapse_warning(void *ctx, const char *file, long line, const char *msg);

/* Appends the events of "a,b,c" (the strings stay in arg); a usage error if none. */
void add_events(char *arg, const char ***events, size_t *n);

/* Reads path ("-" for stdin) into column col; prints what went wrong and returns -1. */
int read_input(struct collapser *c, const char *path, int col);

#endif
