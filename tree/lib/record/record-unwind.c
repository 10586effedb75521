/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A sample's chain of frames: the kernel's, the user stack walked over its copy and unwound with CFI, and the roots learned. */
#include "record/writer-int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/fpchain.h"
#include "base/hash.h"
#include "record/offcpu-sampler.h"
#include "record/perfevent.h"
#include "base/stackmap.h"
#include "symbols/stackroot.h"
#include "symbols/symload.h"
#include "record/tpfields.h"
#include "record/tracefs.h"

/*
 * How many frames of the chain to keep: a frame-pointer loop at its root
 * (garbage in a register sends the kernel's walk round a few addresses to its
 * depth limit) is kept for one turn; n when there is none.
 */
static size_t without_loop(const struct sym_frame *frames, size_t n)
{
	for (size_t period = 1; period <= 4; period++) {
		size_t same = 0;

		while (same + period < n && !frames[n - 1 - same].kernel &&
		       frames[n - 1 - same].ip == frames[n - 1 - same - period].ip)
			same++;
		/* eight turns of one address, or four of a longer loop */
		if (same >= (period == 1 ? 7 : 4 * period))
			return n - same;
	}
	return n;
}

/*
 * The first user frame of sm (where its thread was interrupted or went to
 * sleep), or 0 when it has none.
 */
static uint64_t user_leaf(const struct ring_sample *sm)
{
	bool user = false;

	for (uint64_t i = 0; i < sm->nr; i++) {
		if (sm->ips[i] >= PERF_CONTEXT_MAX)
			user = sm->ips[i] == PERF_CONTEXT_USER;
		else if (user)
			return sm->ips[i];
	}
	/* the kernel did not walk the user stack: the registers say where it was */
	return sm->has_regs ? sm->regs.ip : 0;
}

/* A callchain as unwinding and the junction checks left it. */
struct unwound {
	size_t n;		/* frames, leaf first */
	bool changed;		/* CFI found callers frame pointers lost, or other ones */
	bool whole_stack;	/* it reaches the process's first frame */
	bool looped;		/* a frame-pointer loop was cut from its root */
	bool past_copy;		/* CFI or the walk of the copy stopped where the copy did */
	bool copy_short;	/* the copy is all the kernel could read: a bigger one goes no further */
	bool root_of_thread;	/* its root was taken from its thread's last whole stack */
	bool root_from_later;	/* ... from its thread's next one (writer_complete_later) */
	pid_t tid;
	uint64_t sp;		/* the sample's */
	uint64_t last_cfa;	/* where the last frame CFI unwound ends (0: none) */
};

/* Room for cap frames in b, with their walked return addresses and places. */
int writer__frames_reserve(struct frame_buf *b, size_t cap)
{
	struct sym_frame *v;
	uint64_t *walked, *cfas;

	if (cap <= b->cap)
		return 0;
	if (!(v = realloc(b->v, cap * sizeof(*v))))
		return -ENOMEM;
	b->v = v;
	if (!(walked = realloc(b->walked, cap * sizeof(*walked))))
		return -ENOMEM;
	b->walked = walked;
	if (!(cfas = realloc(b->cfas, cap * sizeof(*cfas))))
		return -ENOMEM;
	b->cfas = cfas;
	b->cap = cap;
	return 0;
}

void writer__frames_release(struct frame_buf *b)
{
	free(b->v);
	free(b->walked);
	free(b->cfas);
	for (size_t i = 0; i < WHOLE_COPIES; i++)
		free(b->wholes[i].bytes);
}

/*
 * A stack copy is smaller (--stack-size is at most 65528), and so is the
 * room below the copy referred to in a whole_copy: a difference's own
 * bytes start at most that far below it.
 */
enum { COPY_MAX = 65536, WHOLE_ROOM = COPY_MAX };

/* The place where copy key is put together: its own, or the one used longest ago; NULL without memory. */
static struct whole_copy *whole_for(struct frame_buf *buf, uint32_t key)
{
	struct whole_copy *w = &buf->wholes[0];

	for (size_t i = 0; i < WHOLE_COPIES; i++) {
		if (buf->wholes[i].has_key && buf->wholes[i].key == key) {
			w = &buf->wholes[i];
			break;
		}
		if (buf->wholes[i].used < w->used)
			w = &buf->wholes[i];
	}
	if (!w->bytes && !(w->bytes = malloc(WHOLE_ROOM + COPY_MAX)))
		return NULL;
	w->used = ++buf->whole_uses;
	return w;
}

/*
 * sm, or where its stack copy was kept as a difference from another
 * sample's (stackdelta.h), the same sample in out with its whole copy put
 * together in buf. Where the other copy cannot give it (it never can, but
 * a record is not trusted), the part kept alone, which unwinding ends in.
 */
static const struct ring_sample *whole_copy(struct writer *w, const struct ring_sample *sm, struct frame_buf *buf,
					    struct ring_sample *out)
{
	const struct recorder *r = w->r;
	struct ring_sample key;
	struct whole_copy *whole;
	uint64_t from, rest, base;

