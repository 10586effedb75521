/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a frame's name is, given its parent's: functions call few others, so
 * "the k-th distinct callee seen under this caller's name" is a small number
 * where the name's id is not, and compresses to a fraction of it. The
 * flame graph's script keeps the same lists to turn ranks back into names.
 */
#ifndef LP_NAMERANK_H
#define LP_NAMERANK_H

#include <stddef.h>
#include <stdint.h>

struct namerank;

/* For names 0..names-1. NULL+errno (ENOMEM). */
struct namerank *namerank__new(size_t names);
void namerank__free(struct namerank *r);
/*
 * The rank of name among the names seen under parents named parent, from 1
 * in the order first seen; 0 when it is new there (it takes the next rank).
 * -ENOMEM, -EINVAL for a name out of range.
 */
int namerank__rank(struct namerank *r, uint32_t parent, uint32_t name, uint32_t *rank);

#endif
