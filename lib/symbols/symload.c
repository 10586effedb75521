/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "symbols/symload.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/stackmap.h"
#include "symbols/symbolizer.h"
#include "base/thread.h"

/* A file to read, or (with no path) caches to make ready for chains chains */
struct pending_file {
	struct pending_file *next;
	uint64_t dev, ino;
	size_t chains;
	char path[];
};

struct sym_loader {
	struct symbolizer *sym;
	struct stackmap *asked;	/* by inode, or by path where it is not known: the producer's */
	struct worker w;	/* changed: a file was asked for, or the end */
	struct pending_file *head, **tail;
};

static void *loader_main(void *arg)
{
	struct sym_loader *l = arg;

	pthread_mutex_lock(&l->w.lock);
	for (;;) {
		struct pending_file *f;

		while (!l->head && !l->w.done)
			pthread_cond_wait(&l->w.changed, &l->w.lock);
		if (!(f = l->head))
			break;
		if (!(l->head = f->next))
			l->tail = &l->head;
		pthread_mutex_unlock(&l->w.lock);
		/* out of memory here leaves the file to its first frame, which says so if it must */
		if (f->path[0])
			symbolizer__load(l->sym, f->path, f->dev, f->ino);
		else
			symbolizer__expect_chains(l->sym, f->chains);
		free(f);
		pthread_mutex_lock(&l->w.lock);
	}
	pthread_mutex_unlock(&l->w.lock);
	return NULL;
}

struct sym_loader *sym_loader__new(struct symbolizer *s)
{
	struct sym_loader *l = calloc(1, sizeof(*l));
	int err = ENOMEM;

	if (!l || !(l->asked = stackmap__new()))
		goto fail;
	l->sym = s;
	l->tail = &l->head;
	if ((err = worker__start(&l->w, loader_main, l)) != 0)
		goto fail;
	return l;
fail:
	if (l)
		stackmap__free(l->asked);
	free(l);
	errno = err;
	return NULL;
}

static void hand_over(struct sym_loader *l, struct pending_file *f)
{
	pthread_mutex_lock(&l->w.lock);
	*l->tail = f;
	l->tail = &f->next;
	pthread_cond_signal(&l->w.changed);
	pthread_mutex_unlock(&l->w.lock);
}

int sym_loader__add(struct sym_loader *l, const char *path, uint64_t dev, uint64_t ino)
{
	char key[SYMBOLIZER_KEY_MAX];
	size_t n = symbolizer__file_key(key, dev, ino);
	struct stack_entry *e = n > 0 ? stackmap__add(l->asked, key, n, 0, 1) :
				stackmap__add(l->asked, path, strlen(path), 0, 1);
	struct pending_file *f;
	size_t len = strlen(path);

	if (!len)
		return 0;
	if (!e)
		return -ENOMEM;
	if (e->count[0] > 1)
		return 0;
	if (!(f = malloc(sizeof(*f) + len + 1)))
		return -ENOMEM;
	*f = (struct pending_file){ .dev = dev, .ino = ino };
	memcpy(f->path, path, len + 1);
	hand_over(l, f);
	return 0;
}

int sym_loader__expect_chains(struct sym_loader *l, size_t n)
{
	struct pending_file *f = malloc(sizeof(*f) + 1);

	if (!f)
		return -ENOMEM;
	*f = (struct pending_file){ .chains = n };
	f->path[0] = 0;
	hand_over(l, f);
	return 0;
}

void sym_loader__free(struct sym_loader *l)
{
	if (!l)
		return;
	worker__stop(&l->w);
	stackmap__free(l->asked);
	free(l);
}