	if (!sm->stack_whole)
		return sm;
	*out = *sm;
	out->stack_whole = 0;
	if (!r->at_seq || sm->stack_key >= r->n ||
	    !ring_sample__decode(r->index[r->at_seq[sm->stack_key]].h, &r->layout, false, &key) || !key.stack ||
	    key.stack_whole || sm->stack_whole < sm->stack_size || sm->stack_size > WHOLE_ROOM)
		return out;
	from = sm->regs.sp + sm->stack_size;
	rest = sm->stack_whole - sm->stack_size;
	/* (its own bytes end where the other's begin to be used, so they start at most WHOLE_ROOM below those) */
	if (from < key.regs.sp || from - key.regs.sp > key.stack_size || key.stack_size - (from - key.regs.sp) < rest ||
	    key.stack_size > COPY_MAX)
		return out;
	if (!(whole = whole_for(buf, sm->stack_key)))
		return out;
	base = key.regs.sp - WHOLE_ROOM;	/* the address bytes[0] stands for */
	if (!whole->has_key || whole->key != sm->stack_key) {
		memcpy(whole->bytes + WHOLE_ROOM, key.stack, key.stack_size);
		whole->key = sm->stack_key;
		whole->has_key = true;
	} else if (whole->dirty_to > key.regs.sp) {
		/* the last difference's bytes, where the copy has its own: those this one's own cover stay */
		uint64_t lo = whole->dirty_from > key.regs.sp ? whole->dirty_from : key.regs.sp;
		uint64_t below = whole->dirty_to < sm->regs.sp ? whole->dirty_to : sm->regs.sp;
		uint64_t above = lo > from ? lo : from;

		if (lo < below)
			memcpy(whole->bytes + (lo - base), key.stack + (lo - key.regs.sp), below - lo);
		if (above < whole->dirty_to)
			memcpy(whole->bytes + (above - base), key.stack + (above - key.regs.sp), whole->dirty_to - above);
	}
	memcpy(whole->bytes + (sm->regs.sp - base), sm->stack, sm->stack_size);
	whole->dirty_from = sm->regs.sp;
	whole->dirty_to = from;
	out->stack = whole->bytes + (sm->regs.sp - base);
	out->stack_size = sm->stack_whole;
	return out;
}

static int unwind_chain(struct writer *w, const struct ring_sample *sample, pid_t pid, struct frame_buf *buf,
			struct unwound *u);
static bool changes_process(const struct perf_event_header *h, pid_t pid);
static bool ends_thread(const struct perf_event_header *h, pid_t tid);
static bool clock_sample(const struct recorder *r, const struct perf_event_header *h);

/* How many records past a stack the kernel's copy cut short writer_complete_later reads, at most. */
enum { LATER_RECORDS = 4096 };

/*
 * 1 when record h is an on-CPU sample of tid (decoded into sm) whose stack,
 * unwound into w->later (u) with nothing of it kept, reaches its root; else
 * 0, or -errno.
 */
static int whole_later(struct writer *w, const struct perf_event_header *h, pid_t pid, pid_t tid,
		       struct ring_sample *sm, struct unwound *u)
{
	int ret;

	if (!clock_sample(w->r, h) || perf_record__tid(h, NULL) != tid ||
	    !ring_sample__decode(h, &w->r->layout, false, sm) || !sm->has_regs || (!sm->stack_size && !sm->stack_whole))
		return 0;
	w->peeking = true;
	ret = unwind_chain(w, sm, pid, &w->later, u);
	w->peeking = false;
	return ret < 0 ? ret : u->whole_stack;
}

/*
 * A stack of tid that stopped at frames[n - 1], leaf included, where the
 * kernel's copy of it was cut short (a page of the stack not touched yet: a
 * function just entered has not written all of its frame, or a page fault
 * on the page at the stack pointer), completed with the callers its
 * thread's next stack that reaches its root shows for a frame of the same
 * function at the same place: one entered just before and still live then,
 * whose callers cannot have changed in between. Its stack pointer at the
 * sample is where a sampled leaf is. The new count of frames, or 0 when that
 * stack shows no such frame (or none comes, before the process changes:
 * an exec, a new mapping, the thread's end); -errno.
 */
