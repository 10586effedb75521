/*
 * Writing a recording: records in time order, symbolised (frames unwound
 * with CFI where frame pointers lose callers), handed to the stream writer.
 */
#include "recorder-int.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "fpchain.h"
#include "hash.h"
#include "lpstream.h"
#include "offcpu-sampler.h"
#include "perfevent.h"
#include "stackmap.h"
#include "stackroot.h"
#include "strbuf.h"
#include "symbolizer.h"
#include "symload.h"
#include "threadstat.h"
#include "tpfields.h"
#include "tracefs.h"

/* Callers CFI unwinding may add to a chain. */
enum { MAX_UNWIND = 32 };
/* records written between lettings-go of the spill file's pages: some tens of MB */
enum { RELEASE_EVERY = 16384 };
/* records written between looks for chunks all written: a chunk is some thousands */
enum { CHUNKS_CHECKED_EVERY = 512 };

/*
 * How long a live recording's writer waits, at most, for a sample that
 * reaches a process's root (look_ahead) before it writes one whose root is
 * not known yet, in ns: the records after it wait as long, in memory.
 */
#define LIVE_ROOT_WAIT 5000000000ull
/* how callchain may give a chain */
enum { CHAIN_MAY_WAIT = 1, CHAIN_IN_PARTS = 2 };
/* how far apart a fork's tracepoint sample and its FORK record are looked for, in records */
enum { FORK_WINDOW = 256 };
/* how many records ahead the next one to write is fetched (its header twice as far) */
enum { PREFETCH_AHEAD = 3 };
/* the root of a sample taken while the kernel loaded a program: no user code runs there */
#define EXEC_FRAME "[execve]"

static struct thread_name *name_slot(struct recorder *r, pid_t tid)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct thread_name *t;

	if (htab__reserve(&r->names) < 0)
		return NULL;
	for (size_t i = h; (t = htab__at(&r->names, i))->head.used; i++)
		if (t->tid == tid)
			return t;
	htab__insert(&r->names, t, h);
	t->tid = tid;
	return t;
}

static const char *comm_of(struct recorder *r, pid_t tid)
{
	struct thread_name *t = name_slot(r, tid);

	return t && t->comm[0] ? t->comm : "[unknown]";
}

