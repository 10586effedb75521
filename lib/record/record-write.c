/*
 * Writing a recording: records in time order, symbolised (frames unwound
 * with CFI where frame pointers lose callers), handed to the stream writer.
 */
#include "recorder-int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "hash.h"
#include "lpstream.h"
#include "offcpu-sampler.h"
#include "perfevent.h"
#include "stackroot.h"
#include "threadstat.h"
#include "tpfields.h"
#include "tracefs.h"


static int cmp_index(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The index in time order, ties in arrival order: a stable radix sort on
 * time, a byte at a time, skipping the bytes every record shares (the high
 * ones of a recording's clock), so a few linear passes instead of a
 * comparison sort's n log n. qsort when the second array cannot be had.
 */
static void sort_index(struct index_entry *index, size_t n)
{
	struct index_entry *tmp = n > 1 ? malloc(n * sizeof(*tmp)) : NULL, *from = index, *to = tmp;

	if (!tmp) {
		if (n > 1)
			qsort(index, n, sizeof(*index), cmp_index);
		return;
	}
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, at = 0;
		struct index_entry *swap;

		for (size_t i = 0; i < n; i++)
			count[from[i].time >> shift & 255]++;
		if (count[from[0].time >> shift & 255] == n)
			continue;
		for (unsigned b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[from[i].time >> shift & 255]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != index)
		memcpy(index, from, n * sizeof(*index));
	free(tmp);
}

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
	uint64_t key, value;
};

/* How a process ended: its wait status. */
struct proc_end {
	struct htab_entry head;
	pid_t pid;
	int status;
};

struct writer {
	struct htab values;	/* of struct last_value: a counter's, by thread and CPU */
	struct htab ends;	/* of struct proc_end: how each process ended, where the kernel said */
	struct htab clocks;	/* of struct exit_clock: task-clock totals by the index of the EXIT */
	uint64_t clocks_read;	/* the sum of them all */
	struct tp_fields *tp[RECORD_MAX_EVENTS];	/* a custom tracepoint's field decoder, or NULL */
	struct thread_stats *threads;	/* of the threads not ended yet, for their T records */
	struct recorder *r;
	struct lp_writer out;
	struct record_stats *stats;
	const struct stack_chunk *chunk;	/* the rendered stacks of the records being written */
	struct stack_roots *roots;	/* each process's stacks' one root */
	struct strbuf stack, locs;	/* a stack completed with its root */
};

/* The task-clock time a sample stands for: its counter's advance, or the period. */
static uint64_t sample_weight(struct writer *w, const struct perf_sample *sm)
{
	uint64_t key = (uint64_t)(uint32_t)sm->tid << 32 | sm->cpu, h = hash_mix(key), before;
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
	v->value = sm->value;
	return sm->value >= before ? sm->value - before : sm->period;
}

/*
 * Index entry i's stack, as rendered, and its locations; an unwound one of
 * process pid begins with the process's root where it did not reach it.
 */
static int stack_of(struct writer *w, size_t i, pid_t pid, struct lp_span *stack, struct lp_span *locs)
{
	const struct stack_chunk *c = w->chunk;
	const struct stack_text *t = &c->items[i - c->first];
	struct stack_prefix prefix;
	int ret;

	*stack = (struct lp_span){ c->text.s + t->at, t->stack_len };
	*locs = (struct lp_span){ c->text.s + t->at + t->stack_len, t->locs_len };
	if (!(t->flags & STACK_TO_COMPLETE))
		return 0;
	if ((ret = stack_roots__prefix(w->roots, pid, *stack, *locs, &prefix)) < 0)
		return ret;
	if (ret == 0) {
		w->stats->unwind_stopped += (t->flags & STACK_STOPPED) != 0;
		w->stats->truncated += (t->flags & (STACK_MAYBE_CUT | STACK_STOPPED)) == STACK_MAYBE_CUT;
		return 0;
	}
	/* it reaches the process's root after all */
	strbuf__reset(&w->stack);
	strbuf__reset(&w->locs);
	if ((ret = strbuf__add(&w->stack, prefix.stack.s, prefix.stack.len)) < 0 ||
	    (ret = strbuf__add(&w->stack, stack->s + prefix.skip_stack, stack->len - prefix.skip_stack)) < 0 ||
	    (ret = strbuf__add(&w->locs, prefix.locs.s, prefix.locs.len)) < 0 ||
	    (ret = strbuf__add(&w->locs, locs->s + prefix.skip_locs, locs->len - prefix.skip_locs)) < 0)
		return ret;
	*stack = lp_span__of(&w->stack);
	*locs = lp_span__of(&w->locs);
	return 0;
}

/* Index entry i's S record up to its attributes. */
static int put_sample(struct writer *w, size_t i, uint64_t time, pid_t pid, pid_t tid, const char *event,
		      uint64_t weight)
{
	struct lp_span stack, locs;
	int ret = stack_of(w, i, pid, &stack, &locs);

	if (ret < 0)
		return ret;
	return lp_writer__sample(&w->out, time, pid, tid, comm_of(w->r, tid), event, weight, stack, locs);
}

/* tid's accounts, started at time when first seen; NULL when out of memory. */
static struct thread_stat *account(struct writer *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct thread_stat *t = thread_stats__get(w->threads, pid, tid);

	if (t && !t->has_start) {
		t->start = time;
		t->has_start = true;
	}
	return t;
}

static int write_sample(struct writer *w, size_t i)
{
	const struct perf_event_header *h = w->r->index[i].h;
	struct thread_stat *t;
	struct perf_sample sm;
	uint64_t weight;
	int ret;

	if (!perf_sample__decode(h, &w->r->layout, false, &sm))
		return 0;
	weight = sample_weight(w, &sm);
	if (!(t = account(w, sm.pid, sm.tid, sm.time)))
		return -ENOMEM;
	w->stats->samples++;
	t->sampled_cpu += weight;
	if ((ret = put_sample(w, i, sm.time, sm.pid, sm.tid, "cpu", weight)) < 0 ||
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
static int write_custom(struct writer *w, size_t i, size_t k)
{
	const struct perf_event_header *h = w->r->index[i].h;
	const struct event_spec *e = &w->r->o.events[k];
	struct perf_layout layout = w->r->layout;
	struct perf_sample sm;
	int ret;

	/* no counter value: that is task-clock's */
	layout.read_value = false;
	layout.no_period = perf_custom__no_period(&w->r->o.perf.customs[k]);
	if (!perf_sample__decode(h, &layout, e->kind == EVENT_TRACEPOINT, &sm))
		return 0;
	if (layout.no_period)
		sm.period = e->period;
	if (!account(w, sm.pid, sm.tid, sm.time))
		return -ENOMEM;
	if (k < RECORD_MAX_EVENTS)
		w->stats->custom_samples[k]++;
	if ((ret = put_sample(w, i, sm.time, sm.pid, sm.tid, e->key, sm.period)) < 0 ||
	    (ret = lp_writer__attr_u64(&w->out, "cpu", sm.cpu)) < 0)
		return ret;
	/* a record the format does not describe keeps what could be read of it */
	if (k < RECORD_MAX_EVENTS && w->tp[k] && sm.raw &&
	    (ret = tp_fields__each(w->tp[k], sm.raw, sm.raw_size, put_tp_field, w)) < 0 && ret != -EPROTO)
		return ret;
	return lp_writer__end(&w->out);
}

static int write_offcpu(struct writer *w, size_t i)
{
	const uint8_t *stack;
	const uint64_t *ips;
	const struct offcpu_event *ev = offcpu_record__parts(w->r->index[i].h, &stack, &ips);
	char state[2] = { ev->state >= 'A' && ev->state <= 'z' ? ev->state : '?', 0 };
	struct thread_stat *t;
	int ret;

	if (!(t = account(w, (pid_t)ev->pid, (pid_t)ev->tid, ev->start)))
		return -ENOMEM;
	w->stats->offcpu_samples++;
	w->stats->offcpu_ns += ev->weight;
	t->sampled_offcpu += ev->weight;
	if ((ret = put_sample(w, i, ev->start, (pid_t)ev->pid, (pid_t)ev->tid, "offcpu", ev->weight)) < 0 ||
	    (ret = lp_writer__attr_u64(&w->out, "dur", ev->end - ev->start)) < 0 ||
	    (ret = lp_writer__attr_str(&w->out, "state", state)) < 0)
		return ret;
	return lp_writer__end(&w->out);
}

/* The path of the program pid execs: its first file mapping after the exec. */
const char *recorder__exec_path(const struct recorder *r, size_t from, pid_t pid)
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
static int collect_clocks(struct writer *w)
{
	const struct recorder *r = w->r;

	for (size_t i = 0; i < r->n; i++) {
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

/* Collects the processes' ends the off-CPU program reported. */
static int collect_ends(struct writer *w)
{
	for (size_t i = 0; i < w->r->n; i++) {
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
	}
	return 0;
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
	path = c.exec ? recorder__exec_path(w->r, i, c.pid) : NULL;
	set_comm(w->r, c.tid, c.comm);
	if (c.exec && !account(w, c.pid, c.tid, time))
		return -ENOMEM;
	if (c.exec)
		stack_roots__forget(w->roots, c.pid);
	if ((ret = lp_writer__proc(&w->out, time, c.pid, c.tid, c.exec ? LP_PROC_EXEC : LP_PROC_COMM, c.comm)) < 0 ||
	    (path && (ret = lp_writer__exec_path(&w->out, path)) < 0))
		return ret;
	return lp_writer__end(&w->out);
}

static int write_fork(struct writer *w, size_t i, uint64_t time)
{
	struct recorder *r = w->r;
	struct lp_span stack, locs;
	struct perf_task t;
	int ret;

	perf_task__decode(r->index[i].h, &t);
	set_comm(r, t.tid, comm_of(r, t.ptid));
	if (!account(w, t.pid, t.tid, time))
		return -ENOMEM;
	if (t.pid != t.ppid)
		w->stats->processes++;
	else
		w->stats->threads++;
	if ((ret = stack_of(w, i, t.ppid, &stack, &locs)) < 0 ||
	    (ret = lp_writer__proc(&w->out, time, t.pid, t.tid, LP_PROC_SPAWN, comm_of(r, t.tid))) < 0 ||
	    (ret = lp_writer__spawn_parent(&w->out, t.ppid, t.ptid, stack, locs)) < 0)
		return ret;
	return lp_writer__end(&w->out);
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
	struct perf_task t;
	int ret, status;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (perf_session__is_fork_id(r->session, perf_sample__id(h)))
			return 0;
		if ((ret = perf_session__custom_of(r->session, perf_sample__id(h))) >= 0)
			return write_custom(w, i, (size_t)ret);
		return write_sample(w, i);
	case LP_RECORD_OFFCPU:
		return write_offcpu(w, i);
	case PERF_RECORD_COMM:
		return write_comm(w, i, time);
	case PERF_RECORD_FORK:
		return write_fork(w, i, time);
	case LP_RECORD_PROC_END: {
		const struct offcpu_event *ev = (const struct offcpu_event *)(h + 1);
		struct thread_stat *ts = account(w, (pid_t)ev->pid, (pid_t)ev->tid, time);

		if (!ts)
			return -ENOMEM;
		ts->cpu = ev->end;
		ts->has_cpu = true;
		return 0;
	}
	case PERF_RECORD_EXIT: {
		struct thread_stat *ts;

		perf_task__decode(h, &t);
		if (t.pid == t.tid)
			stack_roots__forget(w->roots, t.pid);
		if ((ret = lp_writer__proc(&w->out, time, t.pid, t.tid, LP_PROC_EXIT, comm_of(r, t.tid))) < 0 ||
		    (t.pid == t.tid && exit_status(w, t.pid, &status) && (ret = put_exit_status(w, status)) < 0) ||
		    (ret = lp_writer__end(&w->out)) < 0)
			return ret;
		/* then its summary, with the task-clock totals its exit gave */
		if ((ts = thread_stats__find(w->threads, t.tid)) && exit_clock(w, i, &ts->clock))
			ts->has_clock = true;
		if (ts) {
			ret = write_thread(w, ts, time, true);
			thread_stats__remove(w->threads, t.tid);
		}
		return ret;
	}
	case PERF_RECORD_THROTTLE:
		w->stats->throttled++;
		return 0;
	default:
		return 0;
	}
}

/* A living thread's exact on-CPU time so far: the first field of /proc/PID/task/TID/schedstat. */
static bool schedstat_cpu(pid_t pid, pid_t tid, uint64_t *ns)
{
	char path[64];
	unsigned long long v;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (!(f = fopen(path, "r")))
		return false;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (ok)
		*ns = v;
	return ok;
}

/* The summaries of the threads still alive when recording ended (attached, or system-wide). */
static int write_living_threads(struct writer *w)
{
	struct thread_stat *t;
	int ret = 0;

	for (size_t i = 0; ret == 0 && (t = thread_stats__next(w->threads, &i));) {
		if (!t->has_cpu)
			t->has_cpu = schedstat_cpu(t->pid, t->tid, &t->cpu);
		ret = write_thread(w, t, w->r->end_ns, false);
	}
	return ret;
}



static int write_header(struct recorder *r, struct lp_writer *out, const struct record_stats *st)
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
	if (ret == 0 && perf_opts__samples(&r->o.perf)) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->lost);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_writer__meta(out, "lost", v, 2);
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
		snprintf(buf, sizeof(buf), "%" PRIu64, st->offcpu_drops);
		v[1] = buf;
		if (ret == 0)
			ret = lp_writer__meta(out, "lost", v, 2);
	}
	for (size_t k = 0; ret == 0 && k < r->o.nevents; k++) {
		const struct event_spec *e = &r->o.events[k];
		const char *d[5] = { e->key, e->name, buf, e->title, e->unit };

		snprintf(buf, sizeof(buf), "%" PRIu64, e->period);
		ret = lp_writer__meta(out, "event", d, 5);
		snprintf(buf, sizeof(buf), "%" PRIu64, k < RECORD_MAX_EVENTS ? st->custom_lost[k] : 0);
		v[0] = e->key;
		v[1] = buf;
		if (ret == 0)
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

/* What is known only once every stack is unwound: a trailer of the stream. */
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
	return ret;
}

/*
 * The stacks are rendered a chunk of records at a time, ahead of the writer
 * (in a thread of their own when there are several chunks), into a ring of
 * chunks the writer gives back once written.
 */
struct pipeline {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct stacker *stacker;
	struct stack_chunk slots[STACK_CHUNKS_IN_FLIGHT];
	size_t nrecords, nchunks;
	size_t rendered, written;	/* chunks so far, in order */
	int failed;		/* the renderer's error */
	bool abandoned;		/* by the writer, after an error: the renderer stops */
};

static struct stack_chunk *chunk_slot(struct pipeline *p, size_t c)
{
	struct stack_chunk *slot = &p->slots[c % STACK_CHUNKS_IN_FLIGHT];

	slot->first = c * STACKS_PER_CHUNK;
	slot->n = p->nrecords - slot->first < STACKS_PER_CHUNK ? p->nrecords - slot->first : STACKS_PER_CHUNK;
	return slot;
}

static void *render_chunks(void *arg)
{
	struct pipeline *p = arg;

	for (size_t c = 0; c < p->nchunks; c++) {
		bool abandoned;
		int ret;

		pthread_mutex_lock(&p->lock);
		while (!p->abandoned && c - p->written >= STACK_CHUNKS_IN_FLIGHT)
			pthread_cond_wait(&p->changed, &p->lock);
		abandoned = p->abandoned;
		pthread_mutex_unlock(&p->lock);
		if (abandoned)
			break;
		ret = stacker__render(p->stacker, chunk_slot(p, c));
		pthread_mutex_lock(&p->lock);
		if (ret < 0)
			p->failed = ret;
		else
			p->rendered = c + 1;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
		if (ret < 0)
			break;
	}
	return NULL;
}

/* Writes every record, chunk by chunk: rendered by the renderer thread, or here when not threaded. */
static int write_chunks(struct writer *w, struct pipeline *p, bool threaded)
{
	int ret = 0;

	for (size_t c = 0; c < p->nchunks && ret == 0; c++) {
		struct stack_chunk *slot = &p->slots[c % STACK_CHUNKS_IN_FLIGHT];

		if (threaded) {
			pthread_mutex_lock(&p->lock);
			while (p->rendered <= c && !p->failed)
				pthread_cond_wait(&p->changed, &p->lock);
			ret = p->rendered > c ? 0 : p->failed;
			pthread_mutex_unlock(&p->lock);
		} else {
			ret = stacker__render(p->stacker, chunk_slot(p, c));
		}
		w->chunk = slot;
		for (size_t i = slot->first; ret == 0 && i < slot->first + slot->n; i++) {
			/* records are in time order, their memory in arrival order per CPU: fetch ahead */
			if (i + 2 < p->nrecords) {
				const char *next = (const char *)w->r->index[i + 2].h;

				for (int line = 0; line < 4; line++)
					__builtin_prefetch(next + line * 64);
			}
			ret = write_record(w, i);
		}
		if (threaded) {
			pthread_mutex_lock(&p->lock);
			p->written = c + 1;
			p->abandoned = ret < 0;
			pthread_cond_broadcast(&p->changed);
			pthread_mutex_unlock(&p->lock);
		}
	}
	return ret;
}

int recorder__write(struct recorder *r, FILE *out, struct record_stats *stats)
{
	struct writer w = {
		.r = r, .stats = stats, .values = HTAB_INIT(struct last_value), .ends = HTAB_INIT(struct proc_end),
		.clocks = HTAB_INIT(struct exit_clock),
	};
	struct pipeline p = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };
	pthread_t renderer;
	bool threaded;
	int ret = 0;

	lp_writer__init(&w.out, out);
	memset(stats, 0, sizeof(*stats));
	stats->offcpu_drops = r->offcpu_drops;
	stats->offcpu_attachment = r->offcpu ? offcpu__attachment(r->offcpu) : NULL;
	if ((ret = recorder__settle(r)) < 0)
		return ret;
	sort_index(r->index, r->n);
	/* counted as the records came, for the header */
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
	p.stacker = stacker__new(r);
	w.threads = thread_stats__new();
	w.roots = stack_roots__new();
	if (!p.stacker || !w.threads || !w.roots || collect_ends(&w) < 0 || collect_clocks(&w) < 0 || load_tp_fields(&w) < 0) {
		ret = -ENOMEM;
		goto cleanup;
	}
	if ((ret = write_header(r, &w.out, stats)) < 0)
		goto cleanup;
	p.nchunks = (r->n + STACKS_PER_CHUNK - 1) / STACKS_PER_CHUNK;
	p.nrecords = r->n;
	/* the stacks in a thread of their own, when there are enough to share the work */
	threaded = p.nchunks > 1 && pthread_create(&renderer, NULL, render_chunks, &p) == 0;
	ret = write_chunks(&w, &p, threaded);
	if (threaded)
		pthread_join(renderer, NULL);
	stacker__add_stats(p.stacker, stats);
	if (ret == 0)
		ret = write_living_threads(&w);
	if (ret == 0)
		ret = write_trailer(&w.out, stats);
cleanup:
	stacker__free(p.stacker);
	for (size_t k = 0; k < STACK_CHUNKS_IN_FLIGHT; k++)
		stack_chunk__release(&p.slots[k]);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.changed);
	thread_stats__free(w.threads);
	stack_roots__free(w.roots);
	strbuf__release(&w.stack);
	strbuf__release(&w.locs);
	htab__release(&w.values);
	htab__release(&w.ends);
	htab__release(&w.clocks);
	for (size_t k = 0; k < RECORD_MAX_EVENTS; k++)
		tp_fields__free(w.tp[k]);
	lp_writer__release(&w.out);
	return ret;
}