static ssize_t writer_complete_later(struct writer *w, pid_t pid, const struct ring_sample *cur, struct frame_buf *buf,
				     size_t n, size_t user)
{
	const struct recorder *r = w->r;
	struct stack_top *t = writer__stack_top(w, cur->tid);
	uint64_t place = n - 1 == user ? cur->regs.sp : buf->cfas[n - 1];
	uint64_t ip = buf->v[n - 1].ip + (buf->v[n - 1].precise ? 1 : 0);
	size_t j, at, limit = w->at + LATER_RECORDS < w->visible ? w->at + LATER_RECORDS : w->visible;
	struct ring_sample sm;
	struct unwound u;
	int ret = 0;

	if (!t)
		return -ENOMEM;
	if (!place)
		return 0;
	/* (the stacks cut short before that one take it too, or know there is none as far as it looked) */
	if (t->later_at > w->at) {
		if ((ret = whole_later(w, r->index[t->later_at].h, pid, cur->tid, &sm, &u)) <= 0)
			return ret;
	} else {
		for (j = t->later_looked > w->at ? t->later_looked : w->at + 1; j < limit; j++) {
			const struct perf_event_header *h = r->index[j].h;

			if (changes_process(h, pid) || ends_thread(h, cur->tid))
				break;
			if ((ret = whole_later(w, h, pid, cur->tid, &sm, &u)) != 0)
				break;
		}
		/* (unwinding may have grown the table t is in) */
		if (!(t = writer__stack_top(w, cur->tid)))
			return -ENOMEM;
		t->later_looked = j;
		if (ret <= 0)
			return ret;
		t->later_at = j;
	}
	for (at = 0; at < u.n && w->later.v[at].kernel; at++)
		;
	for (size_t i = at; i < u.n; i++) {
		const struct sym_frame *f = &w->later.v[i];
		uint64_t there = i == at ? sm.regs.sp : w->later.cfas[i];

		if (there != place || !symbolizer__same_function(w->sym, pid, f->ip + (f->precise ? 1 : 0), ip))
			continue;
		if ((ret = writer__frames_reserve(buf, n + u.n - i + 1)) < 0)
			return ret;
		memcpy(&buf->v[n], &w->later.v[i + 1], (u.n - i - 1) * sizeof(*buf->v));
		memcpy(&buf->cfas[n], &w->later.cfas[i + 1], (u.n - i - 1) * sizeof(*buf->cfas));
		return (ssize_t)(n + u.n - i - 1);
	}
	return 0;
}

/*
 * CFI from frames[*n - 1] on: the frame whose stack pointer was buf->cfas[*n
 * - 1] and %rbp bp once its callee returned. The callers found are added to
 * buf, MAX_UNWIND at a time for as long as there are more (the copy bounds
 * them: each caller's frame is above its callee's); how CFI ended, or
 * SYM_UNWIND_NO_RULE where it could not start; -errno.
 */
static int unwind_from(struct writer *w, pid_t pid, const struct ring_sample *sm, struct frame_buf *buf, size_t *n,
		       uint64_t bp, enum sym_unwind_end *end)
{
	uint64_t ras[MAX_UNWIND], cfas[MAX_UNWIND], exact;
	size_t k;
	int ret;

	do {
		const struct sym_frame *from = &buf->v[*n - 1];
		uint64_t sp = buf->cfas[*n - 1];
		size_t at;

		*end = SYM_UNWIND_NO_RULE;
		if (!sp || !sm->stack || sp < sm->regs.sp || sp - sm->regs.sp > sm->stack_size)
			return 0;
		at = (size_t)(sp - sm->regs.sp);
		k = symbolizer__unwind_on(w->sym, pid, from->ip + (from->precise ? 1 : 0), sp, bp, sm->stack + at,
					  sm->stack_size - at, ras, MAX_UNWIND, &exact, end, cfas, &bp);
		if ((ret = writer__frames_reserve(buf, *n + k + 1)) < 0)
			return ret;
		for (size_t i = 0; i < k; i++) {
			buf->v[*n + i] = (struct sym_frame){ ras[i], false, exact >> i & 1 };
			buf->cfas[*n + i] = cfas[i];
		}
		*n += k;
	} while (*end == SYM_UNWIND_MAX && k > 0);
	return 0;
}

/*
 * A chain whose frame-pointer walk ends in frames[n - 1], a function that
 * keeps no frame pointer by its CFI (its %rbp was nobody's record): CFI goes
 * on from there, where its callee's record says its stack pointer and %rbp
 * were (libc's __libc_start_call_main, and past it __libc_start_main and
 * _start: every process's main thread). As unwind_from.
 */
static int unwind_on(struct writer *w, pid_t pid, const struct ring_sample *sm, struct frame_buf *buf, size_t *n,
		     enum sym_unwind_end *end)
{
	uint64_t sp = buf->cfas[*n - 1], bp;

	*end = SYM_UNWIND_NO_RULE;
	if (!sp || !sm->stack || sp < sm->regs.sp + 16 || sp - sm->regs.sp > sm->stack_size)
		return 0;
	memcpy(&bp, sm->stack + (sp - sm->regs.sp) - 16, 8);
	return unwind_from(w, pid, sm, buf, n, bp, end);
}

/*
 * Whether the %rbp a frame-pointer walk goes on from past ras[from] is data:
 * the first of the functions ras[from..k - 1] return into that does not
 * leave %rbp alone (libc's clock_gettime does: what it calls saved its
 * caller's) uses it as any register. One that keeps a frame pointer in it
 * had its own record in the walk; past ras[k - 1], CFI cannot say.
 */
static bool rbp_is_data(struct writer *w, pid_t pid, const uint64_t *ras, uint64_t exact_ras, size_t from, size_t k)
{
	for (size_t j = from; j < k; j++) {
		enum sym_frame_kind kind = symbolizer__frame_kind(w->sym, pid, ras[j], exact_ras >> j & 1);

		if (kind != SYM_FRAME_NONE)
			return kind == SYM_FRAME_SCRATCH;
	}
	return false;
}