static void set_comm(struct recorder *r, pid_t tid, const char *comm)
{
	struct thread_name *t = name_slot(r, tid);

	if (t)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* The last counter value seen per (thread, CPU): each inherited event counts for one of them. */
struct last_value {
	struct htab_entry head;
	uint64_t key, value, time;	/* the counter's value at its last sample, and that sample's time */
};

/* How a process ended: its wait status. */
struct proc_end {
	struct htab_entry head;
	pid_t pid;
	int status;
};

/* Room for a callchain's frames. */
struct frame_buf {
	struct sym_frame *v;
	size_t cap;
};

/* Where look_ahead stopped in a process's records: it goes on from there. */
struct looked_ahead {
	struct htab_entry head;
	pid_t pid;
	size_t until;
};

struct writer {
	struct stackmap *programs;	/* executables already checked for frame pointers */
	struct htab values;	/* of struct last_value: a counter's, by thread and CPU */
	struct htab ends;	/* of struct proc_end: how each process ended, where the kernel said */
	struct htab thread_ends;	/* of struct thread_end, by thread */
	struct thread_stat gone;	/* the accounts of an exited thread's late records, kept nowhere */
	struct htab clocks;	/* of struct exit_clock: task-clock totals by the index of the EXIT */
	uint64_t clocks_read;	/* the sum of them all */
	struct tp_fields *tp[RECORD_MAX_EVENTS];	/* a custom tracepoint's field decoder, or NULL */
	struct thread_stats *threads;	/* of the threads not ended yet, for their T records */
	struct recorder *r;
	struct symbolizer *sym;
	struct stack_roots *roots;	/* each process's stacks' one root */
	struct lp_writer out;
	struct strbuf stack, locs;	/* the stack being rendered, escaped lists */
	/* or its callers, in the symbolizer's cache, when has_callers: stack and locs hold the leaf then */
	struct lp_span callers_stack, callers_locs;
	bool has_callers;
	struct record_stats *stats;
	size_t *fork_samples;	/* by index of the FORK: 1 + the index of its tracepoint sample, or 0 */
	size_t fork_cap;
	/* records in their places, that may be read ahead: all, or in a live recording those settled */
	size_t visible;
	size_t collected, done;	/* a live recording's: records collected (forks, ends, clocks), written */
	uint64_t settled_time;	/* records up to it have all come */
	bool more_to_come;	/* records after the settled ones may come: look_ahead cannot tell "none" */
	uint64_t chain[2 * OFFCPU_MAX_STACK + 3];	/* an off-CPU record's, as perf orders one */
	struct frame_buf frames;	/* a callchain's, reused from sample to sample */
	struct frame_buf ahead;		/* the same for look_ahead's samples */
	struct strbuf ahead_stack, ahead_locs;
	struct htab looked;	/* of struct looked_ahead: how far look_ahead went, by process */
	size_t at;		/* the index entry being written */
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

/* A callchain as unwinding and the junction checks left it. */
struct unwound {
	size_t n;		/* frames, leaf first */
	bool changed;		/* CFI found callers frame pointers lost, or other ones */
	bool whole_stack;	/* it reaches the process's first frame */
	bool looped;		/* a frame-pointer loop was cut from its root */
	bool past_copy;		/* CFI's unwinding ended where the stack copied did */
};

/*
 * The frames of a sample's callchain into buf, leaf first, with the callers
 * that frame-pointer walking lost recovered from CFI, and SYM_STOPPED_IP as
 * the root where what is rootward is unknown.
 */
static int unwind_chain(struct writer *w, const struct perf_sample *sm, pid_t pid, struct frame_buf *buf,
			struct unwound *u)
{
	bool kernel = false, first = true, fp_astray = false, fp_tail, outermost = false, unknown_root = false;
	enum sym_unwind_end end = SYM_UNWIND_NO_RULE;
	size_t n = 0, user = SIZE_MAX;
	struct sym_frame *frames;

	*u = (struct unwound){ 0 };
	/* room for the chain, every caller unwinding may add and a marker */
	if (sm->nr + MAX_UNWIND + 1 > buf->cap) {
		size_t cap = sm->nr + MAX_UNWIND + 1;
		struct sym_frame *v = realloc(buf->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		buf->v = v;
		buf->cap = cap;
	}
	frames = buf->v;
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
		uint64_t ras[MAX_UNWIND], known[MAX_UNWIND], exact_ras;
		bool changed;
		size_t nknown = 0, k, walked = n - user - 1;
		size_t believed = fp_chain__plausible(sm->regs.sp, sm->regs.bp, sm->stack, sm->stack_size, walked);

		if (believed < walked) {
			n = user + 1 + believed;
			fp_astray = true;
		}

		for (size_t i = user + 1; i < n && nknown < MAX_UNWIND; i++)
			known[nknown++] = frames[i].ip;
		k = symbolizer__unwind(w->sym, pid, &sm->regs, sm->stack, sm->stack_size, ras, MAX_UNWIND,
				       &exact_ras, &end, known, nknown);
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
			for (size_t j = k; j-- > 0 && rest == user + 1;)
				for (size_t i = user + 1; i < n; i++)
					if (frames[i].ip == ras[j]) {
						rest = i + 1;
						break;
					}
			/*
			 * The walk never met CFI's callers: it goes on from where
			 * they end only if %rbp there can be a frame record, not
			 * where that function used it as any register.
			 */
			if (k > 0 && rest == user + 1 &&
			    symbolizer__frame_kind(w->sym, pid, ras[k - 1], exact_ras >> (k - 1) & 1) == SYM_FRAME_SCRATCH)
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
			for (size_t i = 0; i < k; i++)
				frames[user + 1 + i] = (struct sym_frame){ ras[i], false, exact_ras >> i & 1 };
			n = total;
			u->changed = changed;
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
	size_t whole = n;

	n = without_loop(frames, n);
	u->looped = n < whole;

	if (user != SIZE_MAX && !outermost && !fp_astray && n > user + 1) {
		switch (symbolizer__frame_kind(w->sym, pid, frames[n - 1].ip, frames[n - 1].precise)) {
		case SYM_FRAME_ENTRY:
			/* frame pointers took it to the loader's first frame, which CFI cannot say */
			outermost = u->whole_stack = true;
			break;
		case SYM_FRAME_NONE:
		case SYM_FRAME_SCRATCH:
			/* the walk ended in a function without a frame (gcc's cc1: all of it) */
			unknown_root = true;
			break;
		case SYM_FRAME_POINTER:
		case SYM_FRAME_UNKNOWN:
			break;
		}
	}
	if (unknown_root && !outermost)
		frames[n++] = (struct sym_frame){ SYM_STOPPED_IP, false, false };
	/* where the stack still stops (here, or at a made-up frame of the walk), a bigger copy would go on */
	u->past_copy = end == SYM_UNWIND_PAST_COPY;
	u->n = n;
	return 0;
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
		struct perf_sample sm;
		struct unwound u;
		uint64_t leaf;

		if (changes_process(h, pid))
			break;
		if (h->type != PERF_RECORD_SAMPLE || perf_session__is_fork_id(r->session, perf_sample__id(h)) ||
		    perf_session__custom_of(r->session, perf_sample__id(h)) >= 0 ||
		    !perf_sample__decode(h, &r->layout, false, &sm) || sm.pid != pid)
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

/* Counts what a chain's SYM_CHAIN_* flags and its unwinding say of it for the summary. */
static void count_chain(struct writer *w, const struct unwound *u, int flags, bool cut, uint64_t *past_copy)
{
	/* completed: it reaches the process's root after all */
	bool completed = flags & SYM_CHAIN_COMPLETED, stopped = (flags & SYM_CHAIN_STOPPED) && !completed;

	w->stats->recovered += u->changed;
	w->stats->unwind_stopped += stopped;
	if (past_copy)
		*past_copy += stopped && u->past_copy;
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
 * past_copy, where not NULL, counts the stacks that stopped where the stack
 * copy ended. how: CHAIN_MAY_WAIT, in a live recording -EAGAIN (nothing
 * counted) rather than a chain without the root records yet to come may
 * give; CHAIN_IN_PARTS, callers kept in the symbolizer's cache are left
 * there (w->has_callers), for put_sample.
 */
static int callchain(struct writer *w, const struct perf_sample *sm, pid_t pid, bool cut, uint64_t *past_copy,
		     unsigned how)
{
	struct unwound u;
	int ret;

	if ((ret = unwind_chain(w, sm, pid, &w->frames, &u)) < 0)
		return ret;
	if ((how & CHAIN_IN_PARTS) && (ret = cached_callers(w, pid, &u)) != -ENOENT) {
		if (ret < 0)
			return ret;
		count_chain(w, &u, ret, cut, past_copy);
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
	count_chain(w, &u, ret, cut, past_copy);
	return 0;
}

/*
 * Whether sm, a sample of thread t, was taken inside an execve. From the
 * exec record (where the new program's events start) to the new program's
 * first instruction the kernel is still loading it, and the user registers
 * are the old program's, at addresses the new one does not map: no frame
 * can be made of them.
 */
static bool inside_exec(struct writer *w, struct thread_stat *t, const struct perf_sample *sm, bool in_kernel)
{
	uint64_t leaf;

	if (!t->exec_pending || !(leaf = user_leaf(sm)))
		return false;
	if (in_kernel && !symbolizer__maps(w->sym, sm->pid, leaf))
		return true;
	t->exec_pending = false;
	return false;
}

/* The stack of a sample inside an execve: EXEC_FRAME, then the kernel's frames where they were captured. */
static int exec_chain(struct writer *w, const struct perf_sample *sm)
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
static bool taken_in_kernel(const struct perf_event_header *h)
{
	return (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
}

/*
 * The task-clock time a sample stands for: its counter's advance, or the
 * period. One thread's counter on one CPU cannot run faster than the clock,
 * yet after the kernel throttles and restarts it (kernel.perf_event_max_sample_rate
 * lowered below the rate asked for) its first reads can add the time since the
 * thread was last scheduled in, again and again: an advance well beyond the time
 * since the counter's previous sample is cut down to that time, and counted.
 */
static uint64_t sample_weight(struct writer *w, const struct perf_sample *sm)
{
	uint64_t key = (uint64_t)(uint32_t)sm->tid << 32 | sm->cpu, h = hash_mix(key), before, before_time, advance, elapsed;
	struct last_value *v;

	if (!sm->has_value)
		return sm->period;
	if (htab__reserve(&w->values) < 0)
		return sm->period;
	for (size_t i = h; (v = htab__at(&w->values, i))->head.used; i++)
		if (v->key == key)
			break;
	if (!v->head.used) {
		htab__insert(&w->values, v, h);
		v->key = key;
	}
	before = v->value;
	before_time = v->time;
	v->value = sm->value;
	v->time = sm->time;
	if (sm->value < before)
		return sm->period;
	advance = sm->value - before;
	if (!before_time || sm->time < before_time)
		return advance;
	elapsed = sm->time - before_time;
	/* the counter is read a little after the sample's time is taken: some slack, and far more than that */
	if (advance > elapsed + elapsed / 4 + 50000) {
		w->stats->faster_than_clock++;
		return elapsed;
	}
	return advance;
}

/* Whether the kernel stopped sm's chain at its depth limit (it holds a context marker besides the frames). */
static bool cut_at_max_stack(const struct writer *w, const struct perf_sample *sm)
{
	return w->r->max_stack > 0 && sm->nr >= (uint64_t)w->r->max_stack + 1;
}

/* An S record up to its attributes, with the stack in w->stack and w->locs. */
static int put_sample(struct writer *w, uint64_t time, pid_t pid, pid_t tid, const char *event, uint64_t weight)
{
	if (w->has_callers) {
		const struct lp_span stack[2] = { w->callers_stack, lp_span__of(&w->stack) };
		const struct lp_span locs[2] = { w->callers_locs, lp_span__of(&w->locs) };

		w->has_callers = false;
		return lp_writer__sample_parts(&w->out, time, pid, tid, comm_of(w->r, tid), event, weight, stack, locs);
	}
	return lp_writer__sample(&w->out, time, pid, tid, comm_of(w->r, tid), event, weight, lp_span__of(&w->stack),
				 lp_span__of(&w->locs));
}

/*
 * A thread's end: as the off-CPU program saw it (the last, if its number
 * came back), with its exact on-CPU time for the summary its EXIT record
 * writes, which may come just before it in time; and whether that EXIT
 * record was written (until the number comes back in a FORK).
 */
struct thread_end {
	struct htab_entry head;
	pid_t tid;
	size_t at;		/* the off-CPU program's end: its index entry */
	uint64_t cpu;
	bool has_end, taken;	/* taken by the EXIT record's summary */
	bool exited;
};

static struct thread_end *thread_end_of(struct writer *w, pid_t tid, bool add)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct thread_end *e;

	if (add && htab__reserve(&w->thread_ends) < 0)
		return NULL;
	if (!add && !w->thread_ends.n)
		return NULL;
	for (size_t j = h; (e = htab__at(&w->thread_ends, j))->head.used; j++)
		if (e->head.hash == h && e->tid == tid)
			return e;
	if (!add)
		return NULL;
	htab__insert(&w->thread_ends, e, h);
	*e = (struct thread_end){ .head = e->head, .tid = tid };
	return e;
}

/*
 * tid's accounts, started at time when first seen; NULL when out of memory.
 * A thread that exited has its summary written: what comes after (its last
 * switch away, as it dies) is counted nowhere, not as a thread of its own.
 */
static struct thread_stat *account(struct writer *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct thread_stat *t = thread_stats__get(w->threads, pid, tid);
	const struct thread_end *e;

	if (t && !t->has_start) {
		if ((e = thread_end_of(w, tid, false)) && e->exited) {
			thread_stats__remove(w->threads, tid);
			memset(&w->gone, 0, sizeof(w->gone));
			return &w->gone;
		}
		t->start = time;
		t->has_start = true;
	}
	return t;
}

static int write_sample(struct writer *w, const struct perf_event_header *h)
{
	struct thread_stat *t;
	struct perf_sample sm;
	uint64_t weight;
	int ret;

	if (!perf_sample__decode(h, &w->r->layout, false, &sm))
		return 0;
	/* (all of it again when a live recording's writer waits for the root: -EAGAIN) */
	if (!(t = account(w, sm.pid, sm.tid, sm.time)))
		return -ENOMEM;
	ret = inside_exec(w, t, &sm, taken_in_kernel(h)) ? exec_chain(w, &sm) :
	      callchain(w, &sm, sm.pid, cut_at_max_stack(w, &sm), &w->stats->stopped_past_copy,
			CHAIN_MAY_WAIT | CHAIN_IN_PARTS);
	if (ret < 0)
		return ret;
	weight = sample_weight(w, &sm);
	w->stats->samples++;
	t->sampled_cpu += weight;
	if ((ret = put_sample(w, sm.time, sm.pid, sm.tid, "cpu", weight)) < 0 ||
	    (ret = lp_writer__attr_u64(&w->out, "cpu", sm.cpu)) < 0)
		return ret;
	return lp_writer__end(&w->out);
}

static int put_tp_field(void *ctx, const char *key, const char *value)
{
	struct writer *w = ctx;
	char renamed[128];

	/* the sample's own cpu= comes first */
	if (strcmp(key, "cpu") == 0) {
		snprintf(renamed, sizeof(renamed), "tp_%s", key);
		key = renamed;
	}
	return lp_writer__attr_str(&w->out, key, value);
}

/* The field decoders of the custom tracepoints; one without is a warning, and its samples go without fields. */
static int load_tp_fields(struct writer *w)
{
	const struct recorder *r = w->r;
	const char *dir = NULL;
	struct lp_error err = { 0 };

	for (size_t k = 0; k < r->o.nevents && k < RECORD_MAX_EVENTS; k++) {
		const struct event_spec *e = &r->o.events[k];
		size_t len;
		char *text;

		if (e->kind != EVENT_TRACEPOINT)
			continue;
		if (!dir && !(dir = tracefs__dir()))
			return 0;
		text = tracefs__event_format(dir, e->tp_system, e->tp_name, &len);
		if (!text) {
			if (errno == ENOMEM)
				return -ENOMEM;
			lp_warn(r->o.warn, r->o.ctx, NULL, 0, "cannot read the format of tracepoint '%s': its "
				"fields are left out", e->name);
			continue;
		}
		w->tp[k] = tp_fields__new(text, len, e->tp_system, &err);
		free(text);
		if (!w->tp[k]) {
			if (errno == ENOMEM)
				return -ENOMEM;
			lp_warn(r->o.warn, r->o.ctx, NULL, 0, "%s: its fields are left out", err.msg);
		}
	}
	return 0;
}

/* A sample of a custom event: weighed by its period, in the event's unit. */
static int write_custom(struct writer *w, const struct perf_event_header *h, size_t k)
{
	const struct event_spec *e = &w->r->o.events[k];
	struct perf_layout layout = w->r->layout;
	struct thread_stat *t;
	struct perf_sample sm;
	int ret;

	/* no counter value: that is task-clock's */
	layout.read_value = false;
	layout.no_period = perf_custom__no_period(&w->r->o.perf.customs[k]);
	if (!perf_sample__decode(h, &layout, e->kind == EVENT_TRACEPOINT, &sm))
		return 0;
	if (layout.no_period)
		sm.period = e->period;
	if (!(t = account(w, sm.pid, sm.tid, sm.time)))
		return -ENOMEM;
	ret = inside_exec(w, t, &sm, taken_in_kernel(h)) ? exec_chain(w, &sm) :
	      callchain(w, &sm, sm.pid, cut_at_max_stack(w, &sm), NULL, 0);
	if (ret < 0)
		return ret;
	if (k < RECORD_MAX_EVENTS)
		w->stats->custom_samples[k]++;
	if ((ret = put_sample(w, sm.time, sm.pid, sm.tid, e->key, sm.period)) < 0 ||
	    (ret = lp_writer__attr_u64(&w->out, "cpu", sm.cpu)) < 0)
		return ret;
	/* a record the format does not describe keeps what could be read of it */
	if (k < RECORD_MAX_EVENTS && w->tp[k] && sm.raw &&
	    (ret = tp_fields__each(w->tp[k], sm.raw, sm.raw_size, put_tp_field, w)) < 0 && ret != -EPROTO)
		return ret;
	return lp_writer__end(&w->out);
}

static int write_offcpu(struct writer *w, const struct perf_event_header *h)
{
	const uint8_t *stack;
	const uint64_t *ips;
	const struct offcpu_event *ev = offcpu_record__parts(h, &stack, &ips);
	struct perf_sample sm = {
		.time = ev->start,
		.pid = (pid_t)ev->pid,
		.tid = (pid_t)ev->tid,
		.ips = w->chain,
		.has_regs = ev->snapshot_size && ev->ip,
		.regs = { .ip = ev->ip, .sp = ev->sp, .bp = ev->bp, .link = ev->link },
		.stack = stack,
		.stack_size = ev->snapshot_size,
	};
	char state[2] = { ev->state >= 'A' && ev->state <= 'z' ? ev->state : '?', 0 };
	struct thread_stat *t;
	size_t n = 0;
	int ret;

	/* as perf orders a callchain: kernel frames, then user frames, leaf first */
	if (ev->nkernel) {
		w->chain[n++] = PERF_CONTEXT_KERNEL;
		memcpy(&w->chain[n], ips + ev->nuser, ev->nkernel * 8);
		n += ev->nkernel;
	}
	if (ev->nuser) {
		w->chain[n++] = PERF_CONTEXT_USER;
		memcpy(&w->chain[n], ips, ev->nuser * 8);
		n += ev->nuser;
		/* its callers were not read: the stack says so */
		if (ev->truncated == OFFCPU_CALLERS_UNKNOWN)
			w->chain[n++] = SYM_STOPPED_IP;
	}
	sm.nr = n;
	if (!(t = account(w, sm.pid, sm.tid, ev->start)))
		return -ENOMEM;
	/* off the CPU, a thread is in the kernel */
	ret = inside_exec(w, t, &sm, true) ? exec_chain(w, &sm) : callchain(w, &sm, sm.pid, ev->truncated == 1, NULL, 0);
	if (ret < 0)
		return ret;
	w->stats->offcpu_samples++;
	w->stats->offcpu_ns += ev->weight;
	t->sampled_offcpu += ev->weight;
	if ((ret = put_sample(w, ev->start, sm.pid, sm.tid, "offcpu", ev->weight)) < 0 ||
	    (ret = lp_writer__attr_u64(&w->out, "dur", ev->end - ev->start)) < 0 ||
	    (ret = lp_writer__attr_str(&w->out, "state", state)) < 0)
		return ret;
	return lp_writer__end(&w->out);
}

/* The path of the program pid execs: its first file mapping after the exec. */
static const char *exec_path(struct recorder *r, size_t from, pid_t pid)
{
	for (size_t i = from + 1; i < r->n && i < from + 64; i++) {
		const struct perf_event_header *h = r->index[i].h;
		struct perf_mmap2 m;

		if (h->type != PERF_RECORD_MMAP2)
			continue;
		perf_mmap2__decode(h, &m);
		if (m.pid == pid)
			return m.path;
	}
	return NULL;
}

/* Warns, once per program, about one the workload ran that seems built without frame pointers. */
static int check_frame_pointers(struct writer *w, const char *path)
{
	struct stack_entry *seen = stackmap__add(w->programs, path, strlen(path), 0, 1);
	int share;

	if (!seen)
		return -ENOMEM;
	if (seen->count[0] > 1 || (share = symbolizer__frame_pointer_share(w->sym, path)) < 0 || share >= 50)
		return 0;
	lp_warn(w->r->o.warn, w->r->o.ctx, NULL, 0,
		"'%s' seems built without frame pointers (%d%% of its biggest functions set one "
		"up): callers beyond the stack snapshot may be missing; rebuild it with "
		"-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer", path, share);
	return 0;
}

/* The wait status of pid, from the kernel (the off-CPU program) or from waiting for the command. */
static bool exit_status(const struct writer *w, pid_t pid, int *status)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)pid);
	const struct proc_end *e;

	for (size_t i = h; w->ends.n && (e = htab__at(&w->ends, i))->head.used; i++)
		if (e->head.hash == h && e->pid == pid) {
			*status = e->status;
			return true;
		}
	if (pid == w->r->child && w->r->exited) {
		*status = w->r->wait_status;
		return true;
	}
	return false;
}

/* The task-clock totals (inherit_stat) a thread's exit gave, by the index of its EXIT record. */
struct exit_clock {
	struct htab_entry head;
	size_t exit;
	uint64_t total;
};

/* How far back from a PERF_RECORD_READ its thread's EXIT record is looked for. */
enum { EXIT_READ_WINDOW = 512 };

/*
 * Adds each PERF_RECORD_READ (one per CPU's counter, as the thread exits,
 * just after its EXIT record) to that EXIT's total.
 */
static int collect_clocks(struct writer *w, size_t from, size_t to)
{
	const struct recorder *r = w->r;

	for (size_t i = from; i < to; i++) {
		struct perf_read rd;
		struct perf_task t;
		struct exit_clock *e;
		size_t j = i;

		if (r->index[i].type != PERF_RECORD_READ || !perf_read__decode(r->index[i].h, &rd))
			continue;
		while (j-- > 0 && i - j < EXIT_READ_WINDOW) {
			if (r->index[j].type != PERF_RECORD_EXIT)
				continue;
			perf_task__decode(r->index[j].h, &t);
			if (t.tid == rd.tid)
				break;
		}
		if (j == SIZE_MAX || i - j >= EXIT_READ_WINDOW)
			continue;
		if (htab__reserve(&w->clocks) < 0)
			return -ENOMEM;
		uint64_t h = hash_mix(j);

		for (size_t k = h; (e = htab__at(&w->clocks, k))->head.used; k++)
			if (e->head.hash == h && e->exit == j)
				break;
		if (!e->head.used) {
			htab__insert(&w->clocks, e, h);
			e->exit = j;
			e->total = 0;
		}
		e->total += rd.value;
		w->clocks_read += rd.value;
	}
	return 0;
}

static bool exit_clock(const struct writer *w, size_t exit, uint64_t *total)
{
	uint64_t h = hash_mix(exit);
	const struct exit_clock *e;

	for (size_t k = h; w->clocks.n && (e = htab__at(&w->clocks, k))->head.used; k++)
		if (e->head.hash == h && e->exit == exit) {
			*total = e->total;
			return true;
		}
	return false;
}

/* Collects the processes' and threads' ends the off-CPU program reported. */
static int collect_ends(struct writer *w, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct offcpu_event *ev;
		uint64_t hash;
		struct proc_end *e;

		if (w->r->index[i].type != LP_RECORD_PROC_END)
			continue;
		ev = (const struct offcpu_event *)(w->r->index[i].h + 1);
		hash = hash_mix((uint64_t)ev->pid);
		if (htab__reserve(&w->ends) < 0)
			return -ENOMEM;
		for (size_t j = hash; (e = htab__at(&w->ends, j))->head.used; j++)
			if (e->head.hash == hash && e->pid == (pid_t)ev->pid)
				break;
		if (!e->head.used)
			htab__insert(&w->ends, e, hash);
		e->pid = (pid_t)ev->pid;
		e->status = (int)ev->weight;

		struct thread_end *t = thread_end_of(w, (pid_t)ev->tid, true);

		if (!t)
			return -ENOMEM;
		t->at = i;
		t->cpu = ev->end;
		t->has_end = true;
	}
	return 0;
}

/* The exact on-CPU time of the thread whose EXIT is index entry exit, from its end near it. */
static bool exact_at_exit(struct writer *w, pid_t tid, size_t exit, uint64_t *cpu)
{
	struct thread_end *e = thread_end_of(w, tid, false);

	if (!e || !e->has_end || e->taken || (e->at > exit ? e->at - exit : exit - e->at) >= EXIT_READ_WINDOW)
		return false;
	e->taken = true;
	*cpu = e->cpu;
	return true;
}

/* A process's exit record says how it ended: status=N, or signal=SIGNAME when a signal killed it. */
static int put_exit_status(struct writer *w, int status)
{
	char name[32];
	const char *abbrev;

	if (WIFSIGNALED(status)) {
		abbrev = sigabbrev_np(WTERMSIG(status));
		if (abbrev)
			snprintf(name, sizeof(name), "SIG%s", abbrev);
		else
			snprintf(name, sizeof(name), "%d", WTERMSIG(status));
		return lp_writer__attr_str(&w->out, "signal", name);
	}
	return lp_writer__attr_u64(&w->out, "status", (uint64_t)WEXITSTATUS(status));
}

static int write_comm(struct writer *w, size_t i, uint64_t time)
{
	struct perf_comm c;
	const char *path;
	int ret;

	perf_comm__decode(w->r->index[i].h, &c);
	path = c.exec ? exec_path(w->r, i, c.pid) : NULL;
	set_comm(w->r, c.tid, c.comm);
	if (c.exec && (ret = symbolizer__exec(w->sym, c.pid)) < 0)
		return ret;
	if (c.exec) {
		struct thread_stat *t = account(w, c.pid, c.tid, time);

		if (!t)
			return -ENOMEM;
		stack_roots__forget(w->roots, c.pid);
		t->exec_pending = true;
	}
	if (path && (ret = check_frame_pointers(w, path)) < 0)
		return ret;
	if ((ret = lp_writer__proc(&w->out, time, c.pid, c.tid, c.exec ? LP_PROC_EXEC : LP_PROC_COMM, c.comm)) < 0 ||
	    (path && (ret = lp_writer__exec_path(&w->out, path)) < 0))
		return ret;
	return lp_writer__end(&w->out);
}

static int write_fork(struct writer *w, size_t i, uint64_t time)
{
	struct recorder *r = w->r;
	const struct perf_event_header *tp = w->fork_samples[i] ? r->index[w->fork_samples[i] - 1].h : NULL;
	struct thread_end *e;
	struct perf_sample sm;
	struct perf_task t;
	int ret;

	perf_task__decode(r->index[i].h, &t);
	set_comm(r, t.tid, comm_of(r, t.ptid));
	if ((e = thread_end_of(w, t.tid, false)))
		e->exited = false;
	if (!account(w, t.pid, t.tid, time))
		return -ENOMEM;
	if (t.pid != t.ppid) {
		w->stats->processes++;
		if ((ret = symbolizer__fork(w->sym, t.ppid, t.pid)) < 0)
			return ret;
	} else {
		w->stats->threads++;
	}
	strbuf__reset(&w->stack);
	strbuf__reset(&w->locs);
	if (tp && perf_sample__decode(tp, &r->layout, true, &sm) && (ret = callchain(w, &sm, t.ppid, false, NULL, 0)) < 0)
		return ret;
	if ((ret = lp_writer__proc(&w->out, time, t.pid, t.tid, LP_PROC_SPAWN, comm_of(r, t.tid))) < 0 ||
	    (ret = lp_writer__spawn_parent(&w->out, t.ppid, t.ptid, lp_span__of(&w->stack), lp_span__of(&w->locs))) < 0)
		return ret;
	return lp_writer__end(&w->out);
}

/*
 * What of a thread's exact on-CPU time no sample stands for, as a sample of
 * its own: a program that runs a millisecond between fork and exit is
 * seldom sampled at 999 Hz (its counter starts a whole period from its
 * first sample), and a shell loop of them is mostly such time.
 */
static int write_unsampled(struct writer *w, const struct thread_stat *t, uint64_t time)
{
	uint64_t rest = t->cpu - t->sampled_cpu;
	int ret = lp_writer__sample(&w->out, time, t->pid, t->tid, comm_of(w->r, t->tid), "cpu", rest,
				    LP_SPAN(SYM_NOT_SAMPLED), LP_SPAN(""));

	w->stats->unsampled_ns += rest;
	w->stats->unsampled_threads += !t->sampled_cpu;
	return ret ?: lp_writer__attr_str(&w->out, "unsampled", "1") ?: lp_writer__end(&w->out);
}

/*
 * A thread's T record: start, end (when it ended), its exact on-CPU time where
 * the kernel said, and what the samples say; then, when the two disagree by
 * more than the tolerance, a #lp.warning naming it.
 */
static int write_thread(struct writer *w, const struct thread_stat *thread, uint64_t time, bool ended)
{
	struct thread_stat s = *thread, *t = &s;
	const char *comm = comm_of(w->r, t->tid);
	char text[256];
	const char *v[1] = { text };
	int ret;

	/*
	 * Without the off-CPU program's figure, task-clock's totals are as
	 * exact; the command's main thread gave none as it exited: its own is
	 * what the whole tree's total does not owe to the others.
	 */
	if (!t->has_cpu && t->has_clock) {
		t->cpu = t->clock;
		t->has_cpu = true;
	} else if (!t->has_cpu && t->tid == w->r->child && w->r->clock_total >= w->clocks_read && w->r->clock_total) {
		t->cpu = w->r->clock_total - w->clocks_read;
		t->has_cpu = true;
	}
	/* a thread that ran before it was attached to: its time since (-p, -a) */
	if (t->has_cpu)
		t->cpu -= recorder__cpu_before(w->r, t->tid, t->cpu);
	if (perf_opts__samples(&w->r->o.perf) && t->has_cpu && t->cpu > t->sampled_cpu &&
	    (ret = write_unsampled(w, t, time)) < 0)
		return ret;
	if ((ret = lp_writer__thread(&w->out, time, t->pid, t->tid, comm)) < 0 ||
	    (t->has_start && (ret = lp_writer__attr_u64(&w->out, "start", t->start)) < 0) ||
	    (ended && (ret = lp_writer__attr_u64(&w->out, "end", time)) < 0) ||
	    (t->has_cpu && (ret = lp_writer__attr_u64(&w->out, "cpu", t->cpu)) < 0) ||
	    (perf_opts__samples(&w->r->o.perf) && (ret = lp_writer__attr_u64(&w->out, "sampled-cpu", t->sampled_cpu)) < 0) ||
	    (w->r->offcpu && (ret = lp_writer__attr_u64(&w->out, "sampled-offcpu", t->sampled_offcpu)) < 0) ||
	    (ret = lp_writer__end(&w->out)) < 0)
		return ret;
	/* a thread's first 100 ms are too few samples to judge */
	if (!perf_opts__samples(&w->r->o.perf) || !thread_stat__strays(t, w->r->o.time_tolerance, 100000000))
		return 0;
	snprintf(text, sizeof(text), "thread %s (pid %d, tid %d): sampled on-CPU time %.3f s, exact %.3f s",
		 comm, (int)t->pid, (int)t->tid, (double)t->sampled_cpu / 1e9, (double)t->cpu / 1e9);
	if (!w->stats->strayed_threads++)
		snprintf(w->stats->first_strayed, sizeof(w->stats->first_strayed), "%s", text);
	return lp_writer__meta(&w->out, "warning", v, 1);
}

static int write_record(struct writer *w, size_t i)
{
	struct recorder *r = w->r;
	const struct perf_event_header *h = r->index[i].h;
	uint64_t time = r->index[i].time;
	struct perf_mmap2 m;
	struct perf_task t;
	int ret, status;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (perf_session__is_fork_id(r->session, perf_sample__id(h)))
			return 0;
		if ((ret = perf_session__custom_of(r->session, perf_sample__id(h))) >= 0)
			return write_custom(w, h, (size_t)ret);
		return write_sample(w, h);
	case LP_RECORD_OFFCPU:
		return write_offcpu(w, h);
	case PERF_RECORD_MMAP2:
		perf_mmap2__decode(h, &m);
		return symbolizer__mmap(w->sym, m.pid, m.start, m.len, m.pgoff, m.path, m.dev, m.ino);
	case PERF_RECORD_COMM:
		return write_comm(w, i, time);
	case PERF_RECORD_FORK:
		return write_fork(w, i, time);
	case LP_RECORD_PROC_END: {
		const struct offcpu_event *ev = (const struct offcpu_event *)(h + 1);
		const struct thread_end *e = thread_end_of(w, (pid_t)ev->tid, false);
		struct thread_stat *ts;

		/* its summary was written with it already, at its EXIT just before */
		if (e && e->taken && e->at == i)
			return 0;
		if (!(ts = account(w, (pid_t)ev->pid, (pid_t)ev->tid, time)))
			return -ENOMEM;
		ts->cpu = ev->end;
		ts->has_cpu = true;
		return 0;
	}
	case PERF_RECORD_EXIT: {
		struct thread_end *e;
		struct thread_stat *ts;

		perf_task__decode(h, &t);
		if (t.pid == t.tid)
			stack_roots__forget(w->roots, t.pid);
		if ((ret = lp_writer__proc(&w->out, time, t.pid, t.tid, LP_PROC_EXIT, comm_of(r, t.tid))) < 0 ||
		    (t.pid == t.tid && exit_status(w, t.pid, &status) && (ret = put_exit_status(w, status)) < 0) ||
		    (ret = lp_writer__end(&w->out)) < 0)
			return ret;
		/* then its summary, with the task-clock totals its exit gave and the exact time its end did */
		if ((ts = thread_stats__find(w->threads, t.tid)) && exit_clock(w, i, &ts->clock))
			ts->has_clock = true;
		if (ts && exact_at_exit(w, t.tid, i, &ts->cpu))
			ts->has_cpu = true;
		if (ts) {
			ret = write_thread(w, ts, time, true);
			thread_stats__remove(w->threads, t.tid);
			if (ret < 0)
				return ret;
		}
		if (!(e = thread_end_of(w, t.tid, true)))
			return -ENOMEM;
		e->exited = true;
		return 0;
	}
	case PERF_RECORD_THROTTLE:
		w->stats->throttled++;
		return 0;
	default:
		return 0;
	}
}

/* The summaries of the threads still alive when recording ended (attached, or system-wide). */
static int write_living_threads(struct writer *w)
{
	struct thread_stat *t;
	int ret = 0;

	for (size_t i = 0; ret == 0 && (t = thread_stats__next(w->threads, &i));) {
		if (!t->has_cpu)
			t->has_cpu = thread_cpu_so_far(t->pid, t->tid, &t->cpu);
		ret = write_thread(w, t, w->r->end_ns, false);
	}
	return ret;
}

/* Matches each FORK record of from..to with the tracepoint sample of the same child, taken in the parent. */
static int match_fork_stacks(struct writer *w, size_t from, size_t to)
{
	struct recorder *r = w->r;

	if (w->fork_cap < r->n) {
		/* most of it is pages never touched (the FORKs are found by the index), which a copy would fault in */
		size_t cap = r->cap > r->n ? r->cap : r->n;
		size_t *v = w->fork_cap ? realloc(w->fork_samples, cap * sizeof(*v)) : calloc(cap ? cap : 1, sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (w->fork_cap)
			memset(v + w->fork_cap, 0, (cap - w->fork_cap) * sizeof(*v));
		w->fork_samples = v;
		w->fork_cap = cap;
	}
	for (size_t i = from; i < to; i++) {
		const struct perf_event_header *h = r->index[i].h;
		struct perf_sample sm;
		int32_t child;

		if (!r->index[i].fork_sample)
			continue;
		if (!perf_sample__decode(h, &r->layout, true, &sm) || sm.raw_size < r->fork_child_offset + 4)
			continue;
		memcpy(&child, sm.raw + r->fork_child_offset, 4);
		/* the FORK record is near in time: search around */
		for (size_t j = i > FORK_WINDOW ? i - FORK_WINDOW : 0; j < w->visible && j < i + FORK_WINDOW; j++) {
			struct perf_task t;

			if (r->index[j].type != PERF_RECORD_FORK)
				continue;
			perf_task__decode(r->index[j].h, &t);
			if (t.tid == child) {
				w->fork_samples[j] = i + 1;
				break;
			}
		}
	}
	return 0;
}


/*
 * What the kernel lost of each event and the rate it sampled at: the end of
 * the header, or of a live recording's stream (known once recording ended).
 */
static int write_counts(struct recorder *r, struct lp_writer *out, const struct record_stats *st)
{
	char buf[64];
	const char *v[2];
	int ret = 0;

	if (perf_opts__samples(&r->o.perf)) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->lost);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_writer__meta(out, "lost", v, 2);
	}
	if (ret == 0 && r->offcpu) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->offcpu_drops);
		v[0] = "offcpu";
		v[1] = buf;
		ret = lp_writer__meta(out, "lost", v, 2);
	}
	for (size_t k = 0; ret == 0 && k < r->o.nevents; k++) {
		snprintf(buf, sizeof(buf), "%" PRIu64, k < RECORD_MAX_EVENTS ? st->custom_lost[k] : 0);
		v[0] = r->o.events[k].key;
		v[1] = buf;
		ret = lp_writer__meta(out, "lost", v, 2);
		if (ret == 0 && k < RECORD_MAX_EVENTS && st->custom_doubt[k][0]) {
			v[0] = st->custom_doubt[k];
			ret = lp_writer__meta(out, "warning", v, 1);
		}
	}
	if (ret == 0 && perf_opts__samples(&r->o.perf)) {
		snprintf(buf, sizeof(buf), "%.0f", st->achieved_hz);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_writer__meta(out, "achieved-hz", v, 2);
	}
	return ret;
}

