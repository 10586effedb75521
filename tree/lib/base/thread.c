/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/thread.h"

#include <signal.h>

int worker__start(struct worker *w, void *(*fn)(void *), void *arg)
{
	sigset_t all, was;
	int err;

	w->done = false;
	if ((err = pthread_mutex_init(&w->lock, NULL)) != 0)
		return err;
	if ((err = pthread_cond_init(&w->changed, NULL)) != 0) {
		pthread_mutex_destroy(&w->lock);
		return err;
	}
	/* a new thread starts with its creator's mask: all blocked for the moment of its creation */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	err = pthread_create(&w->thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (err != 0) {
		pthread_cond_destroy(&w->changed);
		pthread_mutex_destroy(&w->lock);
	}
	return err;
}

void worker__stop(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_signal(&w->changed);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->changed);
	pthread_mutex_destroy(&w->lock);
}