/*
 * The frames of a sample's callchain into buf, leaf first, with the callers
 * that frame-pointer walking lost recovered from CFI, and SYM_STOPPED_IP as
 * the root where what is rootward is unknown.
 */
static int unwind_chain(struct writer *w, const struct ring_sample *sample, pid_t pid, struct frame_buf *buf,
			struct unwound *u)
{
	struct ring_sample put_together;
	const struct ring_sample *sm = whole_copy(w, sample, buf, &put_together);
	bool kernel = false, first = true, fp_astray = false, fp_tail = true, outermost = false, unknown_root = false;
	bool walk_cut = false, walked_here = false, remember;
	enum sym_unwind_end end = SYM_UNWIND_NO_RULE;
	/* a frame record takes 16 bytes at least: the most a walk of the copy can find */
	size_t n = 0, user = SIZE_MAX, walk_max = sm->has_regs ? sm->stack_size / 16 + 1 : 0;
	struct sym_frame *frames;
	uint64_t *cfa;
	int ret;

	*u = (struct unwound){ 0 };
	/* room for the chain, the leaf and walk of a copy, every caller unwinding may add and a marker */
	if ((ret = writer__frames_reserve(buf, sm->nr + 1 + walk_max + MAX_UNWIND + 1)) < 0)
		return ret;
	frames = buf->v;
	cfa = buf->cfas;
	for (uint64_t i = 0; i < sm->nr; i++) {
		uint64_t ip = sm->ips[i];

		if (ip >= PERF_CONTEXT_MAX) {
			kernel = ip == PERF_CONTEXT_KERNEL;
			continue;
		}
		if (!kernel && user == SIZE_MAX)
			user = n;
		frames[n].ip = ip;
		frames[n].kernel = kernel;
		frames[n].precise = first;
		cfa[n] = 0;
		first = false;
		n++;
	}
	/*
	 * The kernel was not asked to walk the user stack (reading user memory a
	 * frame at a time is what sampling costs most): the same walk is made
	 * here, over the copy, where CFI then checks and completes it.
	 */
	if (user == SIZE_MAX && sm->has_regs) {
		/* (each record's place too, where the leaf's callers' CFAs go) */
		size_t walked = fp_chain__walk(sm->regs.sp, sm->regs.bp, sm->stack, sm->stack_size, buf->walked,
					       &cfa[n + 1], walk_max, &walk_cut);

		user = n;
		walked_here = true;
		cfa[n] = 0;
		frames[n++] = (struct sym_frame){ sm->regs.ip, false, first };
		for (size_t i = 0; i < walked; i++)
			frames[n++] = (struct sym_frame){ buf->walked[i], false, false };
	}
	if (sm->has_regs && user != SIZE_MAX && frames[user].ip == sm->regs.ip && sm->stack) {
		uint64_t ras[MAX_UNWIND], known[MAX_UNWIND], exact_ras, cfi_cfas[MAX_UNWIND], *fp_cfas = &cfa[user + 1];
		uint64_t last_bp;
		bool changed;
		size_t nknown = 0, k, walked = n - user - 1;
		/* (a walk of the copy took only plausible records: fp_chain__walk checks as it goes) */
		size_t believed = walked_here ? walked :
				  fp_chain__plausible(sm->regs.sp, sm->regs.bp, sm->stack, sm->stack_size, walked);

		if (believed < walked) {
			n = user + 1 + believed;
			fp_astray = true;
		}

		for (size_t i = user + 1; i < n && nknown < MAX_UNWIND; i++)
			known[nknown++] = frames[i].ip;
		k = symbolizer__unwind(w->sym, pid, &sm->regs, sm->stack, sm->stack_size, ras, MAX_UNWIND,
				       &exact_ras, &end, known, nknown, cfi_cfas, &last_bp);
		u->tid = sm->tid;
		u->sp = sm->regs.sp;
		u->last_cfa = k ? cfi_cfas[k - 1] : 0;
		/* where each record the walk read lies: the same return address read elsewhere is another frame */
		if (!walked_here)
			fp_chain__cfas(sm->regs.sp, sm->regs.bp, sm->stack, sm->stack_size, n - user - 1, fp_cfas);
		size_t rest = user + 1;	/* first frame-pointer frame kept after the unwound ones */

		/*
		 * The unwound callers are right; frame-pointer walking may have lost
		 * some (functions without a frame pointer) and may have gone astray.
		 * Past the last unwound caller it finds too, its chain goes on.
		 */
		outermost = end == SYM_UNWIND_OUTERMOST;
		if (outermost) {
			rest = n;
		} else if (k == 0 && n > rest &&
			   symbolizer__frame_kind(w->sym, pid, frames[user].ip, true) == SYM_FRAME_SCRATCH) {
			/*
			 * CFI could not take the sampled function's own frame (bigger
			 * than the snapshot), and the walk starts from a %rbp that
			 * function uses as any register: none of it is believed.
			 */
			n = rest;
		} else {
			size_t met = k;	/* CFI's caller the walk met, if any */

			/* the same return address read from another place of the stack is not the same frame */
			for (size_t j = k; j-- > 0 && rest == user + 1;)
				for (size_t i = user + 1; i < n; i++)
					if (frames[i].ip == ras[j] &&
					    (i - user - 1 >= nknown || !fp_cfas[i - user - 1] || fp_cfas[i - user - 1] == cfi_cfas[j])) {
						rest = i + 1;
						met = j;
						break;
					}
			/*
			 * The walk never met CFI's callers. Its records that lie within
			 * the frames CFI unwound are none of their callers: a %rbp of
			 * code without frame pointers that pointed into a live frame
			 * reads a stale return address there (make's "main" got
			 * variable_expand_string, the call before, as its caller).
			 */
			if (k > 0 && rest == user + 1)
				while (rest < n && rest - user - 1 < nknown && fp_cfas[rest - user - 1] &&
				       fp_cfas[rest - user - 1] <= cfi_cfas[k - 1])
					rest++;
			/*
			 * From where it met them (else from where they end) it goes on
			 * only if %rbp there can be a frame record, not where a function
			 * used it as any register: sampled in clock_gettime called from
			 * such a function, the vdso's own record is right and the one
			 * after it is the function's data (bigframe scratch: "decoy").
			 */
			if (k > 0 && rest < n && rbp_is_data(w, pid, ras, exact_ras, met < k ? met : k - 1, k))
				rest = n;
		}
		/* whether frame pointers take the stack on past what CFI found */
		fp_tail = n > rest;
		if (k > 0) {
			size_t total = user + 1 + k + (n - rest);

			/* counted when the chain changed: callers were missing or wrong */
			changed = rest != user + 1 + k;
			for (size_t i = 0; i < k && !changed; i++)
				changed = frames[user + 1 + i].ip != ras[i];
			memmove(&frames[user + 1 + k], &frames[rest], (n - rest) * sizeof(*frames));
			memmove(&cfa[user + 1 + k], &cfa[rest], (n - rest) * sizeof(*cfa));
			for (size_t i = 0; i < k; i++) {
				frames[user + 1 + i] = (struct sym_frame){ ras[i], false, exact_ras >> i & 1 };
				cfa[user + 1 + i] = cfi_cfas[i];
			}
			n = total;
			u->changed = changed;
			/* CFI found as many callers as it had room for, and the walk none past them: it goes on */
			if (end == SYM_UNWIND_MAX && !fp_tail) {
				if ((ret = unwind_from(w, pid, sm, buf, &n, last_bp, &end)) < 0)
					return ret;
				frames = buf->v;
				cfa = buf->cfas;
				outermost = end == SYM_UNWIND_OUTERMOST;
				u->last_cfa = cfa[n - 1];
			}
			/* CFI reached the outermost frame: nothing was cut */
			u->whole_stack = outermost;
		}
		/*
		 * What the walk read off the stack is not kept; where nothing took
		 * the stack past CFI's last caller, that is not its root either:
		 * the stack says so.
		 */
		unknown_root = fp_astray || !fp_tail;
	}
	/* a walk of the copy that ends the chain stopped where the copy did: its callers are unknown */
	if (walk_cut && fp_tail)
		unknown_root = true;
	size_t whole = n;

