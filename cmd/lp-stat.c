/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-stat: count events of a command, of processes or of CPUs, as perf stat does. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdutil.h"
#include "eventargs.h"
#include "base/safeout.h"
#include "record/eventspec.h"
#include "record/heldcmd.h"
#include "stat/counters.h"
#include "stat/statprint.h"
#include "stream/lpstream.h"
#include "version.h"

static const char usage_text[] =
	"Usage: lp-stat [OPTION]... [--] COMMAND [ARG]...\n"
	"       lp-stat [OPTION]... -p PID[,PID]... | -a | -C LIST [-- COMMAND [ARG]...]\n"
	"Count events of COMMAND and everything it spawns, of running processes (-p)\n"
	"or of every task on the CPUs (-a, -C), and print the counts as perf stat does,\n"
	"on stderr. With -p, -a or -C and a COMMAND, count for as long as COMMAND runs\n"
	"(perf's `-p PID -- sleep 10`); without one, until Ctrl-C or the processes end.\n"
	"\n"
	"  -e, --event=EVENT[,EVENT]...  count these (again for more); default: perf\n"
	"                        stat's, task-clock (cpu-clock with -a), context-switches,\n"
	"                        cpu-migrations, page-faults, cycles, instructions,\n"
	"                        branches, branch-misses. Names as lp-record -e takes them;\n"
	"                        tracepoint wildcards such as 'sched:sched_process_*'\n"
	"      --list-events [PATTERN] list the events this machine offers and exit\n"
	"  -p, --pid=PID[,PID]   count the threads of running processes\n"
	"  -a, --all-cpus        count every task on every CPU\n"
	"  -C, --cpu=LIST        count every task on these CPUs (0,2-3)\n"
	"  -r, --repeat=N        run COMMAND N times: the mean and its spread ( +- x.xx% )\n"
	"  -I, --interval-print=MS  print the counts of each MS milliseconds (10 or more)\n"
	"  -x, --field-separator=SEP  perf stat's CSV columns, separated by SEP\n"
	"      --per-thread      each thread's counts (-p)\n"
	"      --per-process     each process's counts (-p)\n"
	"  -o, --output=FILE     also write the counts as an lp stream (N records,\n"
	"                        lp-stream(5)) to FILE, whole or not at all ('-': stdout)\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n"
	"\n"
	"Exit status: COMMAND's own; 125 when lp-stat fails, 126 or 127 when COMMAND\n"
	"cannot be run, 2 on a usage error; without COMMAND 0 or 1.\n";

enum { OPT_LIST_EVENTS = 256, OPT_PER_THREAD, OPT_PER_PROCESS };
enum { EXIT_OWN = 125, MAX_EVENTS = 4096, MAX_RUNS = 100000 };

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "list-events", optional_argument, NULL, OPT_LIST_EVENTS },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "per-process", no_argument, NULL, OPT_PER_PROCESS },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* One event counted, and its readings over the runs. */
struct stat_event {
	char *name;
	struct counter_event ce;
	enum stat_role role;
	struct run_stats value, running, enabled;
	enum counter_state state;
	struct counter_value last;	/* at the last interval */
	bool warned;
};

