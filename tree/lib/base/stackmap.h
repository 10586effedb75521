/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unique stacks (folded keys) with their counts. Memory grows with the number
 * of unique stacks, not with the number of samples added.
 */
#ifndef LP_STACKMAP_H
#define LP_STACKMAP_H

#include <stddef.h>
#include <stdint.h>

enum { STACKMAP_COLUMNS = 2 };

struct stack_entry {
	uint64_t hash;
	uint64_t count[STACKMAP_COLUMNS];
	uint32_t id;	/* order of first insertion, from 0 */
	uint32_t len;
	char key[];
};

struct stackmap;

struct stackmap *stackmap__new(void);
void stackmap__free(struct stackmap *m);

/*
 * Adds count to column col of key, inserting it if new. NULL with errno
 * ENOMEM, or EOVERFLOW when the sum would not fit 64 bits.
 */
struct stack_entry *stackmap__add(struct stackmap *m, const char *key, size_t len,
				  int col, uint64_t count);

/* The entry of key, or NULL. */
struct stack_entry *stackmap__find(const struct stackmap *m, const char *key, size_t len);

size_t stackmap__size(const struct stackmap *m);
struct stack_entry *stackmap__entry(const struct stackmap *m, uint32_t id);

/* Entries sorted bytewise by key; the array belongs to m. NULL+ENOMEM. */
struct stack_entry **stackmap__sorted(struct stackmap *m);

/* Byte order of keys, shorter first on a common prefix (Perl's cmp). */
int stack_entry__cmp(const struct stack_entry *a, const struct stack_entry *b);

#endif