	/* a walk of the copy only goes up the stack: it cannot loop, and what repeats there is a recursion */
	if (!walked_here)
		n = without_loop(frames, n);
	u->looped = n < whole;

	if (user != SIZE_MAX && !outermost && !fp_astray && n > user + 1) {
		switch (symbolizer__frame_kind(w->sym, pid, frames[n - 1].ip, frames[n - 1].precise)) {
		case SYM_FRAME_ENTRY:
			/* frame pointers took it to the loader's first frame, which CFI cannot say */
			outermost = u->whole_stack = true;
			break;
		case SYM_FRAME_NONE:
		case SYM_FRAME_SCRATCH: {
			/* the walk ended in a function without a frame (gcc's cc1: all of it): CFI goes on */
			enum sym_unwind_end on;

			if ((ret = unwind_on(w, pid, sm, buf, &n, &on)) < 0)
				return ret;
			frames = buf->v;
			cfa = buf->cfas;
			outermost = u->whole_stack = on == SYM_UNWIND_OUTERMOST;
			unknown_root = !outermost;
			if (on == SYM_UNWIND_PAST_COPY)
				end = on;
			break;
		}
		case SYM_FRAME_POINTER:
		case SYM_FRAME_UNKNOWN:
			break;
		}
	}
	/* where the stack still stops (here, or at a made-up frame of the walk), a bigger copy would go on */
	u->past_copy = end == SYM_UNWIND_PAST_COPY || (walk_cut && fp_tail);
	u->copy_short = sm->stack_short;
	/* a stack that ends where it ends (not where the copy did) shows its thread's callers from there */
	remember = !u->past_copy && !fp_astray;
	if (unknown_root && !outermost && u->past_copy && n > user + 1 && !fp_astray) {
		bool root_unknown;
		ssize_t completed = writer__complete_root(w, pid, sm->tid, buf, n, &root_unknown);

		if (completed < 0)
			return (int)completed;
		if (completed > 0) {
			n = (size_t)completed;
			/* a root left to the learned roots (stackroot.c) stays theirs: the marker before an entry */
			unknown_root = root_unknown;
			outermost = u->whole_stack = !root_unknown;
			u->root_of_thread = remember = true;
		}
	}
	/* (for the sample being written: the next stack is the one after it) */
	if (unknown_root && !outermost && u->past_copy && u->copy_short && user != SIZE_MAX && n > user &&
	    !fp_astray && buf == &w->frames) {
		ssize_t completed = writer_complete_later(w, pid, sm, buf, n, user);

		if (completed < 0)
			return (int)completed;
		if (completed > 0) {
			n = (size_t)completed;
			unknown_root = false;
			outermost = u->whole_stack = u->root_from_later = remember = true;
		}
	}
	if (remember && user != SIZE_MAX && !w->peeking &&
	    (ret = writer__remember_root(w, sm->tid, &buf->v[user], &buf->cfas[user], n - user, unknown_root && !outermost)) < 0)
		return ret;
	if (unknown_root && !outermost)
		buf->v[n++] = (struct sym_frame){ SYM_STOPPED_IP, false, false };
	u->n = n;
	return 0;
}