/* The stream's header; its counts (write_counts) at its end, or in a live recording's trailer. */
static int write_header(struct recorder *r, struct lp_writer *out, const struct record_stats *st, bool live)
{
	struct utsname u;
	char buf[64];
	const char *v[3];
	int ret = 0;

	if (r->o.argv) {
		size_t n = 0;

		while (r->o.argv[n])
			n++;
		ret = lp_writer__meta(out, "command", (const char *const *)r->o.argv, n);
	}
	if (ret == 0 && uname(&u) == 0) {
		v[0] = u.nodename;
		ret = lp_writer__meta(out, "host", v, 1);
		if (ret == 0 && r->o.rank) {
			v[0] = r->o.rank;
			ret = lp_writer__meta(out, "rank", v, 1);
		}
		if (ret == 0 && r->o.job) {
			v[0] = r->o.job;
			ret = lp_writer__meta(out, "job", v, 1);
		}
		v[0] = u.release;
		if (ret == 0)
			ret = lp_writer__meta(out, "kernel", v, 1);
		v[0] = u.machine;
		if (ret == 0)
			ret = lp_writer__meta(out, "arch", v, 1);
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, r->start_ns);
	v[0] = buf;
	if (ret == 0)
		ret = lp_writer__meta(out, "start", v, 1);
	snprintf(buf, sizeof(buf), "%" PRIu64, r->start_realtime_ns);
	if (ret == 0)
		ret = lp_writer__meta(out, "realtime", v, 1);
	if (ret == 0 && perf_opts__samples(&r->o.perf)) {
		char mode[64];

		v[0] = "cpu";
		v[1] = r->o.perf.system_wide ? "cpu-clock" : "task-clock";
		if (r->o.perf.freq)
			snprintf(mode, sizeof(mode), "freq=%" PRIu64, r->o.perf.freq);
		else
			snprintf(mode, sizeof(mode), "period=%" PRIu64, r->o.perf.period);
		v[2] = mode;
		ret = lp_writer__meta(out, "sampling", v, 3);
	}
	if (ret == 0 && r->offcpu) {
		char mode[64];

		if (r->o.offcpu_opts.freq > 0)
			snprintf(mode, sizeof(mode), "freq=%" PRId64, r->o.offcpu_opts.freq);
		else
			snprintf(mode, sizeof(mode), "every-interval");
		v[0] = "offcpu";
		v[1] = "sched_switch";
		v[2] = mode;
		ret = lp_writer__meta(out, "sampling", v, 3);
	}
	for (size_t k = 0; ret == 0 && k < r->o.nevents; k++) {
		const struct event_spec *e = &r->o.events[k];
		const char *d[5] = { e->key, e->name, buf, e->title, e->unit };

		snprintf(buf, sizeof(buf), "%" PRIu64, e->period);
		ret = lp_writer__meta(out, "event", d, 5);
	}
	if (ret == 0 && !live)
		ret = write_counts(r, out, st);
	return ret;
}