struct stat {
	struct stat_event *events;
	size_t nevents;
	int *pids;
	size_t npids;
	bool cpus, per_thread, per_process;
	uint64_t cpu_mask[1024 / 64];
	bool cpu_list;
	unsigned runs, interval_ms;
	const char *sep, *output;
	char **argv;			/* COMMAND, or NULL */
	bool command_counted;		/* COMMAND is what is counted (no -p, -a, -C) */
	/* the run under way */
	struct counters *counters;
	struct held_command *held;
	uint64_t t0, last_tick;
	uint64_t ticks;			/* intervals printed */
	unsigned interval_lines;
	int status;			/* COMMAND's wait status */
	struct rusage ru;
	struct run_stats elapsed;
	struct safeout *out;
	struct lp_writer w;
	char **comms;			/* per unit, for --per-thread */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int add_event(void *ctx, const char *name)
{
	struct stat *st = ctx;
	struct event_spec spec;
	struct lp_error err = { 0 };
	struct stat_event *e;
	int ret;

	if (st->nevents >= MAX_EVENTS)
		usage_error("at most %d events", MAX_EVENTS);
	if ((ret = event_spec__parse(&spec, name, NULL, &err)) < 0) {
		if (ret == -ENOMEM) {
			error("out of memory");
			exit(EXIT_OWN);
		}
		usage_error("%s", err.msg);
	}
	if (!(e = realloc(st->events, (st->nevents + 1) * sizeof(*e)))) {
		error("out of memory");
		exit(EXIT_OWN);
	}
	st->events = e;
	e = &st->events[st->nevents++];
	*e = (struct stat_event){
		.name = strdup(name),
		.ce = { .type = spec.type, .config = spec.config, .config1 = spec.config1, .config2 = spec.config2 },
		.role = stat_role__of(spec.type, spec.config),
	};
	e->ce.name = e->name;
	event_spec__release(&spec);
	if (!e->name) {
		error("out of memory");
		exit(EXIT_OWN);
	}
	return 0;
}

/* perf stat's default set: the clock of what is counted, the scheduler's and the PMU's basics. */
static void default_events(struct stat *st)
{
	static const char *const rest[] = { "context-switches", "cpu-migrations", "page-faults", "cycles",
					    "instructions", "branches", "branch-misses" };

	add_event(st, st->cpus ? "cpu-clock" : "task-clock");
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		add_event(st, rest[i]);
}

static void parse_options(struct stat *st, int argc, char **argv)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "+e:p:aC:r:I:x:o:hV", long_options, NULL)) != -1) {
		switch (opt) {
		case 'e': event_args__each(optarg, add_event, st); break;
		case OPT_LIST_EVENTS:
			exit(list_events(EXIT_RUNTIME, optarg ? optarg : optind < argc && argv[optind][0] != '-' ?
							   argv[optind] : NULL));
		case 'p': st->npids = pid_list_arg(optarg, &st->pids); break;
		case 'a': st->cpus = true; break;
		case 'C':
			cpu_list_arg(optarg, st->cpu_mask, sizeof(st->cpu_mask) / 8);
			st->cpus = st->cpu_list = true;
			break;
		case 'r': st->runs = (unsigned)range_arg("--repeat", optarg, 1, MAX_RUNS); break;
		case 'I': st->interval_ms = (unsigned)range_arg("--interval-print", optarg, 10, 86400000); break;
		case 'x':
			if (!*optarg || strpbrk(optarg, "\n"))
				usage_error("-x needs a separator such as ','");
			st->sep = optarg;
			break;
		case OPT_PER_THREAD: st->per_thread = true; break;
		case OPT_PER_PROCESS: st->per_process = true; break;
		case 'o': st->output = optarg; break;
		default: common_option(opt, usage_text);
		}
	}
	st->argv = optind < argc ? argv + optind : NULL;
	if (st->npids && st->cpus)
		usage_error("give -p or -a/-C, not both");
	if (!st->argv && !st->npids && !st->cpus)
		usage_error("give a command to count, or -p PID, or -a");
	st->command_counted = !st->npids && !st->cpus;
	if (st->runs > 1 && !st->command_counted)
		usage_error("--repeat runs a command: it cannot repeat counting of -p, -a or -C");
	if (st->runs > 1 && st->interval_ms)
		usage_error("give --repeat or --interval-print, not both");
	if ((st->per_thread || st->per_process) && !st->npids)
		usage_error("--per-thread and --per-process need -p: a command's threads are counted together");
	if (st->per_thread && st->per_process)
		usage_error("give --per-thread or --per-process, not both");
	if (!st->runs)
		st->runs = 1;
	if (!st->nevents)
		default_events(st);
}