/* Whether h is a sample of the on-CPU clock, in the session's layout (not a spawn's, a -e event's, a region mark). */
static bool clock_sample(const struct recorder *r, const struct perf_event_header *h)
{
	uint64_t id;

	if (h->type != PERF_RECORD_SAMPLE)
		return false;
	id = ring_sample__id(h);
	return !event_rings__is_fork_id(r->session, id) && event_rings__custom_of(r->session, id) < 0 &&
	       event_rings__region_of(r->session, id) < 0;
}

static struct looked_ahead *looked_ahead_of(struct writer *w, pid_t pid)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)pid);
	struct looked_ahead *e;

	if (htab__reserve(&w->looked) < 0)
		return NULL;
	for (size_t i = h; (e = htab__at(&w->looked, i))->head.used; i++)
		if (e->pid == pid)
			return e;
	htab__insert(&w->looked, e, h);
	e->pid = pid;
	e->until = 0;
	return e;
}

/* Whether record h of pid changes what its addresses mean or who pid is: look_ahead stops there. */
static bool changes_process(const struct perf_event_header *h, pid_t pid)
{
	struct perf_mmap2 m;
	struct perf_comm c;
	struct perf_task t;

	switch (h->type) {
	case PERF_RECORD_MMAP2:
		perf_mmap2__decode(h, &m);
		return m.pid == pid;
	case PERF_RECORD_COMM:
		perf_comm__decode(h, &c);
		return c.pid == pid;
	case PERF_RECORD_EXIT:
		perf_task__decode(h, &t);
		return t.pid == pid && t.tid == pid;
	default:
		return false;
	}
}

/* Whether h is the exit of thread tid. */
static bool ends_thread(const struct perf_event_header *h, pid_t tid)
{
	struct perf_task t;

	if (h->type != PERF_RECORD_EXIT)
		return false;
	perf_task__decode(h, &t);
	return t.tid == tid;
}

/*
 * A stack of pid starts at a thread entry (start_thread) whose callers are
 * not known yet: they are learned from the first sample whose stack copy
 * reaches them, which may come much later, and until then the process's
 * stacks would draw as a second tower under [unwind stopped]. Its next
 * on-CPU samples are unwound until one reaches its root, whose chain is then
 * rendered, and so learned, now. Where it stopped is kept: no sample is
 * looked at twice. 1 when a sample reaching its root was found, else 0, or
 * -errno; -EAGAIN when none was found among the records that have come,
 * and others may yet come (a live recording).
 */
static int look_ahead(struct writer *w, pid_t pid)
{
	struct recorder *r = w->r;
	struct looked_ahead *mark = looked_ahead_of(w, pid);
	size_t j;
	int ret = 0;

	if (!mark)
		return -ENOMEM;
	for (j = mark->until > w->at ? mark->until : w->at + 1; j < w->visible && ret == 0; j++) {
		const struct perf_event_header *h = r->index[j].h;
		struct ring_sample sm;
		struct unwound u;
		uint64_t leaf;

		if (changes_process(h, pid))
			break;
		if (!clock_sample(r, h) || !ring_sample__decode(h, &r->layout, false, &sm) || sm.pid != pid)
			continue;
		/* taken inside an exec: the registers are the old program's */
		if (!(leaf = user_leaf(&sm)) || !symbolizer__maps(w->sym, pid, leaf))
			continue;
		if ((ret = unwind_chain(w, &sm, pid, &w->ahead, &u)) < 0)
			break;
		ret = 0;
		if (!u.n || (w->ahead.v[u.n - 1].ip == SYM_STOPPED_IP && !w->ahead.v[u.n - 1].kernel))
			continue;
		if ((ret = symbolizer__chain(w->sym, pid, w->ahead.v, u.n, w->roots, &w->ahead_stack,
					     &w->ahead_locs)) < 0)
			break;
		ret = ret & SYM_CHAIN_STOPPED ? 0 : 1;
	}
	mark->until = j;
	if (ret == 0 && j >= w->visible && w->more_to_come)
		return -EAGAIN;
	return ret;
}

