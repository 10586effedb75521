/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sample's user stack copy kept as what differs from its thread's last
 * whole copy. The top of a stack (main's frames, the environment, and for a
 * thread whose copy runs past its stack, whatever is mapped above it) is the
 * same from sample to sample: only the bytes below where the copies part
 * are kept, and the rest is read from that whole copy when it is unwound.
 */
#ifndef LP_STACKDELTA_H
#define LP_STACKDELTA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stack_deltas;

struct stack_deltas *stack_deltas__new(void);
void stack_deltas__free(struct stack_deltas *d);

/*
 * How many bytes at the top end of tid's copy of size bytes at sp its last
 * whole copy holds alike: 0 when there is none, the share is too small to
 * be worth a reference, or the whole copy served enough samples that kept
 * a third of their copy as their own (this one should take its place); *key is
 * that copy's record (its seq).
 */
size_t stack_deltas__shared(struct stack_deltas *d, pid_t tid, uint64_t sp, const uint8_t *stack, size_t size,
			    uint32_t *key);

/* Makes a copy tid's last whole one, as record seq. -ENOMEM */
int stack_deltas__keep(struct stack_deltas *d, pid_t tid, uint32_t seq, uint64_t sp, const uint8_t *stack,
		       size_t size);

/* Lets go of tid's copy: it exited. */
void stack_deltas__forget(struct stack_deltas *d, pid_t tid);

#endif