/* The counters of the target, opened; the command held before its exec where it is what is counted. */
static int open_run(struct stat *st, struct lp_error *err)
{
	static struct counter_event ces[MAX_EVENTS];
	struct counter_opts o = { .events = ces, .nevents = st->nevents };
	int pid;

	for (size_t k = 0; k < st->nevents; k++)
		ces[k] = st->events[k].ce;
	if (st->argv && !(st->held = held_command__start(st->argv, err)))
		return -errno;
	if (st->command_counted) {
		pid = held_command__pid(st->held);
		o.scope = COUNTER_TASK;
		o.pids = &pid;
		o.npids = 1;
		o.enable_on_exec = true;
	} else if (st->cpus) {
		o.scope = COUNTER_CPUS;
		o.cpu_mask = st->cpu_list ? st->cpu_mask : NULL;
	} else {
		o.scope = COUNTER_THREADS;
		o.pids = st->pids;
		o.npids = st->npids;
	}
	if (!(st->counters = counters__open(&o, err)))
		return -errno;
	if (!st->command_counted && counters__enable(st->counters) < 0)
		return lp_error__set(err, -errno, "cannot enable the counters");
	return 0;
}

/* A unit's "comm" for --per-thread, read while it runs. */
static char *unit_comm(const struct counters *c, size_t u)
{
	char path[64], buf[64] = "?";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", counters__unit_id(c, u));
	if ((f = fopen(path, "r"))) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
	return strdup(buf);
}

static void read_comms(struct stat *st)
{
	size_t n = counters__units(st->counters);

	if (!st->per_thread && !st->per_process)
		return;
	st->comms = calloc(n, sizeof(*st->comms));
	for (size_t u = 0; st->comms && u < n; u++)
		st->comms[u] = unit_comm(st->counters, u);
}