/*
 * What a sample says of how big a copy its thread needs: a whole stack
 * where the stack ends, one that stopped where the copy did how far below
 * that it was taken (whichever comes first).
 */
static void measure_depth(struct writer *w, const struct unwound *u, bool stopped_past_copy)
{
	struct stack_top *t;

	if (!u->sp || !(u->whole_stack || stopped_past_copy) || !(t = writer__stack_top(w, u->tid)))
		return;
	if (u->whole_stack && u->last_cfa > t->top)
		t->top = u->last_cfa;
	else if (stopped_past_copy && (!t->deepest_stopped || u->sp < t->deepest_stopped))
		t->deepest_stopped = u->sp;
}

/* Counts what a chain's SYM_CHAIN_* flags and its unwinding say of it for the summary. */
static void count_chain(struct writer *w, const struct unwound *u, int flags, bool cut, uint64_t *past_copy,
			unsigned how)
{
	/* completed: it reaches the process's root after all */
	bool completed = flags & SYM_CHAIN_COMPLETED, stopped = (flags & SYM_CHAIN_STOPPED) && !completed;

	w->stats->recovered += u->changed;
	w->stats->roots_of_thread += u->root_of_thread;
	w->stats->roots_from_later += u->root_from_later;
	/*
	 * No unwinding that could not go on where there was nothing to unwind:
	 * counted apart, not warned of (no option would give its callers).
	 */
	if (how & CHAIN_MEMORY_GONE) {
		w->stats->offcpu_one_frame += stopped;
		stopped = false;
	}
	w->stats->unwind_stopped += stopped;
	w->stats->stopped_copy_short += stopped && u->past_copy && u->copy_short;
	if (past_copy) {
		/* (a copy the kernel cut short says nothing of how big one the thread needs) */
		bool beyond = stopped && u->past_copy && !u->copy_short;

		*past_copy += beyond;
		measure_depth(w, u, beyond);
	}
	w->stats->truncated += cut && !u->whole_stack && !u->looped && !stopped && !completed;
}

/*
 * A chain whose callers the symbolizer keeps completed: them in its cache
 * (w->callers_*), the leaf in w->stack and w->locs; their flags, or -ENOENT
 * (a leaf that may end the stack, callers not kept so: symbolizer__chain).
 */
static int cached_callers(struct writer *w, pid_t pid, const struct unwound *u)
{
	const struct sym_frame *leaf = &w->frames.v[0];
	int flags, ret;

	if (u->n < 2 || !leaf->precise || (!leaf->kernel && leaf->ip == SYM_STOPPED_IP))
		return -ENOENT;
	flags = symbolizer__cached_callers(w->sym, pid, w->frames.v, u->n, &w->callers_stack.s, &w->callers_stack.len,
					   &w->callers_locs.s, &w->callers_locs.len);
	if (flags < 0)
		return flags;
	strbuf__reset(&w->stack);
	strbuf__reset(&w->locs);
	if ((ret = symbolizer__frame(w->sym, pid, leaf->ip, leaf->kernel, leaf->precise, &w->stack, &w->locs)) < 0)
		return ret;
	w->has_callers = true;
	return flags;
}

/*
 * The frames of a sample's callchain, root first, into w->stack and w->locs.
 * cut: the kernel stopped the chain at its depth limit; it is counted as
 * truncated only when that lost real callers (not a loop, not stack data).
 * past_copy, where not NULL, counts the stacks that stopped where a stack
 * copy the kernel did not cut short ended (stopped_copy_short, those where
 * it did). how: CHAIN_MAY_WAIT, in a live recording -EAGAIN (nothing
 * counted) rather than a chain without the root records yet to come may
 * give; CHAIN_IN_PARTS, callers kept in the symbolizer's cache are left
 * there (w->has_callers), for put_sample.
 */
int writer__callchain(struct writer *w, const struct ring_sample *sm, pid_t pid, bool cut, uint64_t *past_copy,
		     unsigned how)
{
	struct unwound u;
	int ret;

	if ((ret = unwind_chain(w, sm, pid, &w->frames, &u)) < 0)
		return ret;
	if ((how & CHAIN_IN_PARTS) && (ret = cached_callers(w, pid, &u)) != -ENOENT) {
		if (ret < 0)
			return ret;
		count_chain(w, &u, ret, cut, past_copy, how);
		return 0;
	}
	ret = symbolizer__chain(w->sym, pid, w->frames.v, u.n, w->roots, &w->stack, &w->locs);
	while (ret >= 0 && ret & SYM_CHAIN_ROOT_PENDING) {
		int found = look_ahead(w, pid);

		if (found == -EAGAIN) {
			if ((how & CHAIN_MAY_WAIT) && sm->time + LIVE_ROOT_WAIT > w->settled_time)
				return -EAGAIN;
			found = 0;
		}
		if (found <= 0) {
			ret = found < 0 ? found : ret;
			break;
		}
		ret = symbolizer__chain(w->sym, pid, w->frames.v, u.n, w->roots, &w->stack, &w->locs);
	}
	if (ret < 0)
		return ret;
	count_chain(w, &u, ret, cut, past_copy, how);
	return 0;
}

