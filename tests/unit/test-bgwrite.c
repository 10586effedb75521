/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The background writer: buffers come out whole and in order through a pipe
 * whose reader is slower than the producer; a reader that goes away is an
 * error for the producer, not a crash or a hang.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/bgwrite.h"
#include "tap.h"

enum { NBUFS = 200, MAX_LEN = 70000 };

static size_t len_of(unsigned k)
{
	return (k * 7919u) % MAX_LEN + 1;
}

static char byte_of(unsigned k, size_t i)
{
	return (char)(k * 31 + i * 7);
}

struct reader {
	int fd;
	size_t got, bad;
};

/* Reads everything in small pieces (slower than the producer), checking every byte. */
static void *read_all(void *arg)
{
	struct reader *r = arg;
	unsigned k = 0;
	size_t at = 0;
	char piece[4096];
	ssize_t n;

	while ((n = read(r->fd, piece, sizeof(piece))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			while (k < NBUFS && at == len_of(k)) {
				k++;
				at = 0;
			}
			if (k >= NBUFS || piece[i] != byte_of(k, at))
				r->bad++;
			at++;
		}
		r->got += (size_t)n;
	}
	return NULL;
}

int main(void)
{
	struct strbuf buf = STRBUF_INIT;
	struct reader r = { 0 };
	size_t want = 0;
	pthread_t reader;
	int fds[2], bad = 0, ret = 0;
	struct bgwrite *b;

	signal(SIGPIPE, SIG_IGN);
	ok(pipe(fds) == 0, "a pipe");
	r.fd = fds[0];
	pthread_create(&reader, NULL, read_all, &r);
	b = bgwrite__new(fds[1]);
	ok(b != NULL, "a writer to it");
	for (unsigned k = 0; k < NBUFS && ret == 0; k++) {
		/* the buffer given back is empty, whatever it held before */
		bad += buf.len != 0;
		for (size_t i = 0; i < len_of(k); i++)
			strbuf__addc(&buf, byte_of(k, i));
		want += len_of(k);
		ret = bgwrite__put(b, &buf);
	}
	ok(ret == 0, "every buffer handed over");
	ok(!bad, "each time an empty buffer to fill comes back");
	ok(bgwrite__finish(b) == 0, "finished without an error");
	close(fds[1]);
	pthread_join(reader, NULL);
	close(fds[0]);
	ok(r.got == want && r.bad == 0, "the reader got every byte, in order");

	/* a reader that has gone: EPIPE, said by put or by finish, and nothing hangs */
	ok(pipe(fds) == 0, "another pipe");
	close(fds[0]);
	b = bgwrite__new(fds[1]);
	ret = 0;
	for (unsigned k = 0; k < 3 * BGWRITE_SLOTS && ret == 0; k++) {
		strbuf__add(&buf, "lost\n", 5);
		ret = bgwrite__put(b, &buf);
	}
	ok(ret == 0 || ret == -EPIPE, "put says -EPIPE, if it heard of it");
	ok(bgwrite__finish(b) == -EPIPE, "finish does");
	close(fds[1]);
	ok(bgwrite__finish(NULL) == 0, "finishing NULL does nothing");
	strbuf__release(&buf);
	return tap_done();
}
