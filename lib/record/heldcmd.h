/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command started and held before its exec, so that events opened on it
 * (enable_on_exec) count it from its first instruction: forked, it waits
 * on a pipe until let go, then execs; an exec that fails comes back as the
 * errno, not as an exit status to guess at.
 */
#ifndef LP_HELDCMD_H
#define LP_HELDCMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "base/error.h"

struct held_command;

/* Forks argv (PATH searched), held. NULL with errno. */
struct held_command *held_command__start(char *const *argv, struct lp_error *err);

pid_t held_command__pid(const struct held_command *h);

/*
 * Lets it exec. -errno of the exec that failed (err of kind LP_ERROR_EXEC;
 * the child is reaped), or 0 once it runs the command.
 */
int held_command__go(struct held_command *h, struct lp_error *err);

/*
 * Reaps it once it has exited (waiting for that when block; EINTR
 * retried): its wait status and its own and its waited-for children's
 * resource use. 1 when reaped, 0 when it still runs (not block), -errno.
 */
int held_command__wait(struct held_command *h, bool block, int *status, struct rusage *ru);

/* A descriptor that polls readable once the command has exited (a pidfd), or -1 (before Linux 5.3). */
int held_command__fd(const struct held_command *h);

/* Kills (SIGKILL) and reaps a command not waited for yet; frees. NULL is a no-op. */
void held_command__free(struct held_command *h);

#endif
