/* Strict number parsing: the whole text must be the number. */
#ifndef LP_NUMPARSE_H
#define LP_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Decimal digits only, no sign, no spaces; -EINVAL if not a number, -ERANGE on overflow. */
int parse_u64(const char *s, size_t len, uint64_t *out);

/* Like parse_u64 with an optional leading '-'. */
int parse_i64(const char *s, size_t len, int64_t *out);

#endif