static const char *target_name(const struct stat *st, char *buf, size_t size)
{
	size_t len = 0;

	if (st->cpus && !st->cpu_list)
		return "'system wide'";
	if (st->cpus)
		return "'CPU(s)'";
	if (st->npids) {
		len = (size_t)snprintf(buf, size, "process id '");
		for (size_t i = 0; i < st->npids && len < size; i++)
			len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", st->pids[i]);
		if (len < size)
			snprintf(buf + len, size - len, "'");
		return buf;
	}
	len = (size_t)snprintf(buf, size, "'");
	for (char **a = st->argv; *a && len < size; a++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", a == st->argv ? "" : " ", *a);
	if (len < size)
		snprintf(buf + len, size - len, "'");
	return buf;
}

/* Judges a reading into a line; the implausible said once. */
static struct stat_line line_of(struct stat_event *e, const struct counter_value *v, bool supported)
{
	struct stat_line l = { .name = e->name, .role = e->role };
	bool implausible;

	l.state = counter_value__judge(v, supported, &l.value, &implausible);
	l.running = (double)v->running;
	l.enabled = (double)v->enabled;
	if (implausible && !e->warned) {
		warning("'%s' counted %" PRIu64 ", which no program does: its PMU is not to be trusted here, "
			"the count is left out", e->name, v->value);
		e->warned = true;
	}
	return l;
}

static enum lp_count_state count_state(enum counter_state s)
{
	return s == COUNTER_NOT_SUPPORTED ? LP_COUNT_NOT_SUPPORTED :
	       s == COUNTER_NOT_COUNTED ? LP_COUNT_NOT_COUNTED : LP_COUNT_COUNTED;
}

/* An N record of a reading (a total when pid < 0), keys after it. */
static int write_count(struct stat *st, uint64_t time, int pid, int tid, const char *comm,
		       const struct stat_event *e, enum counter_state s, const struct counter_value *v)
{
	if (!st->out)
		return 0;
	return lp_writer__count(&st->w, time, pid, tid, comm, e->name, count_state(s), v->value, v->enabled,
				v->running);
}

static int end_record(struct stat *st)
{
	return st->out ? lp_writer__end(&st->w) : 0;
}

static int write_key(struct stat *st, const char *key, uint64_t v)
{
	return st->out ? lp_writer__attr_u64(&st->w, key, v) : 0;
}

static void prefix_time(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%6" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

/* One interval's lines: each event's counts since the last tick. */
static int print_interval(struct stat *st, uint64_t t)
{
	struct stat_line lines[MAX_EVENTS];
	char prefix[32];
	struct stat_print p = { .out = stderr, .sep = st->sep, .runs = 1, .elapsed_ns = (double)(t - st->last_tick),
				.prefix = prefix };
	int ret = 0;

	if ((ret = counters__snapshot(st->counters)) < 0)
		return ret;
	if (!st->sep && st->interval_lines++ % 25 == 0)
		stat_print__interval_header(&p, false);
	prefix_time(prefix, sizeof(prefix), t - st->t0);
	for (size_t k = 0; k < st->nevents; k++) {
		struct stat_event *e = &st->events[k];
		struct counter_value now, d;

		if ((ret = counters__read(st->counters, k, SIZE_MAX, &now)) < 0)
			return ret;
		d = counter_value__delta(&now, &e->last);
		e->last = now;
		lines[k] = line_of(e, &d, counters__supported(st->counters, k));
		if (ret == 0 && (ret = write_count(st, t, -1, -1, NULL, e, lines[k].state, &d)) == 0 &&
		    (ret = write_key(st, "interval", t - st->last_tick)) == 0)
			ret = end_record(st);
	}
	for (size_t k = 0; k < st->nevents; k++)
		stat_print__line(&p, lines, st->nevents, k);
	st->last_tick = t;
	return ret;
}

static int wait_fds(struct stat *st, struct pollfd *fds)
{
	int n = 0;

	if (st->held && held_command__fd(st->held) >= 0)
		fds[n++] = (struct pollfd){ .fd = held_command__fd(st->held), .events = POLLIN };
	return n;
}

/* Whether the processes of -p have all exited. */
static bool pids_gone(const struct stat *st)
{
	for (size_t i = 0; i < st->npids; i++)
		if (kill(st->pids[i], 0) == 0 || errno != ESRCH)
			return false;
	return st->npids > 0;
}

/* Waits for the end of what is counted, printing the intervals on the way. */
static int wait_run(struct stat *st)
{
	struct pollfd fds[1];
	int nfds = wait_fds(st, fds), ret;

	for (;;) {
		uint64_t t = now_ns();
		int timeout = -1;

		if (st->interval_ms) {
			/* on a grid from the start, each printed when read, as perf's timer does */
			uint64_t next = st->t0 + (st->ticks + 1) * (uint64_t)st->interval_ms * 1000000u;

			if (t >= next) {
				st->ticks++;
				if ((ret = print_interval(st, t)) < 0)
					return ret;
				continue;
			}
			timeout = (int)((next - t + 999999) / 1000000);
		}
		/* -p alone: until its processes exit; a command without a pidfd: until it is reaped */
		if ((st->held ? !nfds : st->npids > 0) && (timeout < 0 || timeout > 100))
			timeout = 100;
		if (interrupted && !st->held)
			return 0;
		ret = poll(fds, (nfds_t)nfds, timeout);
		if (ret > 0 && nfds)
			break;
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (!st->held && pids_gone(st))
			return 0;
		if (st->held && !nfds && (ret = held_command__wait(st->held, false, &st->status, &st->ru)) != 0)
			return ret < 0 ? ret : 0;
	}
	ret = held_command__wait(st->held, true, &st->status, &st->ru);
	return ret < 0 ? ret : 0;
}

static void accumulate(struct stat *st, struct stat_line *lines)
{
	for (size_t k = 0; k < st->nevents; k++) {
		struct stat_event *e = &st->events[k];

		e->state = lines[k].state;
		if (lines[k].state != COUNTER_COUNTED)
			continue;
		run_stats__add(&e->value, lines[k].value);
		run_stats__add(&e->running, lines[k].running);
		run_stats__add(&e->enabled, lines[k].enabled);
	}
}

/* The run's totals: into the stream, and into the means over runs. */
static int read_totals(struct stat *st, unsigned run, uint64_t t)
{
	struct stat_line lines[MAX_EVENTS];
	int ret = 0;

	for (size_t k = 0; k < st->nevents && ret == 0; k++) {
		struct stat_event *e = &st->events[k];
		struct counter_value v;

		if ((ret = counters__read(st->counters, k, SIZE_MAX, &v)) < 0)
			break;
		lines[k] = line_of(e, &v, counters__supported(st->counters, k));
		if ((ret = write_count(st, t, -1, -1, NULL, e, lines[k].state, &v)) == 0 &&
		    (st->runs < 2 || (ret = write_key(st, "run", run)) == 0))
			ret = end_record(st);
	}
	if (ret == 0)
		accumulate(st, lines);
	return ret;
}

/* One line of --per-thread or --per-process: a unit, or a process's units summed. */
struct unit_line {
	int pid, tid;
	const char *comm;
	struct counter_value v;
};

static int by_value_desc(const void *a, const void *b)
{
	const struct unit_line *x = a, *y = b;

	return x->v.value < y->v.value ? 1 : x->v.value > y->v.value ? -1 : (x->tid > y->tid) - (x->tid < y->tid);
}

/* Event k summed over the units of line l: its thread, or its process's threads. */
static int sum_units(struct stat *st, size_t k, const struct unit_line *l, struct counter_value *v)
{
	int ret = 0;

	*v = (struct counter_value){ 0 };
	for (size_t u = 0; ret == 0 && u < counters__units(st->counters); u++) {
		struct counter_value one;

		if (st->per_process ? counters__unit_process(st->counters, u) != l->pid :
				      counters__unit_id(st->counters, u) != l->tid)
			continue;
		if ((ret = counters__read(st->counters, k, u, &one)) == 0)
			counter_value__add(v, &one);
	}
	return ret;
}

/* Event k's lines, a thread's or a process's each, heaviest first as perf sorts them. */
static int unit_lines(struct stat *st, size_t k, struct unit_line *out, size_t *n)
{
	size_t units = counters__units(st->counters);
	int ret = 0;

	*n = 0;
	for (size_t u = 0; u < units; u++) {
		struct unit_line l = {
			.pid = counters__unit_process(st->counters, u), .tid = counters__unit_id(st->counters, u),
			.comm = st->comms && st->comms[u] ? st->comms[u] : "?",
		};
		size_t at = 0;

		/* a process's line is named after its first thread, and is there once */
		if (st->per_process) {
			while (at < *n && out[at].pid != l.pid)
				at++;
			if (at < *n && l.tid != l.pid)
				continue;
			l.tid = l.pid;
			if (at < *n) {
				out[at].comm = l.comm;
				continue;
			}
		}
		out[(*n)++] = l;
	}
	for (size_t i = 0; ret == 0 && i < *n; i++)
		ret = sum_units(st, k, &out[i], &out[i].v);
	qsort(out, *n, sizeof(*out), by_value_desc);
	return ret;
}

/* --per-thread, --per-process: for each event, each unit's (or process's) line and record. */
static int print_units(struct stat *st, uint64_t t, double elapsed)
{
	size_t units = counters__units(st->counters), n;
	struct unit_line *ls = calloc(units ? units : 1, sizeof(*ls));
	char prefix[64], target[4096];
	struct stat_print p = { .out = stderr, .sep = st->sep, .runs = 1, .elapsed_ns = elapsed, .prefix = prefix };
	int ret = ls ? 0 : -ENOMEM;

	stat_print__header(&p, target_name(st, target, sizeof(target)));
	for (size_t k = 0; ret == 0 && k < st->nevents; k++) {
		if ((ret = unit_lines(st, k, ls, &n)) < 0)
			break;
		for (size_t i = 0; ret == 0 && i < n; i++) {
			struct stat_line with_clock[2];
			size_t nl = 1;

			with_clock[0] = line_of(&st->events[k], &ls[i].v, counters__supported(st->counters, k));
			/* a rate is of the unit's own CPU time */
			for (size_t c = 0; c < st->nevents; c++)
				if (c != k && (st->events[c].role == STAT_ROLE_TASK_CLOCK ||
					       st->events[c].role == STAT_ROLE_CPU_CLOCK)) {
					struct counter_value cv;

					if (sum_units(st, c, &ls[i], &cv) == 0)
						with_clock[nl++] = line_of(&st->events[c], &cv, true);
					break;
				}
			snprintf(prefix, sizeof(prefix), st->sep ? "%s-%d" : "%16s-%-8d", ls[i].comm, ls[i].tid);
			stat_print__line(&p, with_clock, nl, 0);
			if ((ret = write_count(st, t, ls[i].pid, ls[i].tid, ls[i].comm, &st->events[k],
					       with_clock[0].state, &ls[i].v)) == 0)
				ret = end_record(st);
		}
	}
	free(ls);
	return ret;
}

static void end_run(struct stat *st)
{
	size_t n = st->counters ? counters__units(st->counters) : 0;

	for (size_t u = 0; st->comms && u < n; u++)
		free(st->comms[u]);
	free(st->comms);
	st->comms = NULL;
	counters__free(st->counters);
	st->counters = NULL;
	held_command__free(st->held);
	st->held = NULL;
}

/* Exec failures as the shell says them, 127 or 126. */
static int exec_failed(const struct stat *st, int ret)
{
	error("cannot run '%s': %s", st->argv[0], strerror(-ret));
	return ret == -ENOENT ? 127 : 126;
}

/* One run: its counts into the means; its status (0 or the command's), or -1 after saying why. */
static int one_run(struct stat *st, unsigned run, int *status)
{
	struct lp_error err = { 0 };
	uint64_t t1;
	int ret;

	if ((ret = open_run(st, &err)) < 0) {
		error_report(&err);
		*status = EXIT_OWN;
		return -1;
	}
	read_comms(st);
	st->t0 = st->last_tick = now_ns();
	st->ticks = 0;
	for (size_t k = 0; k < st->nevents; k++)
		st->events[k].last = (struct counter_value){ 0 };
	if (st->held && (ret = held_command__go(st->held, &err)) < 0) {
		*status = err.kind == LP_ERROR_EXEC ? exec_failed(st, ret) : (error_report(&err), EXIT_OWN);
		return -1;
	}
	if ((ret = wait_run(st)) < 0) {
		error("waiting for the end: %s", strerror(-ret));
		*status = EXIT_OWN;
		return -1;
	}
	t1 = now_ns();
	counters__disable(st->counters);
	run_stats__add(&st->elapsed, (double)(t1 - st->t0));
	if (st->interval_ms && t1 > st->last_tick && (ret = print_interval(st, t1)) < 0)
		goto failed;
	if ((ret = counters__snapshot(st->counters)) < 0 || (ret = read_totals(st, run, t1)) < 0)
		goto failed;
	if ((st->per_thread || st->per_process) && !st->interval_ms &&
	    (ret = print_units(st, t1, (double)(t1 - st->t0))) < 0)
		goto failed;
	*status = st->held ? (WIFEXITED(st->status) ? WEXITSTATUS(st->status) : 128 + WTERMSIG(st->status)) : 0;
	return 0;
failed:
	error("cannot read the counts: %s", strerror(-ret));
	*status = EXIT_OWN;
	return -1;
}

static void print_summary(struct stat *st)
{
	static struct stat_line lines[MAX_EVENTS];
	char target[4096];
	struct stat_print p = { .out = stderr, .sep = st->sep, .runs = st->runs, .elapsed_ns = st->elapsed.mean };
	double user_sys[2] = {
		st->ru.ru_utime.tv_sec + st->ru.ru_utime.tv_usec / 1e6,
		st->ru.ru_stime.tv_sec + st->ru.ru_stime.tv_usec / 1e6,
	};

	for (size_t k = 0; k < st->nevents; k++) {
		const struct stat_event *e = &st->events[k];

		lines[k] = (struct stat_line){
			.name = e->name, .role = e->role, .state = e->value.n ? COUNTER_COUNTED : e->state,
			.value = e->value.mean, .running = e->running.mean, .enabled = e->enabled.mean,
			.stderr_pct = e->value.mean > 0 ? 100 * run_stats__stderr(&e->value) / e->value.mean : 0,
		};
	}
	if (!st->per_thread && !st->per_process)
		stat_print__header(&p, target_name(st, target, sizeof(target)));
	for (size_t k = 0; !st->per_thread && !st->per_process && k < st->nevents; k++)
		stat_print__line(&p, lines, st->nevents, k);
	stat_print__footer(&p, run_stats__stderr(&st->elapsed), st->command_counted ? user_sys : NULL);
}

static int open_output(struct stat *st)
{
	const char *cmd[2] = { "lp-stat", NULL };

	if (!st->output)
		return 0;
	if (!(st->out = safeout__open(strcmp(st->output, "-") ? st->output : NULL))) {
		error("cannot write '%s': %s", st->output, strerror(errno));
		return -1;
	}
	lp_writer__init(&st->w, safeout__file(st->out));
	if (lp_writer__version(&st->w) < 0)
		return -1;
	cmd[0] = LP_VERSION;
	if (lp_writer__meta(&st->w, "version", cmd, 1) < 0)
		return -1;
	if (st->argv) {
		size_t n = 0;

		while (st->argv[n])
			n++;
		if (lp_writer__meta(&st->w, "command", (const char *const *)st->argv, n) < 0)
			return -1;
	}
	return 0;
}

/* The stream's end: the elapsed time, its trailer, the file put in place. */
static int close_output(struct stat *st, bool ok)
{
	char buf[32];
	const char *v[1] = { buf };
	int ret = 0;

	if (!st->out)
		return 0;
	if (ok) {
		snprintf(buf, sizeof(buf), "%.0f", st->elapsed.mean);
		if ((ret = lp_writer__meta(&st->w, "elapsed", v, 1)) == 0 && (ret = lp_writer__trailer(&st->w)) == 0)
			ret = lp_writer__flush(&st->w);
	}
	lp_writer__release(&st->w);
	if (!ok || ret < 0) {
		safeout__abort(st->out);
		st->out = NULL;
		return ret;
	}
	ret = safeout__commit(st->out);
	st->out = NULL;
	if (ret < 0)
		error("cannot write '%s': %s", st->output, strerror(-ret));
	return ret;
}

int main(int argc, char **argv)
{
	struct stat st = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	int status = 0;
	bool ok = true;

	set_progname("lp-stat", argv);
	parse_options(&st, argc, argv);
	exit_failure = st.argv ? EXIT_OWN : EXIT_RUNTIME;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (open_output(&st) < 0)
		return EXIT_OWN;
	for (unsigned run = 1; ok && run <= st.runs; run++) {
		ok = one_run(&st, run, &status) == 0;
		end_run(&st);
	}
	if (ok && !st.interval_ms)
		print_summary(&st);
	if (close_output(&st, ok) < 0 && ok)
		status = EXIT_OWN;
	for (size_t k = 0; k < st.nevents; k++)
		free(st.events[k].name);
	free(st.events);
	free(st.pids);
	return status;
}
