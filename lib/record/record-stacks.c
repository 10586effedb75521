/*
 * The stacks of a recording's records, rendered in time order, ahead of the
 * writer: what a stack's addresses name follows the records (mappings,
 * execs, forks), so one thread renders them all.
 */
#include "recorder-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpchain.h"
#include "offcpu-sampler.h"
#include "perfevent.h"
#include "stackmap.h"
#include "strbuf.h"
#include "symbolizer.h"

/* Callers CFI unwinding may add to a chain. */
enum { MAX_UNWIND = 32 };
/* records read between lettings-go of the spill file's pages: some tens of MB */
enum { RELEASE_EVERY = 16384 };
/* the root of a sample taken while the kernel loaded a program: no user code runs there */
#define EXEC_FRAME "[execve]"

struct stacker {
	struct recorder *r;
	struct symbolizer *sym;
	struct stackmap *programs;	/* executables already checked for frame pointers */
	const struct perf_event_header **fork_stacks;	/* tracepoint sample by index of the FORK */
	pid_t *execs;		/* threads that exec'd, their new program not yet seen running */
	size_t nexecs, execs_cap;
	uint64_t chain[2 * OFFCPU_MAX_STACK + 2];	/* an off-CPU record's, as perf orders one */
	struct sym_frame *frames;	/* a callchain's, reused from sample to sample */
	size_t frames_cap;
	struct strbuf stack, locs;	/* the stack being rendered, escaped lists */
	uint32_t flags;		/* its STACK_* */
	uint64_t recovered;
};

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
 * The frames of a sample's callchain, root first, into s->stack and s->locs,
 * with the caller that frame-pointer walking lost recovered from CFI. cut:
 * the kernel stopped the chain at its depth limit; it is counted as truncated
 * only when that lost real callers (not a loop, not stack data).
 */
static int callchain(struct stacker *s, const struct perf_sample *sm, pid_t pid, bool cut)
{
	bool kernel = false, first = true, changed = false, whole_stack = false, fp_astray = false, fp_tail;
	size_t n = 0, user = SIZE_MAX;
	struct sym_frame *frames;
	int ret, stopped;

	/* room for the chain, every caller unwinding may add and a marker */
	if (sm->nr + MAX_UNWIND + 1 > s->frames_cap) {
		size_t cap = sm->nr + MAX_UNWIND + 1;
		struct sym_frame *v = realloc(s->frames, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->frames = v;
		s->frames_cap = cap;
	}
	frames = s->frames;
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
		first = false;
		n++;
	}
	if (sm->has_regs && user != SIZE_MAX && frames[user].ip == sm->regs.ip && sm->stack) {
		uint64_t ras[MAX_UNWIND], known[MAX_UNWIND];
		bool outermost;
		size_t nknown = 0, k, walked = n - user - 1;
		size_t believed = fp_chain__plausible(sm->regs.sp, sm->regs.bp, sm->stack, sm->stack_size, walked);

		if (believed < walked) {
			n = user + 1 + believed;
			fp_astray = true;
		}

		for (size_t i = user + 1; i < n && nknown < MAX_UNWIND; i++)
			known[nknown++] = frames[i].ip;
		k = symbolizer__unwind(s->sym, pid, &sm->regs, sm->stack, sm->stack_size, ras, MAX_UNWIND,
				       &outermost, known, nknown);
		size_t rest = user + 1;	/* first frame-pointer frame kept after the unwound ones */

		/*
		 * The unwound callers are right; frame-pointer walking may have lost
		 * some (functions without a frame pointer) and may have gone astray.
		 * Past the last unwound caller it finds too, its chain goes on.
		 */
		if (outermost) {
			rest = n;
		} else {
			for (size_t j = k; j-- > 0 && rest == user + 1;)
				for (size_t i = user + 1; i < n; i++)
					if (frames[i].ip == ras[j]) {
						rest = i + 1;
						break;
					}
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
			for (size_t i = 0; i < k; i++)
				frames[user + 1 + i] = (struct sym_frame){ ras[i], false, false };
			n = total;
			s->recovered += changed;
			/* CFI reached the outermost frame: nothing was cut */
			whole_stack = outermost;
		}
		/* frame pointers may have taken it to the loader's first frame, which CFI cannot say */
		if (!outermost && !fp_astray && n > user + 1 && symbolizer__at_entry(s->sym, pid, frames[n - 1].ip))
			outermost = whole_stack = true;
		/*
		 * What the walk read off the stack is not kept; where nothing took
		 * the stack past CFI's last caller, that is not its root either:
		 * the stack says so.
		 */
		if ((fp_astray || !fp_tail) && !outermost)
			frames[n++] = (struct sym_frame){ SYM_STOPPED_IP, false, false };
	}
	size_t whole = n;

	n = without_loop(frames, n);
	if ((ret = symbolizer__chain(s->sym, pid, frames, n, &s->stack, &s->locs)) < 0)
		return ret;
	stopped = ret;
	/* whether it reaches the process's root is for the writer to say: see stack_text */
	s->flags = STACK_TO_COMPLETE | (stopped ? STACK_STOPPED : 0) |
		   (cut && !whole_stack && n == whole ? STACK_MAYBE_CUT : 0);
	return 0;
}