/* What is known only once every stack is unwound, then the stream's last line. */
static int write_trailer(struct lp_writer *out, const struct record_stats *st)
{
	char buf[24];
	const char *v[2] = { "cpu", buf };
	int ret = 0;

	if (st->truncated) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->truncated);
		ret = lp_writer__meta(out, "truncated", v, 2);
	}
	if (ret == 0 && st->unwind_stopped) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->unwind_stopped);
		v[0] = buf;
		ret = lp_writer__meta(out, "unwind-stopped", v, 1);
	}
	return ret ?: lp_writer__trailer(out);
}

/*
 * Whether the stream is better written by a thread of its own: into a pipe,
 * whose writes wait for its reader (a fifth of the phase into lp-svg), with
 * a CPU for that thread. Into a file, or on one CPU, handing batches over
 * costs as much as it saves.
 */
static bool write_beside(FILE *out)
{
	struct stat st;
	cpu_set_t cpus;

	return fstat(fileno(out), &st) == 0 && S_ISFIFO(st.st_mode) &&
	       sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 1;
}

/* The losses and rates the kernel's counts give, known once recording ended. */
static void count_losses(struct recorder *r, struct record_stats *stats)
{
	stats->offcpu_drops = r->offcpu_drops;
	stats->lost = perf_session__lost(r->session, PERF_SESSION_CLOCK);
	stats->task_records_lost = perf_session__lost(r->session, PERF_SESSION_LIFE);
	/* counts a PMU shared with other events, or made up, are not data: say so */
	for (size_t k = 0; k < r->o.nevents && k < RECORD_MAX_EVENTS; k++) {
		const typeof(r->custom_times[0]) *t = &r->custom_times[k];

		stats->custom_lost[k] = perf_session__lost(r->session, (int)k);
		if (t->known)
			event_counts__doubt(r->o.events[k].name, t->value, t->enabled, t->running,
					    stats->custom_doubt[k], sizeof(stats->custom_doubt[k]));
	}
	/*
	 * Samples kept per second of the command's CPU time; lost ones are not
	 * there to count. Attached to a process, whose CPU time is not known,
	 * per second of the time the kept samples stand for.
	 */
	if (r->child_cpu_ns && !r->o.perf.system_wide)
		stats->achieved_hz = r->counts.samples / (r->child_cpu_ns / 1e9);
	else if (r->counts.sample_ns)
		stats->achieved_hz = r->counts.samples / (r->counts.sample_ns / 1e9);
}

