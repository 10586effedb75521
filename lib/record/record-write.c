/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing a recording: records in time order, symbolised (frames unwound
 * with CFI where frame pointers lose callers), handed to the stream writer.
 */
#include "record/writer-int.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbols/fpchain.h"
#include "base/hash.h"
#include "record/offcpu-sampler.h"
#include "record/perfevent.h"
#include "base/prefaulter.h"
#include "base/stackmap.h"
#include "symbols/stackroot.h"
#include "symbols/symload.h"
#include "record/tpfields.h"
#include "record/tracefs.h"

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

const char *writer__comm_of(struct recorder *r, pid_t tid)
{
	struct thread_name *t = name_slot(r, tid);

	return t && t->comm[0] ? t->comm : "[unknown]";
}

void writer__set_comm(struct recorder *r, pid_t tid, const char *comm)
{
	struct thread_name *t = name_slot(r, tid);

	if (t)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/*
 * The task-clock time a sample stands for: its counter's advance, or the
 * period. One thread's counter on one CPU cannot run faster than the clock,
 * yet after the kernel throttles and restarts it (kernel.perf_event_max_sample_rate
 * lowered below the rate asked for) its first reads can add the time since the
 * thread was last scheduled in, again and again: an advance well beyond the time
 * since the counter's previous sample is cut down to that time, and counted.
 */
static uint64_t sample_weight(struct writer *w, const struct ring_sample *sm)
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

/* An S record up to its attributes, with the stack in w->stack and w->locs. */
static int put_sample(struct writer *w, uint64_t time, pid_t pid, pid_t tid, const char *event, uint64_t weight)
{
	if (w->has_callers) {
		const struct lp_span stack[2] = { w->callers_stack, lp_span__of(&w->stack) };
		const struct lp_span locs[2] = { w->callers_locs, lp_span__of(&w->locs) };

		w->has_callers = false;
		return lp_writer__sample_parts(&w->out, time, pid, tid, writer__comm_of(w->r, tid), event, weight, stack, locs);
	}
	return lp_writer__sample(&w->out, time, pid, tid, writer__comm_of(w->r, tid), event, weight, lp_span__of(&w->stack),
				 lp_span__of(&w->locs));
}

static int write_sample(struct writer *w, const struct perf_event_header *h)
{
	struct thread_stat *t;
	struct ring_sample sm;
	uint64_t weight;
	int ret;

	if (!ring_sample__decode(h, &w->r->layout, false, &sm))
		return 0;
	/* (all of it again when a live recording's writer waits for the root: -EAGAIN) */
	if (!(t = writer__account(w, sm.pid, sm.tid, sm.time)))
		return -ENOMEM;
	ret = writer__inside_exec(w, t, &sm, writer__taken_in_kernel(h)) ? writer__exec_chain(w, &sm) :
	      writer__callchain(w, &sm, sm.pid, writer__cut_at_max_stack(w, &sm), &w->stats->stopped_past_copy,
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
			lp_error__warn(r->o.warn, r->o.ctx, NULL, 0, "cannot read the format of tracepoint '%s': its "
				"fields are left out", e->name);
			continue;
		}
		w->tp[k] = tp_fields__new(text, len, e->tp_system, &err);
		free(text);
		if (!w->tp[k]) {
			if (errno == ENOMEM)
				return -ENOMEM;
			lp_error__warn(r->o.warn, r->o.ctx, NULL, 0, "%s: its fields are left out", err.msg);
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
	struct ring_sample sm;
	int ret;

	/* no counter value: that is task-clock's */
	layout.read_value = false;
	layout.no_period = perf_custom__no_period(&w->r->o.perf.customs[k]);
	if (!ring_sample__decode(h, &layout, e->kind == EVENT_TRACEPOINT, &sm))
		return 0;
	if (layout.no_period)
		sm.period = e->period;
	if (!(t = writer__account(w, sm.pid, sm.tid, sm.time)))
		return -ENOMEM;
	ret = writer__inside_exec(w, t, &sm, writer__taken_in_kernel(h)) ? writer__exec_chain(w, &sm) :
	      writer__callchain(w, &sm, sm.pid, writer__cut_at_max_stack(w, &sm), NULL, 0);
	if (ret < 0)
		return ret;
	if (k < RECORD_MAX_EVENTS) {
		w->stats->custom_samples[k]++;
		w->stats->custom_weight[k] += sm.period;
	}
	if ((ret = put_sample(w, sm.time, sm.pid, sm.tid, e->key, sm.period)) < 0 ||
	    (ret = lp_writer__attr_u64(&w->out, "cpu", sm.cpu)) < 0)
		return ret;
	/* a record the format does not describe keeps what could be read of it */
	if (k < RECORD_MAX_EVENTS && w->tp[k] && sm.raw &&
	    (ret = tp_fields__each(w->tp[k], sm.raw, sm.raw_size, put_tp_field, w)) < 0 && ret != -EPROTO)
		return ret;
	return lp_writer__end(&w->out);
}

/* Who made an off-CPU interval's thread runnable, and how long it then waited for a CPU. */
static int put_waker(struct writer *w, const struct offcpu_event *ev)
{
	char comm[sizeof(ev->waker_comm) + 1];
	int ret;

	if (ev->waker == OFFCPU_WOKEN_BY_IRQ) {
		if ((ret = lp_writer__attr_str(&w->out, "waker", "irq")) < 0)
			return ret;
	} else if (ev->waker == OFFCPU_WOKEN_BY_TASK) {
		memcpy(comm, ev->waker_comm, sizeof(ev->waker_comm));
		comm[sizeof(ev->waker_comm)] = 0;
		if ((ret = lp_writer__attr_u64(&w->out, "waker", ev->waker_tid)) < 0 ||
		    (ret = lp_writer__attr_u64(&w->out, "wakerpid", ev->waker_pid)) < 0 ||
		    (ret = lp_writer__attr_str(&w->out, "wakercomm", comm)) < 0 ||
		    (ev->waker_followed && (ret = lp_writer__attr_str(&w->out, "wakerrecorded", "1")) < 0))
			return ret;
	} else if (ev->state != 'R') {
		return 0;
	}
	return lp_writer__attr_u64(&w->out, "queued", ev->queued);
}

/* A frame that names no code, as the stack's leaf (LOCS "-"). */
static int add_marker(struct writer *w, const char *name)
{
	int ret = lp_list__append(&w->stack, name, strlen(name));

	return ret < 0 ? ret : lp_list__append(&w->locs, "-", 1);
}

static int write_offcpu(struct writer *w, const struct perf_event_header *h)
{
	const uint8_t *stack;
	const uint64_t *ips;
	const struct offcpu_event *ev = offcpu_record__parts(h, &stack, &ips);
	struct ring_sample sm = {
		.time = ev->start,
		.pid = (pid_t)ev->pid,
		.tid = (pid_t)ev->tid,
		.ips = w->chain,
		.has_regs = ev->snapshot_size && ev->ip,
		.regs = { .ip = ev->ip, .sp = ev->sp, .bp = ev->bp, .link = ev->link, .alt = ev->alt },
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
	if (!(t = writer__account(w, sm.pid, sm.tid, ev->start)))
		return -ENOMEM;
	/* off the CPU, a thread is in the kernel */
	ret = writer__inside_exec(w, t, &sm, true) ? writer__exec_chain(w, &sm) :
	      writer__callchain(w, &sm, sm.pid, ev->truncated == 1, NULL,
			       ev->truncated == OFFCPU_CALLERS_UNKNOWN ? CHAIN_MEMORY_GONE : 0);
	if (ret < 0)
		return ret;
	if (ev->kernel_unseen) {
		if ((ret = add_marker(w, SYM_KERNEL_UNSEEN)) < 0)
			return ret;
		w->stats->offcpu_kernel_unseen++;
	}
	w->stats->offcpu_samples++;
	w->stats->offcpu_ns += ev->weight;
	t->sampled_offcpu += ev->weight;
	if ((ret = put_sample(w, ev->start, sm.pid, sm.tid, "offcpu", ev->weight)) < 0 ||
	    (ret = lp_writer__attr_u64(&w->out, "dur", ev->end - ev->start)) < 0 ||
	    (ret = lp_writer__attr_str(&w->out, "state", state)) < 0 ||
	    (ret = put_waker(w, ev)) < 0)
		return ret;
	return lp_writer__end(&w->out);
}

/* The path of the program pid execs: its first file mapping after the exec. */
const char *writer__exec_path(struct recorder *r, size_t from, pid_t pid)
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
int writer__check_frame_pointers(struct writer *w, const char *path)
{
	struct stack_entry *seen = stackmap__add(w->programs, path, strlen(path), 0, 1);
	int share;

	if (!seen)
		return -ENOMEM;
	if (seen->count[0] > 1 || (share = symbolizer__frame_pointer_share(w->sym, path)) < 0 || share >= 50)
		return 0;
	lp_error__warn(w->r->o.warn, w->r->o.ctx, NULL, 0,
		"'%s' seems built without frame pointers (%d%% of its biggest functions set one "
		"up): callers beyond the stack snapshot may be missing; rebuild it with "
		"-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer", path, share);
	return 0;
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
		if (event_rings__is_fork_id(r->session, ring_sample__id(h)))
			return 0;
		if ((ret = event_rings__custom_of(r->session, ring_sample__id(h))) >= 0)
			return write_custom(w, h, (size_t)ret);
		if ((ret = event_rings__region_of(r->session, ring_sample__id(h))) >= 0)
			return writer__write_region(w, h, ret);
		return write_sample(w, h);
	case LP_RECORD_OFFCPU:
		return write_offcpu(w, h);
	case PERF_RECORD_MMAP2:
		perf_mmap2__decode(h, &m);
		return symbolizer__mmap(w->sym, m.pid, m.start, m.len, m.pgoff, m.path, m.dev, m.ino);
	case PERF_RECORD_COMM:
		return writer__write_comm(w, i, time);
	case PERF_RECORD_FORK:
		return writer__write_fork(w, i, time);
	case LP_RECORD_PROC_END: {
		const struct offcpu_event *ev = (const struct offcpu_event *)(h + 1);
		const struct thread_end *e = writer__thread_end_of(w, (pid_t)ev->tid, false);
		struct thread_stat *ts;

		/* its summary was written with it already, at its EXIT just before */
		if (e && e->taken && e->at == i)
			return 0;
		if (!(ts = writer__account(w, (pid_t)ev->pid, (pid_t)ev->tid, time)))
			return -ENOMEM;
		ts->cpu = ev->end;
		ts->has_cpu = true;
		return 0;
	}
	case PERF_RECORD_EXIT: {
		struct thread_end *e;
		struct thread_stat *ts;

		perf_task__decode(h, &t);
		if ((ret = writer__close_regions(w, t.pid, t.tid, time)) < 0)
			return ret;
		if (t.pid == t.tid)
			stack_roots__forget(w->roots, t.pid);
		writer__forget_stacks(w, t.tid);
		if ((ret = lp_writer__proc(&w->out, time, t.pid, t.tid, LP_PROC_EXIT, writer__comm_of(r, t.tid))) < 0 ||
		    (t.pid == t.tid && writer__exit_status(w, t.pid, &status) && (ret = writer__put_exit_status(w, status)) < 0) ||
		    (ret = lp_writer__end(&w->out)) < 0)
			return ret;
		/* then its summary, with the task-clock totals its exit gave and the exact time its end did */
		if ((ts = thread_stats__find(w->threads, t.tid)) && writer__exit_clock(w, i, &ts->clock))
			ts->has_clock = true;
		if (ts && writer__exact_at_exit(w, t.tid, i, &ts->cpu))
			ts->has_cpu = true;
		if (ts) {
			ret = writer__write_thread(w, ts, time, true);
			thread_stats__remove(w->threads, t.tid);
			if (ret < 0)
				return ret;
		}
		if (!(e = writer__thread_end_of(w, t.tid, true)))
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

/*
 * Whether the stream is better written by a thread of its own: into a pipe,
 * whose writes wait for its reader (a fifth of the phase into lp-svg), with
 * a CPU for that thread. Into a file, or on one CPU, handing batches over
 * costs as much as it saves.
 */
static bool more_than_one_cpu(void)
{
	cpu_set_t cpus;

	return sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 1;
}

static bool write_beside(FILE *out)
{
	struct stat st;

	return fstat(fileno(out), &st) == 0 && S_ISFIFO(st.st_mode) && more_than_one_cpu();
}

static void writer_free(struct writer *w)
{
	if (!w)
		return;
	/* (first: it may be faulting in the symbolizer's memory) */
	prefaulter__free(w->prefaulter);
	symbolizer__free(w->sym);
	stack_roots__free(w->roots);
	thread_stats__free(w->threads);
	stackmap__free(w->programs);
	htab__release(&w->fork_samples);
	writer__frames_release(&w->frames);
	writer__frames_release(&w->ahead);
	writer__frames_release(&w->later);
	htab__release(&w->looked);
	{
		struct stack_top *t;

		for (size_t i = 0; (t = htab__next(&w->stack_tops, &i));)
			free(t->root_frames);	/* root_cfas lives in the same block */
	}
	htab__release(&w->stack_tops);
	strbuf__release(&w->ahead_stack);
	strbuf__release(&w->ahead_locs);
	htab__release(&w->values);
	htab__release(&w->ends);
	htab__release(&w->thread_ends);
	htab__release(&w->clocks);
	lp_regions__free(w->open_regions);
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
	w->fork_samples = HTAB_INIT(struct fork_sample);
	w->looked = HTAB_INIT(struct looked_ahead);
	w->stack_tops = HTAB_INIT(struct stack_top);
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
	if (!(w->sym = r->sym) && (w->sym = symbolizer__new(r->o.warn, r->o.ctx)))
		symbolizer__set_demangle(w->sym, r->o.demangle);
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
	if (writer__match_fork_stacks(w, from, to) < 0 || writer__collect_ends(w, from, to) < 0 || writer__collect_clocks(w, from, to) < 0)
		return -ENOMEM;
	return 0;
}

/* How much of the chain cache to have faulted in ahead of its end, with n records left to write. */
static size_t text_ahead(size_t n)
{
	return n < CHAIN_TEXT_AHEAD / CHAIN_TEXT_PER_RECORD ? n * CHAIN_TEXT_PER_RECORD : CHAIN_TEXT_AHEAD;
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
		if ((i & (CHUNKS_CHECKED_EVERY - 1)) == 0) {
			void *ahead;
			size_t len;

			recorder__release_written(r, i);
			if (w->prefaulter && (len = symbolizer__chain_text_ahead(w->sym, text_ahead(to - i), &ahead)))
				prefaulter__ask(w->prefaulter, ahead, len);
		}
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
	int ret = writer__write_living_threads(w);

	w->stats->stack_needed = writer__stack_needed(w);
	if (ret == 0)
		ret = writer__write_event_counts(w);
	if (ret == 0 && live)
		ret = writer__write_counts(w->r, &w->out, w->stats);
	if (ret == 0)
		ret = writer__write_trailer(&w->out, w->stats);
	if (ret == 0)
		ret = lp_writer__foreground(&w->out);
	return ret;
}

static struct writer *live_writer(struct recorder_follower *f)
{
	return (struct writer *)((char *)f - offsetof(struct writer, follower));
}

/*
 * Records come from each CPU's ring in time order, the rings one after
 * another: once those up to settled have come, they are sorted among
 * themselves and keep their places. A record is written once those a few
 * hundred after it are settled too (a fork's stack, a thread's end and its
 * clocks are found near it): the index entries up to there are final.
 */
static int live_settled(struct recorder_follower *f, uint64_t settled)
{
	struct writer *w = live_writer(f);
	struct recorder *r = w->r;
	size_t stable = w->visible, collect_to, write_to, oldest, tp;
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
		if (i < w->collected && r->index[i].type == PERF_RECORD_FORK && (tp = writer__fork_sample(w, i)) &&
		    r->index[tp - 1].seq < oldest)
			oldest = r->index[tp - 1].seq;
	}
	recorder__release_before(r, oldest);
	return lp_writer__flush(&w->out);
}

/* The file of an MMAP2 record stays open until the writer reads the record: it may be gone by then. */
static void live_mapped(struct recorder_follower *f, const struct perf_event_header *h)
{
	struct perf_mmap2 m;

	perf_mmap2__decode(h, &m);
	/* out of memory: the file is read by path, as it would be without */
	symbolizer__hold(live_writer(f)->sym, m.path, m.dev, m.ino);
}

static void live_free(struct recorder_follower *f)
{
	writer_free(live_writer(f));
}

int recorder__write_live(struct recorder *r, FILE *out, struct record_stats *stats)
{
	struct writer *w;
	int ret;

	if (!(w = writer_new(r, out, stats)))
		return -errno;
	w->follower = (struct recorder_follower){ .mapped = live_mapped, .settled = live_settled, .free = live_free };
	r->follower = &w->follower;
	if ((ret = writer__write_header(r, &w->out, w->stats, true)) == 0)
		ret = lp_writer__flush(&w->out);
	stats->write_errno = w->out.err;
	return ret;
}

/* The rest of a live recording's stream, once recording ended. */
static int finish_live(struct recorder *r, struct record_stats *stats)
{
	struct writer *w = live_writer(r->follower);
	int ret;

	r->follower = NULL;
	index__sort(r->index + w->visible, r->n - w->visible);
	w->visible = r->n;
	writer__count_losses(r, w->stats);
	if ((ret = r->follower_error) == 0 && (ret = collect(w, w->collected, r->n)) == 0)
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

/* Where each record is in the sorted index, by its seq: stack copies kept as differences refer to seqs. */
static int place_seqs(struct recorder *r)
{
	bool any = false;

	for (size_t i = 0; i < r->n && !any; i++)
		any = r->index[i].stack_key != 0;
	if (!any)
		return 0;
	if (!(r->at_seq = malloc(r->n * sizeof(*r->at_seq))))
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++)
		r->at_seq[r->index[i].seq] = (uint32_t)i;
	return 0;
}

int recorder__write(struct recorder *r, FILE *out, struct record_stats *stats)
{
	struct writer *w;
	size_t tp;
	int ret = 0;

	if (r->follower)
		return finish_live(r, stats);
	if ((ret = recorder__settle(r)) < 0)
		return ret;
	index__sort(r->index, r->n);
	if ((ret = place_seqs(r)) < 0)
		return ret;
	if (!(w = writer_new(r, out, stats)))
		return -errno;
	/* the chain cache's pages faulted in on another CPU (when none is free: where they are used) */
	if (more_than_one_cpu())
		w->prefaulter = prefaulter__new();
	/* counted as the records came, for the header */
	writer__count_losses(r, stats);
	w->visible = r->n;
	if ((ret = collect(w, 0, r->n)) < 0)
		goto cleanup;
	/* a fork's stack is read when its FORK record is written, maybe after the rest of its chunk */
	if (recorder__plan_release(r) == 0)
		for (size_t i = 0; i < r->n; i++) {
			if (r->index[i].type == PERF_RECORD_FORK && (tp = writer__fork_sample(w, i)))
				recorder__hold(r, r->index[tp - 1].h, i);
			/* and the copy a difference refers to, when its sample is written */
			if (r->index[i].stack_key)
				recorder__hold(r, r->index[r->at_seq[r->index[i].stack_key - 1]].h, i);
		}
	if ((ret = writer__write_header(r, &w->out, stats, false)) < 0)
		goto cleanup;
	ret = write_records(w, 0, r->n, &w->done);
	if (ret == 0)
		ret = write_end(w, false);
cleanup:
	stats->write_errno = w->out.err;
	writer_free(w);
	return ret;
}