/*
 * The first user frame of sm (where its thread was interrupted or went to
 * sleep), or 0 when it has none.
 */
static uint64_t user_leaf(const struct perf_sample *sm)
{
	bool user = false;

	for (uint64_t i = 0; i < sm->nr; i++) {
		if (sm->ips[i] >= PERF_CONTEXT_MAX)
			user = sm->ips[i] == PERF_CONTEXT_USER;
		else if (user)
			return sm->ips[i];
	}
	return 0;
}

/*
 * Whether sm was taken inside an execve. From the
 * exec record (where the new program's events start) to the new program's
 * first instruction the kernel is still loading it, and the user registers
 * are the old program's, at addresses the new one does not map: no frame
 * can be made of them.
 */
static bool inside_exec(struct stacker *s, const struct perf_sample *sm, bool in_kernel)
{
	uint64_t leaf;
	size_t k = 0;

	while (k < s->nexecs && s->execs[k] != sm->tid)
		k++;
	if (k == s->nexecs || !(leaf = user_leaf(sm)))
		return false;
	if (in_kernel && !symbolizer__maps(s->sym, sm->pid, leaf))
		return true;
	s->execs[k] = s->execs[--s->nexecs];
	return false;
}

/* The stack of a sample inside an execve: EXEC_FRAME, then the kernel's frames where they were captured. */
static int exec_chain(struct stacker *s, const struct perf_sample *sm)
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
	strbuf__reset(&s->stack);
	strbuf__reset(&s->locs);
	if ((ret = strbuf__add(&s->stack, EXEC_FRAME, sizeof(EXEC_FRAME) - 1)) < 0 ||
	    (ret = strbuf__add(&s->locs, "-", 1)) < 0)
		return ret;
	for (uint64_t i = end; i-- > first;)
		if ((ret = symbolizer__frame(s->sym, sm->pid, sm->ips[i], true, i == first, &s->stack, &s->locs)) < 0)
			return ret;
	return 0;
}

