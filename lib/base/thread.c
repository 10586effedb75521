/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "thread.h"

#include <signal.h>

int thread__start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, was;
	int err;

	/* a new thread starts with its creator's mask: all blocked for the moment of its creation */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	return err;
}
