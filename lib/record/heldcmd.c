// SPDX-License-Identifier: GPL-2.0-or-later
#include "record/heldcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct held_command {
	pid_t pid;
	int go, errs;		/* our ends of the pipes: let go; the exec's errno */
	int pidfd;
	bool reaped;
};

/* The child: waits to be let go, execs, or sends back why not. */
static void __attribute__((noreturn)) child(char *const *argv, int go, int errs)
{
	char c;
	int e;

	if (read(go, &c, 1) != 1)
		_exit(125);
	execvp(argv[0], argv);
	e = errno;
	if (write(errs, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

struct held_command *held_command__start(char *const *argv, struct lp_error *err)
{
	struct held_command *h = calloc(1, sizeof(*h));
	int go[2] = { -1, -1 }, errs[2] = { -1, -1 }, e;

	if (!h)
		return NULL;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(errs, O_CLOEXEC) < 0) {
		e = errno;
		lp_error__set(err, -e, "pipe");
		goto fail;
	}
	if ((h->pid = fork()) < 0) {
		e = errno;
		lp_error__set(err, -e, "fork");
		goto fail;
	}
	if (h->pid == 0)
		child(argv, go[0], errs[1]);
	close(go[0]);
	close(errs[1]);
	h->go = go[1];
	h->errs = errs[0];
	h->pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
	return h;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (errs[i] >= 0)
			close(errs[i]);
	}
	free(h);
	errno = e;
	return NULL;
}

pid_t held_command__pid(const struct held_command *h)
{
	return h->pid;
}

int held_command__fd(const struct held_command *h)
{
	return h->pidfd;
}

int held_command__go(struct held_command *h, struct lp_error *err)
{
	int e = 0;
	ssize_t n;

	if (h->go < 0)
		return -EINVAL;
	n = write(h->go, "x", 1);
	close(h->go);
	h->go = -1;
	if (n != 1)
		return lp_error__set(err, -errno, "cannot start the command");
	n = read(h->errs, &e, sizeof(e));
	close(h->errs);
	h->errs = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(h->pid, NULL, 0);
		h->reaped = true;
		return lp_error__set_kind(err, LP_ERROR_EXEC, -e, "cannot run the command");
	}
	return 0;
}

int held_command__wait(struct held_command *h, bool block, int *status, struct rusage *ru)
{
	pid_t w;

	if (h->reaped)
		return -ECHILD;
	while ((w = wait4(h->pid, status, block ? 0 : WNOHANG, ru)) < 0)
		if (errno != EINTR)
			return -errno;
	if (w == 0)
		return 0;
	h->reaped = true;
	return 1;
}

void held_command__free(struct held_command *h)
{
	if (!h)
		return;
	if (h->go >= 0)
		close(h->go);
	if (h->errs >= 0)
		close(h->errs);
	if (!h->reaped) {
		kill(h->pid, SIGKILL);
		waitpid(h->pid, NULL, 0);
	}
	if (h->pidfd >= 0)
		close(h->pidfd);
	free(h);
}
