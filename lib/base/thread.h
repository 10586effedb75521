/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp's helper threads (loading symbols, faulting memory in): they take no
 * signals, which stay the starting thread's to get, since it is the one
 * whose poll or wait a signal must wake.
 */
#ifndef LP_THREAD_H
#define LP_THREAD_H

#include <pthread.h>

/* Starts fn(arg) on such a thread into *t: 0, or pthread_create's error number. */
int thread__start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