/* Whether a sample record was taken while its thread ran in the kernel. */
static bool taken_in_kernel(const struct perf_event_header *h)
{
	return (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

/* Whether the kernel stopped sm's chain at its depth limit (it holds a context marker besides the frames). */
static bool cut_at_max_stack(const struct stacker *s, const struct perf_sample *sm)
{
	return s->r->max_stack > 0 && sm->nr >= (uint64_t)s->r->max_stack + 1;
}

/* Warns, once per program, about one the workload ran that seems built without frame pointers. */
static int check_frame_pointers(struct stacker *s, const char *path)
{
	struct stack_entry *seen = stackmap__add(s->programs, path, strlen(path), 0, 1);
	int share;

	if (!seen)
		return -ENOMEM;
	if (seen->count[0] > 1 || (share = symbolizer__frame_pointer_share(s->sym, path)) < 0 || share >= 50)
		return 0;
	lp_warn(s->r->o.warn, s->r->o.ctx, NULL, 0,
		"'%s' seems built without frame pointers (%d%% of its biggest functions set one "
		"up): callers beyond the stack snapshot may be missing; rebuild it with "
		"-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer", path, share);
	return 0;
}

/* Matches each FORK record with the tracepoint sample of the same child, taken in the parent. */
static int match_fork_stacks(struct stacker *s)
{
	const struct recorder *r = s->r;

	s->fork_stacks = calloc(r->n ? r->n : 1, sizeof(*s->fork_stacks));
	if (!s->fork_stacks)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		const struct perf_event_header *h = r->index[i].h;
		struct perf_sample sm;
		int32_t child;

		if (!r->index[i].fork_sample)
			continue;
		if (!perf_sample__decode(h, &r->layout, true, &sm) || sm.raw_size < r->fork_child_offset + 4)
			continue;
		memcpy(&child, sm.raw + r->fork_child_offset, 4);
		/* the FORK record is near in time: search around */
		for (size_t j = i > 256 ? i - 256 : 0; j < r->n && j < i + 256; j++) {
			struct perf_task t;

			if (r->index[j].type != PERF_RECORD_FORK)
				continue;
			perf_task__decode(r->index[j].h, &t);
			if (t.tid == child) {
				s->fork_stacks[j] = h;
				break;
			}
		}
	}
	return 0;
}

struct stacker *stacker__new(struct recorder *r)
{
	struct stacker *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->r = r;
	s->sym = symbolizer__new(r->o.warn, r->o.ctx);
	s->programs = stackmap__new();
	if (!s->sym || !s->programs || match_fork_stacks(s) < 0) {
		stacker__free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void stacker__free(struct stacker *s)
{
	if (!s)
		return;
	symbolizer__free(s->sym);
	stackmap__free(s->programs);
	free(s->fork_stacks);
	free(s->execs);
	free(s->frames);
	strbuf__release(&s->stack);
	strbuf__release(&s->locs);
	free(s);
}

void stacker__add_stats(const struct stacker *s, struct record_stats *st)
{
	st->recovered += s->recovered;
}

/* Notes that tid exec'd: until its new program is seen running, samples may hold the old one's registers. */
static int note_exec(struct stacker *s, pid_t tid)
{
	for (size_t k = 0; k < s->nexecs; k++)
		if (s->execs[k] == tid)
			return 0;
	if (s->nexecs == s->execs_cap) {
		size_t cap = s->execs_cap ? 2 * s->execs_cap : 16;
		pid_t *v = realloc(s->execs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->execs = v;
		s->execs_cap = cap;
	}
	s->execs[s->nexecs++] = tid;
	return 0;
}

static void forget_exec(struct stacker *s, pid_t tid)
{
	for (size_t k = 0; k < s->nexecs; k++)
		if (s->execs[k] == tid) {
			s->execs[k] = s->execs[--s->nexecs];
			return;
		}
}

static int sample_stack(struct stacker *s, const struct perf_event_header *h)
{
	const struct recorder *r = s->r;
	struct perf_layout layout = r->layout;
	struct perf_sample sm;
	int k = perf_session__custom_of(r->session, perf_sample__id(h));
	bool raw = false;

	if (perf_session__is_fork_id(r->session, perf_sample__id(h)))
		return 0;
	if (k >= 0) {
		/* no counter value: that is task-clock's */
		layout.read_value = false;
		layout.no_period = perf_custom__no_period(&r->o.perf.customs[k]);
		raw = r->o.events[k].kind == EVENT_TRACEPOINT;
	}
	if (!perf_sample__decode(h, &layout, raw, &sm))
		return 0;
	return inside_exec(s, &sm, taken_in_kernel(h)) ? exec_chain(s, &sm) :
	       callchain(s, &sm, sm.pid, cut_at_max_stack(s, &sm));
}

static int offcpu_stack(struct stacker *s, const struct perf_event_header *h)
{
	const uint8_t *stack;
	const uint64_t *ips;
	const struct offcpu_event *ev = offcpu_record__parts(h, &stack, &ips);
	struct perf_sample sm = {
		.time = ev->start,
		.pid = (pid_t)ev->pid,
		.tid = (pid_t)ev->tid,
		.ips = s->chain,
		.has_regs = ev->snapshot_size && ev->ip,
		.regs = { .ip = ev->ip, .sp = ev->sp, .bp = ev->bp },
		.stack = stack,
		.stack_size = ev->snapshot_size,
	};
	size_t n = 0;

	/* as perf orders a callchain: kernel frames, then user frames, leaf first */
	if (ev->nkernel) {
		s->chain[n++] = PERF_CONTEXT_KERNEL;
		memcpy(&s->chain[n], ips + ev->nuser, ev->nkernel * 8);
		n += ev->nkernel;
	}
	if (ev->nuser) {
		s->chain[n++] = PERF_CONTEXT_USER;
		memcpy(&s->chain[n], ips, ev->nuser * 8);
		n += ev->nuser;
	}
	sm.nr = n;
	/* off the CPU, a thread is in the kernel */
	return inside_exec(s, &sm, true) ? exec_chain(s, &sm) : callchain(s, &sm, sm.pid, ev->truncated);
}

/* A new thread's or process's spawning stack: its parent's at the fork, where the tracepoint gave it. */
static int fork_stack(struct stacker *s, size_t i)
{
	const struct perf_event_header *tp = s->fork_stacks[i];
	struct perf_sample sm;
	struct perf_task t;
	int ret;

	perf_task__decode(s->r->index[i].h, &t);
	if (t.pid != t.ppid && (ret = symbolizer__fork(s->sym, t.ppid, t.pid)) < 0)
		return ret;
	if (tp && perf_sample__decode(tp, &s->r->layout, true, &sm))
		return callchain(s, &sm, t.ppid, false);
	return 0;
}

static int follow_exec(struct stacker *s, size_t i)
{
	struct perf_comm c;
	const char *path;
	int ret;

	perf_comm__decode(s->r->index[i].h, &c);
	if (!c.exec)
		return 0;
	if ((ret = symbolizer__exec(s->sym, c.pid)) < 0 || (ret = note_exec(s, c.tid)) < 0)
		return ret;
	path = recorder__exec_path(s->r, i, c.pid);
	return path ? check_frame_pointers(s, path) : 0;
}

/*
 * Record i's stack into s->stack and s->locs (left empty when it has none),
 * or what it changes in how later ones are named.
 */
static int render(struct stacker *s, size_t i)
{
	const struct perf_event_header *h = s->r->index[i].h;
	struct perf_mmap2 m;
	struct perf_task t;

	strbuf__reset(&s->stack);
	strbuf__reset(&s->locs);
	s->flags = 0;
	switch (s->r->index[i].type) {
	case PERF_RECORD_SAMPLE:
		return sample_stack(s, h);
	case LP_RECORD_OFFCPU:
		return offcpu_stack(s, h);
	case PERF_RECORD_MMAP2:
		perf_mmap2__decode(h, &m);
		return symbolizer__mmap(s->sym, m.pid, m.start, m.len, m.pgoff, m.path, m.dev, m.ino);
	case PERF_RECORD_COMM:
		return follow_exec(s, i);
	case PERF_RECORD_FORK:
		return fork_stack(s, i);
	case PERF_RECORD_EXIT:
		perf_task__decode(h, &t);
		forget_exec(s, t.tid);
		return 0;
	default:
		return 0;
	}
}

int stacker__render(struct stacker *s, struct stack_chunk *c)
{
	struct recorder *r = s->r;
	int ret;

	if (c->n > c->items_cap) {
		struct stack_text *v = realloc(c->items, c->n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->items = v;
		c->items_cap = c->n;
	}
	strbuf__reset(&c->text);
	for (size_t k = 0; k < c->n; k++) {
		size_t i = c->first + k;

		/* what was read of the spill file leaves the resident set now and then; the writer follows */
		if ((i & (RELEASE_EVERY - 1)) == 0)
			recorder__release_read(r, i > STACKS_IN_FLIGHT ? i - STACKS_IN_FLIGHT : 0,
					       RELEASE_EVERY + STACKS_IN_FLIGHT);
		/* records are in time order, their memory in arrival order per CPU: fetch ahead */
		if (i + 2 < r->n) {
			const char *next = (const char *)r->index[i + 2].h;

			for (int line = 0; line < 4; line++)
				__builtin_prefetch(next + line * 64);
		}
		if ((ret = render(s, i)) < 0)
			return ret;
		c->items[k] = (struct stack_text){ c->text.len, (uint32_t)s->stack.len, (uint32_t)s->locs.len, s->flags };
		if ((s->stack.len && (ret = strbuf__add(&c->text, s->stack.s, s->stack.len)) < 0) ||
		    (s->locs.len && (ret = strbuf__add(&c->text, s->locs.s, s->locs.len)) < 0))
			return ret;
	}
	return 0;
}

void stack_chunk__release(struct stack_chunk *c)
{
	strbuf__release(&c->text);
	free(c->items);
	c->items = NULL;
	c->items_cap = 0;
}