/* Whether sample h shows its thread's stack where its registers say: its program's memory is there. */
static bool stack_seen(const struct writer *w, const struct perf_event_header *h)
{
	const struct recorder *r = w->r;
	struct ring_sample sm;

	if (!writer__taken_in_kernel(h))
		return true;
	/* (the others' layouts differ: they tell nothing) */
	return clock_sample(r, h) && ring_sample__decode(h, &r->layout, false, &sm) && sm.has_regs &&
	       (sm.stack_size || sm.stack_whole);
}

/*
 * Whether the exec record of t's process comes before t shows its stack
 * again. A sample taken in the kernel with nothing of the stack copied is
 * inside an execve once the new program's memory has replaced the old one's
 * (no stack where the registers say), or in a page fault on a stack page the
 * thread touches for the first time, which is not yet there to copy either.
 * The first record that tells: the exec; a sample of t in user space or with
 * some stack copied, or t's exit (a fault). What a live recording has not
 * read yet tells nothing: an exec then, as its exec record may be to come.
 */
static bool exec_comes(struct writer *w, struct thread_stat *t)
{
	const struct recorder *r = w->r;
	size_t j;

	if (w->at < t->exec_told_until)
		return t->exec_told;
	for (j = w->at + 1; j < w->visible; j++) {
		const struct perf_event_header *h = r->index[j].h;
		struct perf_comm c;

		if (h->type == PERF_RECORD_COMM) {
			perf_comm__decode(h, &c);
			if (c.exec && c.pid == t->pid)
				break;
		} else if (ends_thread(h, t->tid)) {
			break;
		} else if (h->type == PERF_RECORD_SAMPLE && perf_record__tid(h, NULL) == t->tid && stack_seen(w, h)) {
			break;
		}
	}
	if (j >= w->visible)
		return true;
	t->exec_told = r->index[j].h->type == PERF_RECORD_COMM;
	t->exec_told_until = j;
	return t->exec_told;
}

/*
 * Whether sm, a sample of thread t, was taken inside an execve. From the
 * exec record (where the new program's events start) to the new program's
 * first instruction the kernel is still loading it, and the user registers
 * are the old program's, at addresses the new one does not map: no frame
 * can be made of them. Before the exec record too, once the new program's
 * memory has replaced the old one's: the registers are still the old
 * program's, but its stack is gone, and the kernel copied nothing of it
 * (exec_comes tells that from a page fault on the stack).
 */
bool writer__inside_exec(struct writer *w, struct thread_stat *t, const struct ring_sample *sm, bool in_kernel)
{
	uint64_t leaf;

	if (in_kernel && sm->has_regs && sm->stack_size == 0 && !sm->stack_whole && exec_comes(w, t))
		return true;
	if (!t->exec_pending || !(leaf = user_leaf(sm)))
		return false;
	if (in_kernel && !symbolizer__maps(w->sym, sm->pid, leaf))
		return true;
	t->exec_pending = false;
	return false;
}

/* The stack of a sample inside an execve: EXEC_FRAME, then the kernel's frames where they were captured. */
int writer__exec_chain(struct writer *w, const struct ring_sample *sm)
{
	uint64_t first = sm->nr, end = sm->nr;
	int ret;

	for (uint64_t i = 0; i < sm->nr; i++) {
		if (sm->ips[i] < PERF_CONTEXT_MAX)
			continue;
		if (first < sm->nr) {
			end = i;
			break;
		}
		if (sm->ips[i] == PERF_CONTEXT_KERNEL)
			first = i + 1;
	}
	strbuf__reset(&w->stack);
	strbuf__reset(&w->locs);
	if ((ret = strbuf__add(&w->stack, EXEC_FRAME, sizeof(EXEC_FRAME) - 1)) < 0 ||
	    (ret = strbuf__add(&w->locs, "-", 1)) < 0)
		return ret;
	for (uint64_t i = end; i-- > first;)
		if ((ret = symbolizer__frame(w->sym, sm->pid, sm->ips[i], true, i == first, &w->stack, &w->locs)) < 0)
			return ret;
	return 0;
}

/* Whether a sample record was taken while its thread ran in the kernel. */
bool writer__taken_in_kernel(const struct perf_event_header *h)
{
	return (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

/* Whether the kernel stopped sm's chain at its depth limit (it holds a context marker besides the frames). */
bool writer__cut_at_max_stack(const struct writer *w, const struct ring_sample *sm)
{
	return w->r->max_stack > 0 && sm->nr >= (uint64_t)w->r->max_stack + 1;
}