static void writer_free(struct writer *w)
{
	if (!w)
		return;
	symbolizer__free(w->sym);
	stack_roots__free(w->roots);
	thread_stats__free(w->threads);
	stackmap__free(w->programs);
	free(w->fork_samples);
	free(w->frames.v);
	free(w->ahead.v);
	htab__release(&w->looked);
	strbuf__release(&w->ahead_stack);
	strbuf__release(&w->ahead_locs);
	htab__release(&w->values);
	htab__release(&w->ends);
	htab__release(&w->thread_ends);
	htab__release(&w->clocks);
	for (size_t k = 0; k < RECORD_MAX_EVENTS; k++)
		tp_fields__free(w->tp[k]);
	strbuf__release(&w->stack);
	strbuf__release(&w->locs);
	lp_writer__release(&w->out);
	free(w);
}

/* A writer of r's stream to out, with the symbolizer the loader read into (or a new one); NULL+errno. */
static struct writer *writer_new(struct recorder *r, FILE *out, struct record_stats *stats)
{
	struct writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->r = r;
	w->stats = stats;
	w->values = HTAB_INIT(struct last_value);
	w->ends = HTAB_INIT(struct proc_end);
	w->thread_ends = HTAB_INIT(struct thread_end);
	w->clocks = HTAB_INIT(struct exit_clock);
	w->looked = HTAB_INIT(struct looked_ahead);
	lp_writer__init(&w->out, out);
	lp_writer__batch(&w->out);
	/* without the thread, batches are written on this one */
	if (write_beside(out))
		lp_writer__background(&w->out);
	memset(stats, 0, sizeof(*stats));
	stats->offcpu_attachment = r->offcpu ? offcpu__attachment(r->offcpu) : NULL;
	/* what the loader read while recording, once it is done */
	sym_loader__free(r->loader);
	r->loader = NULL;
	w->sym = r->sym ? r->sym : symbolizer__new(r->o.warn, r->o.ctx);
	r->sym = NULL;
	w->programs = stackmap__new();
	w->roots = stack_roots__new();
	w->threads = thread_stats__new();
	if (!w->sym || !w->programs || !w->roots || !w->threads || load_tp_fields(w) < 0) {
		writer_free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

/* Has the records from..to known what they need of the records near them: forks' stacks, ends, clocks. */
static int collect(struct writer *w, size_t from, size_t to)
{
	if (match_fork_stacks(w, from, to) < 0 || collect_ends(w, from, to) < 0 || collect_clocks(w, from, to) < 0)
		return -ENOMEM;
	return 0;
}

/* Writes records from..to, or up to one that waits for records to come (-EAGAIN): *end, where it stopped. */
static int write_records(struct writer *w, size_t from, size_t to, size_t *end)
{
	struct recorder *r = w->r;
	size_t i;
	int ret = 0;

	for (i = from; i < to && ret == 0; i++) {
		/* what was read of the spill file leaves the resident set now and then */
		if ((i & (RELEASE_EVERY - 1)) == 0)
			recorder__release_read(r, i, RELEASE_EVERY);
		if ((i & (CHUNKS_CHECKED_EVERY - 1)) == 0)
			recorder__release_written(r, i);
		/*
		 * Records are in time order, their memory in arrival order per
		 * CPU: fetch a whole one ahead (a sample with its stack is a few
		 * KB, read from start to end: callchain, registers, stack).
		 */
		if (i + 2 * PREFETCH_AHEAD < r->n)
			__builtin_prefetch(r->index[i + 2 * PREFETCH_AHEAD].h);
		if (i + PREFETCH_AHEAD < r->n) {
			const struct perf_event_header *next = r->index[i + PREFETCH_AHEAD].h;

			/* its header came with the first fetch */
			for (size_t off = 64; off < next->size; off += 64)
				__builtin_prefetch((const char *)next + off);
		}
		w->at = i;
		if ((ret = write_record(w, i)) == -EAGAIN)
			break;
	}
	*end = i;
	return ret == -EAGAIN ? 0 : ret;
}

/* The end of a stream: the threads still living, what only the end knows, the last batch. */
static int write_end(struct writer *w, bool live)
{
	int ret = write_living_threads(w);

	if (ret == 0 && live)
		ret = write_counts(w->r, &w->out, w->stats);
	if (ret == 0)
		ret = write_trailer(&w->out, w->stats);
	if (ret == 0)
		ret = lp_writer__foreground(&w->out);
	return ret;
}

int recorder__write_live(struct recorder *r, FILE *out, struct record_stats *stats)
{
	struct writer *w;
	int ret;

	if (!(w = writer_new(r, out, stats)))
		return -errno;
	r->live = w;
	if ((ret = write_header(r, &w->out, w->stats, true)) == 0)
		ret = lp_writer__flush(&w->out);
	stats->write_errno = w->out.err;
	return ret;
}

/*
 * Records come from each CPU's ring in time order, the rings one after
 * another: once those up to settled have come, they are sorted among
 * themselves and keep their places. A record is written once those a few
 * hundred after it are settled too (a fork's stack, a thread's end and its
 * clocks are found near it): the index entries up to there are final.
 */
int recorder__write_settled(struct recorder *r, uint64_t settled)
{
	struct writer *w = r->live;
	size_t stable = w->visible, collect_to, write_to, oldest;
	int ret;

	index__sort(r->index + w->visible, r->n - w->visible);
	while (stable < r->n && r->index[stable].time <= settled)
		stable++;
	w->visible = stable;
	collect_to = stable > FORK_WINDOW ? stable - FORK_WINDOW : 0;
	if (collect_to > w->collected) {
		if ((ret = collect(w, w->collected, collect_to)) < 0)
			return ret;
		w->collected = collect_to;
	}
	write_to = w->collected > EXIT_READ_WINDOW ? w->collected - EXIT_READ_WINDOW : 0;
	if (write_to <= w->done)
		return 0;
	w->settled_time = settled;
	w->more_to_come = true;
	ret = write_records(w, w->done, write_to, &w->done);
	w->more_to_come = false;
	if (ret < 0)
		return ret;
	/* the records not written yet, and the fork stacks they will read, keep their chunks */
	oldest = r->n;
	for (size_t i = w->done; i < r->n; i++) {
		if (r->index[i].seq < oldest)
			oldest = r->index[i].seq;
		if (i < w->collected && w->fork_samples[i] && r->index[w->fork_samples[i] - 1].seq < oldest)
			oldest = r->index[w->fork_samples[i] - 1].seq;
	}
	recorder__release_before(r, oldest);
	return lp_writer__flush(&w->out);
}

void recorder__hold_mapped(struct recorder *r, const struct perf_event_header *h)
{
	struct perf_mmap2 m;

	perf_mmap2__decode(h, &m);
	/* out of memory: the file is read by path, as it would be without */
	symbolizer__hold(r->live->sym, m.path, m.dev, m.ino);
}

void recorder__drop_live(struct recorder *r)
{
	writer_free(r->live);
	r->live = NULL;
}

/* The rest of a live recording's stream, once recording ended. */
static int finish_live(struct recorder *r, struct record_stats *stats)
{
	struct writer *w = r->live;
	int ret;

	r->live = NULL;
	index__sort(r->index + w->visible, r->n - w->visible);
	w->visible = r->n;
	count_losses(r, w->stats);
	if ((ret = r->live_error) == 0 && (ret = collect(w, w->collected, r->n)) == 0)
		ret = write_records(w, w->done, r->n, &w->done);
	if (ret == 0)
		ret = write_end(w, true);
	/* filled in as it went: the caller's since recorder__write_live */
	if (stats != w->stats)
		*stats = *w->stats;
	stats->write_errno = w->out.err;
	writer_free(w);
	return ret;
}

int recorder__write(struct recorder *r, FILE *out, struct record_stats *stats)
{
	struct writer *w;
	int ret = 0;

	if (r->live)
		return finish_live(r, stats);
	if ((ret = recorder__settle(r)) < 0)
		return ret;
	index__sort(r->index, r->n);
	if (!(w = writer_new(r, out, stats)))
		return -errno;
	/* counted as the records came, for the header */
	count_losses(r, stats);
	w->visible = r->n;
	if ((ret = collect(w, 0, r->n)) < 0)
		goto cleanup;
	/*
	 * A fork's stack is read when its FORK record is written, maybe after
	 * the rest of its chunk. (The FORKs are found by the index: most of
	 * fork_samples is pages never touched, which reading would fault in.)
	 */
	if (recorder__plan_release(r) == 0)
		for (size_t i = 0; i < r->n; i++)
			if (r->index[i].type == PERF_RECORD_FORK && w->fork_samples[i])
				recorder__hold(r, r->index[w->fork_samples[i] - 1].h, i);
	if ((ret = write_header(r, &w->out, stats, false)) < 0)
		goto cleanup;
	ret = write_records(w, 0, r->n, &w->done);
	if (ret == 0)
		ret = write_end(w, false);
cleanup:
	stats->write_errno = w->out.err;
	writer_free(w);
	return ret;
}
