/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The main of lp-record and lp-offcpu: one recorder, two sets of defaults and options. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdutil.h"
#include "eventargs.h"
#include "version.h"	/* LP_VERSION, made by make from git describe or VERSION */
#include "base/hugemem.h"
#include "record/eventlist.h"
#include "record/launcher.h"
#include "base/numparse.h"
#include "record/privilege.h"
#include "recordcmd.h"
#include "stream/lpstream.h"
#include "record/recorder.h"
#include "record/syscheck.h"
#include "symbols/symbolizer.h"

enum { EXIT_OWN = 125 };

static const char record_usage[] =
	"Usage: lp-record [OPTION]... [--] COMMAND [ARG]...\n"
	"       lp-record [OPTION]... -p PID[,PID]... [-- COMMAND [ARG]...]\n"
	"       lp-record [OPTION]... -a|-C LIST [[--] COMMAND [ARG]...]\n"
	"Sample COMMAND and every thread and process it spawns on the CPU and off it\n"
	"(blocked or waiting), and write the samples, symbolised, with thread and\n"
	"process lifecycle, as an lp stream (lp-stream(5)) on stdout or to FILE.\n"
	"COMMAND's stdout goes to stderr when the stream goes to stdout; its stderr is\n"
	"left alone.\n"
	"\n"
	"  -o, --output=FILE     write the stream to FILE; %h, %r, %p, %t in it become\n"
	"                        the host, the MPI/Slurm rank, the pid and the start\n"
	"                        time (run.%r.lp: a stream per rank), %% a '%'\n"
	"  -p, --pid=PID[,PID]   attach to running processes until they exit or Ctrl-C,\n"
	"                        or while COMMAND runs (-p PID -- sleep 10)\n"
	"  -a, --all-cpus        record every process on the machine, while COMMAND\n"
	"                        runs or until Ctrl-C\n"
	"  -C, --cpu=LIST        as -a, on the CPUs of LIST only (0,2-3)\n"
	"  -F, --freq=HZ         samples a second of CPU time per thread (999); 0: no\n"
	"                        on-CPU samples (custom events and off-CPU only)\n"
	"      --period=NS       sample every NS of CPU time instead\n"
	"      --offcpu-freq=HZ  off-CPU ticks a second (1000); -1: every off-CPU\n"
	"                        interval; 0: no off-CPU sampling\n"
	"      --offcpu-buffer=N wake up every N off-CPU records (default: when half full)\n"
	"      --capture=WHAT    stacks to take: user, kernel or both (user)\n"
	"  -e, --event=EVENT[,PERIOD[,TITLE[,UNIT]]]\n"
	"                        also sample EVENT every PERIOD occurrences, with stacks\n"
	"                        (repeatable): cycles, page-faults, rNNNN, PMU/TERMS/,\n"
	"                        SYSTEM:TRACEPOINT, a libpfm4 name; see --list-events\n"
	"      --list-events [PATTERN] list the events this machine offers and exit\n"
	"      --check           check what this machine lets lp-record do, with the\n"
	"                        remedies, and exit (1 if something stops it)\n"
	"      --stack-size=BYTES user stack copied with each on-CPU sample, unwound\n"
	"                        with frame pointers and CFI (24576, at most 65528; off\n"
	"                        the CPU at most 16384): bigger reaches callers beyond\n"
	"                        big frames, at that many bytes a sample\n"
	"      --kernel-fp       on-CPU samples: the kernel also walks the user stack's\n"
	"                        frame pointers (perf -g), past the copy, at a read of\n"
	"                        user memory a frame\n"
	"      --demangle=HOW    C++ names: short (as perf shows them: no return type,\n"
	"                        no parameters; the default), full or none\n"
	"  -m, --mmap-pages=N    ring buffer pages per CPU, a power of two (256); each\n"
	"                        -e event's ring has 4 times as many\n"
	"      --buffer=N        wake up every N samples (default: when 1/4 full)\n"
	"      --no-spawn-stacks do not record the stacks that spawn threads/processes\n"
	"      --spill-after=SIZE keep SIZE of records in memory (64M), the rest in an\n"
	"                        unlinked file beside FILE (else in $TMPDIR or /var/tmp)\n"
	"                        until written; 0: all in memory\n"
	"      --live            write the stream while COMMAND runs, each record a\n"
	"                        moment after it happens: a reader (lp-svg) is done\n"
	"                        soon after COMMAND ends; on-CPU and custom events\n"
	"                        only (no off-CPU), lost-sample counts at the end\n"
	"      --time-tolerance=PCT warn of threads whose sampled on-CPU time strays\n"
	"                        more than PCT% from the kernel's exact figure (20),\n"
	"                        and of -e events whose samples stray so from their\n"
	"                        exact count (by a period or more)\n"
	"  -q, --quiet           no summary on stderr\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n"
	"\n"
	"Exit status: COMMAND's (128+N if killed by signal N), 125 for lp-record's own\n"
	"errors, 126 if COMMAND cannot run, 127 if it is not found, 2 on a usage error.\n";

static const char offcpu_usage[] =
	"Usage: lp-offcpu [OPTION]... [--] COMMAND [ARG]...\n"
	"       lp-offcpu [OPTION]... -p PID[,PID]... [-- COMMAND [ARG]...]\n"
	"Sample the time COMMAND and every thread and process it spawns spend off the\n"
	"CPU (blocked, sleeping, waiting to run) with eBPF on sched_switch, and write\n"
	"the samples, symbolised, with thread and process lifecycle, as an lp stream\n"
	"(lp-stream(5)) on stdout or to FILE.\n"
	"\n"
	"  -o, --output=FILE     write the stream to FILE; %h, %r, %p, %t in it become\n"
	"                        the host, the MPI/Slurm rank, the pid and the start\n"
	"                        time (run.%r.lp: a stream per rank), %% a '%'\n"
	"  -p, --pid=PID[,PID]   attach to running processes until they exit or Ctrl-C,\n"
	"                        or while COMMAND runs (-p PID -- sleep 10)\n"
	"  -F, --freq=HZ         ticks a second (1000): intervals holding a tick are\n"
	"                        reported, weighted by their ticks; -1: every interval\n"
	"      --offcpu-buffer=N wake up every N records (default: when half full)\n"
	"      --capture=WHAT    stacks to take: user, kernel or both (user)\n"
	"      --stack-size=BYTES user stack copied at each switch-out for CFI unwinding\n"
	"                        (16384, the most): less costs less, and may not reach\n"
	"                        past big frames (glibc's lazy binding: 2.5 KB)\n"
	"  -m, --mmap-pages=N    ring buffer pages per CPU for lifecycle records (64)\n"
	"      --raw-tp          attach to the raw tracepoint even where tp_btf works\n"
	"      --demangle=HOW    C++ names: short (as perf shows them: no return type,\n"
	"                        no parameters; the default), full or none\n"
	"      --no-spawn-stacks do not record the stacks that spawn threads/processes\n"
	"      --spill-after=SIZE keep SIZE of records in memory (64M), the rest in an\n"
	"                        unlinked file beside FILE (else in $TMPDIR or /var/tmp)\n"
	"                        until written; 0: all in memory\n"
	"  -q, --quiet           no summary on stderr\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n"
	"\n"
	"Exit status: COMMAND's (128+N if killed by signal N), 125 for lp-offcpu's own\n"
	"errors, 126 if COMMAND cannot run, 127 if it is not found, 2 on a usage error.\n";

enum { OPT_PERIOD = 256, OPT_CAPTURE, OPT_BUFFER, OPT_NO_SPAWN, OPT_OFFCPU_FREQ, OPT_OFFCPU_BUFFER, OPT_RAW_TP,
       OPT_STACK_SIZE, OPT_LIST_EVENTS, OPT_TIME_TOLERANCE, OPT_CHECK, OPT_SPILL_AFTER, OPT_LIVE, OPT_KERNEL_FP,
       OPT_DEMANGLE };

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "freq", required_argument, NULL, 'F' },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "offcpu-freq", required_argument, NULL, OPT_OFFCPU_FREQ },
	{ "offcpu-buffer", required_argument, NULL, OPT_OFFCPU_BUFFER },
	{ "raw-tp", no_argument, NULL, OPT_RAW_TP },
	{ "capture", required_argument, NULL, OPT_CAPTURE },
	{ "stack-size", required_argument, NULL, OPT_STACK_SIZE },
	{ "event", required_argument, NULL, 'e' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "time-tolerance", required_argument, NULL, OPT_TIME_TOLERANCE },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "cpu", required_argument, NULL, 'C' },
	{ "list-events", optional_argument, NULL, OPT_LIST_EVENTS },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "buffer", required_argument, NULL, OPT_BUFFER },
	{ "no-spawn-stacks", no_argument, NULL, OPT_NO_SPAWN },
	{ "spill-after", required_argument, NULL, OPT_SPILL_AFTER },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "kernel-fp", no_argument, NULL, OPT_KERNEL_FP },
	{ "demangle", required_argument, NULL, OPT_DEMANGLE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static struct recorder *active;
static volatile sig_atomic_t stop;

/*
 * Ctrl-C (or SIGTERM) goes to the command; a command that ignores it is sent
 * SIGTERM at the second, SIGKILL at the third, so it can always be stopped,
 * and the stream is still written whole.
 */
static void on_signal(int sig)
{
	static volatile sig_atomic_t times;

	stop = 1;
	times++;
	if (active)
		recorder__signal(active, times == 1 ? sig : times == 2 ? SIGTERM : SIGKILL);
}

/* Why the stream to output (NULL: stdout) could not be written: -EIO with errno err (0: unknown), or -errno. */
static void say_write_error(const char *output, int ret, int err)
{
	if (ret == -EIO)
		error("cannot write %s%s%s: %s", output ? "'" : "the stream to stdout", output ? output : "",
		      output ? "'" : "", strerror(err ? err : EIO));
	else
		error("writing the stream: %s", strerror(-ret));
}

static int write_version(FILE *out)
{
	struct lp_writer w;
	int ret;

	lp_writer__init(&w, out);
	ret = lp_writer__version(&w);
	lp_writer__release(&w);
	return ret < 0 || fflush(out) != 0 || ferror(out) ? -1 : 0;
}

static uint64_t count(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	return range_arg(opt, arg, min, max);
}

static void warn_check(void *ctx, const struct check *c)
{
	(void)ctx;
	/* the sample rate is lowered with its own message; hidden kernel symbols are said after recording */
	if (c->status != CHECK_WARNING || !strcmp(c->name, "perf_event_max_sample_rate") ||
	    !strcmp(c->name, "kptr_restrict"))
		return;
	warning("%s: %s; %s", c->name, c->text, c->remedy);
}

/*
 * Refuses what cannot work, warns about what will work badly, lowers what the
 * kernel would refuse (as perf does); the remedy in each message.
 */
static int check_system(struct record_opts *o)
{
	long paranoid = event_rings__sysctl("perf_event_paranoid");
	long max_rate = event_rings__sysctl("perf_event_max_sample_rate");

	if (!privilege__may_profile(paranoid)) {
		error("perf_event_paranoid is %ld: unprivileged users cannot sample other "
		      "processes' kernel or CPU events; run as root, give %s CAP_PERFMON "
		      "(setcap cap_perfmon+ep %s), or: sysctl kernel.perf_event_paranoid=1", paranoid,
		      progname, progname);
		return -1;
	}
	if (o->perf.freq && max_rate > 0 && (long)o->perf.freq > max_rate) {
		/* perf_event_open refuses such a rate */
		warning("-F %llu is above kernel.perf_event_max_sample_rate (%ld): sampling at "
		      "%ld Hz; raise it with sysctl kernel.perf_event_max_sample_rate=%llu",
		      (unsigned long long)o->perf.freq, max_rate, max_rate, (unsigned long long)o->perf.freq);
		o->perf.freq = (uint64_t)max_rate;
	}
	/* the checks that only warn, each with its remedy */
	syscheck__run(o->perf.freq, false, warn_check, NULL);
	return 0;
}

static void print_check(void *ctx, const struct check *c)
{
	int *problems = ctx;

	printf("%-8s %s: %s\n", check_status__name(c->status), c->name, c->text);
	if (c->remedy[0])
		printf("%-8s remedy: %s\n", "", c->remedy);
	*problems += c->status == CHECK_PROBLEM;
}

/* --check: every check with its remedy; the exit status */
static int run_checks(unsigned long freq)
{
	int problems = 0;

	syscheck__run(freq, true, print_check, &problems);
	if (close_stdout() != 0) {
		error("cannot write the checks: %s", strerror(errno ? errno : EIO));
		return EXIT_OWN;
	}
	return problems ? 1 : 0;
}

/* Adds -e arg to the events to record: a usage error when it names no event this machine has. */
static void add_one_event(struct record_opts *o, struct event_spec *specs, struct perf_custom *customs, const char *arg)
{
	struct event_spec *e = &specs[o->nevents];
	struct lp_error err = { 0 };
	int ret;

	if (o->nevents == RECORD_MAX_EVENTS)
		usage_error("at most %d events (-e)", RECORD_MAX_EVENTS);
	if ((ret = event_spec__parse(e, arg, NULL, &err)) < 0) {
		if (ret == -ENOMEM) {
			error("out of memory");
			exit(EXIT_OWN);
		}
		usage_error("-e '%s': %s", arg, err.msg);
	}
	for (size_t i = 0; i < o->nevents; i++)
		if (strcmp(specs[i].key, e->key) == 0)
			usage_error("-e '%s': event '%s' is already recorded", arg, e->name);
	if (strcmp(e->key, "cpu") == 0 || strcmp(e->key, "offcpu") == 0)
		usage_error("-e '%s': '%s' is lp-record's own event key", arg, e->key);
	customs[o->nevents] = (struct perf_custom){
		.name = e->name, .type = e->type, .config = e->config, .config1 = e->config1,
		.config2 = e->config2, .period = e->period, .tracepoint = e->kind == EVENT_TRACEPOINT,
	};
	o->nevents++;
	o->perf.ncustoms = o->nevents;
}

struct glob_events {
	struct record_opts *o;
	struct event_spec *specs;
	struct perf_custom *customs;
	const char *rest;	/* ",PERIOD,TITLE,UNIT" of the -e argument, or "" */
};

static int add_matched(void *ctx, const char *name)
{
	struct glob_events *g = ctx;
	char *arg;

	if (asprintf(&arg, "%s%s", name, g->rest) < 0) {
		error("out of memory");
		exit(EXIT_OWN);
	}
	add_one_event(g->o, g->specs, g->customs, arg);
	free(arg);
	return 0;
}

/* -e EVENT[,PERIOD[,TITLE[,UNIT]]], a tracepoint wildcard (sched:sched_process_*) standing for each it matches. */
static void add_event(struct record_opts *o, struct event_spec *specs, struct perf_custom *customs, const char *arg)
{
	size_t n = event_spec__name_length(arg);
	struct glob_events g = { .o = o, .specs = specs, .customs = customs, .rest = arg + n };
	char *name = strndup(arg, n);

	if (!name) {
		error("out of memory");
		exit(EXIT_OWN);
	}
	if (event_list__is_tracepoint_glob(name))
		event_args__each(name, add_matched, &g);
	else
		add_one_event(o, specs, customs, arg);
	free(name);
}

/* An off-CPU rate: ticks a second, or -1 (every interval); 0 only where allow_zero. */
static int64_t offcpu_freq(const char *opt, const char *arg, bool allow_zero)
{
	if (strcmp(arg, "-1") == 0)
		return -1;
	return (int64_t)count(opt, arg, allow_zero ? 0 : 1, 1000000);
}


static const char *env_lookup(const char *name)
{
	return getenv(name);
}

/*
 * The rank and job the launcher (mpirun, srun) gave, for the stream, and the
 * output's name from its template (run.%h.%r.lp): before the command starts,
 * so that a %r with no rank stops nothing half-done.
 */
static int place_in_job(struct record_opts *o, const char **output, struct strbuf *name)
{
	struct launcher_info li;
	struct output_vars v = { .pid = getpid(), .start = time(NULL) };
	struct utsname u;
	struct lp_error err = { 0 };

	if (launcher__detect(env_lookup, &li, &err) < 0) {
		error_report(&err);
		return -1;
	}
	o->rank = li.rank;
	o->job = li.job;
	if (!*output || !strchr(*output, '%'))
		return 0;
	v.host = uname(&u) == 0 ? u.nodename : "localhost";
	v.rank = li.rank;
	if (output_template__expand(*output, &v, name, &err) < 0) {
		error_report(&err);
		return -1;
	}
	if (strbuf__addc(name, 0) < 0) {
		error("out of memory");
		return -1;
	}
	*output = name->s;
	return 0;
}

/*
 * Where records beyond --spill-after wait: beside the output, which has room
 * for the stream they become, else $TMPDIR, else /var/tmp (on disk, where
 * /tmp may be memory).
 */
static int spill_dir(struct record_opts *o, const char *output, char **path)
{
	const char *slash, *tmp = getenv("TMPDIR");

	if (!output) {
		o->spill_dir = tmp && *tmp ? tmp : "/var/tmp";
		return 0;
	}
	slash = strrchr(output, '/');
	*path = slash ? strndup(output, slash == output ? 1 : (size_t)(slash - output)) : strdup(".");
	if (!*path) {
		error("out of memory");
		return -1;
	}
	o->spill_dir = *path;
	return 0;
}

int record_main(int argc, char **argv, bool offcpu_only)
{
	struct record_opts o = {
		.perf = { .freq = 999, .capture = CAPTURE_USER, .mmap_pages = 256, .stack_snapshot = 24576, .read_values = true },
		.offcpu = true,
		.offcpu_required = offcpu_only,
		.offcpu_opts = { .freq = 1000, .capture = CAPTURE_USER, .snapshot = OFFCPU_SNAPSHOT },
		.spawn_stacks = true,
		.time_tolerance = 20,
		.workload_stdout = -1,
		.spill_after = (size_t)64 << 20,
		.warn = print_warning,
		.version = LP_VERSION,
	};
	struct record_stats st;
	const char *output = NULL;
	struct strbuf output_name = STRBUF_INIT;
	char *spill_path = NULL;
	struct lp_error err = { 0 };
	pid_t *pids = NULL;
	FILE *out = stdout;
	bool quiet = false, check = false, offcpu_given = false, made_file = false, whole = false, pages_given = false;
	int opt, ret, status = EXIT_OWN;
	struct timespec t0, t1;
	struct sigaction sa = { .sa_handler = on_signal };
	static char outbuf[1 << 20];
	static struct event_spec specs[RECORD_MAX_EVENTS];
	static struct perf_custom customs[RECORD_MAX_EVENTS];
	static uint64_t cpu_mask[1024 / 64];

	set_progname(offcpu_only ? "lp-offcpu" : "lp-record", argv);
	exit_failure = EXIT_OWN;
	if (offcpu_only) {
		/* no on-CPU sampling: the perf events only follow tasks and mappings */
		o.perf.freq = o.perf.period = 0;
		o.perf.mmap_pages = 64;
	}
	o.events = specs;
	o.perf.customs = customs;
	while ((opt = getopt_long(argc, argv, "+o:p:F:m:e:aC:qhV", long_options, NULL)) != -1) {
		if (offcpu_only && (opt == OPT_PERIOD || opt == OPT_OFFCPU_FREQ || opt == OPT_BUFFER ||
				    opt == 'e' || opt == OPT_LIST_EVENTS || opt == OPT_LIVE || opt == OPT_KERNEL_FP))
			opt = '?';
		if (!offcpu_only && opt == OPT_RAW_TP)
			opt = '?';
		switch (opt) {
		case 'o': output = optarg; break;
		case 'p': o.npids = pid_list_arg(optarg, &pids); break;
		case 'F':
			if (offcpu_only) {
				o.offcpu_opts.freq = offcpu_freq("-F", optarg, false);
				break;
			}
			o.perf.freq = count("-F", optarg, 0, 1000000);
			o.perf.period = 0;
			break;
		case OPT_OFFCPU_FREQ:
			o.offcpu_opts.freq = offcpu_freq("--offcpu-freq", optarg, true);
			o.offcpu = o.offcpu_opts.freq != 0;
			offcpu_given = true;
			break;
		case OPT_LIVE: o.live = true; break;
		case OPT_KERNEL_FP: o.perf.kernel_fp = true; break;
		case OPT_DEMANGLE:
			if (strcmp(optarg, "short") == 0)
				o.demangle = DEMANGLE_SHORT;
			else if (strcmp(optarg, "full") == 0)
				o.demangle = DEMANGLE_FULL;
			else if (strcmp(optarg, "none") == 0)
				o.demangle = DEMANGLE_NONE;
			else
				usage_error("--demangle takes short, full or none, got '%s'", optarg);
			break;
		case OPT_OFFCPU_BUFFER:
			o.offcpu_opts.wakeup_every = (unsigned)count("--offcpu-buffer", optarg, 0, 1 << 20);
			break;
		case OPT_RAW_TP: o.offcpu_opts.raw_tp = true; break;
		case OPT_PERIOD:
			o.perf.period = count("--period", optarg, 1000, UINT64_MAX / 2);
			o.perf.freq = 0;
			break;
		case OPT_CAPTURE:
			if (strcmp(optarg, "user") == 0)
				o.perf.capture = CAPTURE_USER;
			else if (strcmp(optarg, "kernel") == 0)
				o.perf.capture = CAPTURE_KERNEL;
			else if (strcmp(optarg, "both") == 0)
				o.perf.capture = CAPTURE_BOTH;
			else
				usage_error("--capture is user, kernel or both, not '%s'", optarg);
			o.offcpu_opts.capture = o.perf.capture;
			break;
		case 'm':
			pages_given = true;
			o.perf.mmap_pages = (unsigned)count("-m", optarg, 1, 1 << 20);
			if (o.perf.mmap_pages & (o.perf.mmap_pages - 1))
				usage_error("-m needs a power of two, got %u", o.perf.mmap_pages);
			break;
		case OPT_BUFFER: o.perf.wakeup_events = (unsigned)count("--buffer", optarg, 0, 1 << 30); break;
		case OPT_NO_SPAWN: o.spawn_stacks = false; break;
		case OPT_SPILL_AFTER: o.spill_after = (size_t)size_arg("--spill-after", optarg, true); break;
		case OPT_STACK_SIZE:
			/* perf_event_open takes a multiple of 8 that fits a sample record */
			o.perf.stack_snapshot = (unsigned)(count("--stack-size", optarg, 8, 65528) + 7) & ~7u;
			/* off the CPU, a copy at every switch: at most 4 KB */
			o.offcpu_opts.snapshot = o.perf.stack_snapshot < OFFCPU_SNAPSHOT ? o.perf.stack_snapshot :
						 OFFCPU_SNAPSHOT;
			break;
		case 'e': add_event(&o, specs, customs, optarg); break;
		case 'a': o.perf.system_wide = o.offcpu_opts.all = true; break;
		case OPT_TIME_TOLERANCE: o.time_tolerance = (unsigned)count("--time-tolerance", optarg, 1, 1000); break;
		case 'C':
			cpu_list_arg(optarg, cpu_mask, sizeof(cpu_mask) / 8);
			o.perf.system_wide = o.offcpu_opts.all = true;
			o.perf.cpu_mask = o.offcpu_opts.cpu_mask = cpu_mask;
			break;
		case OPT_LIST_EVENTS:
			/* as perf list: the pattern may follow as its own word */
			exit(list_events(EXIT_OWN, optarg ? optarg : optind < argc && argv[optind][0] != '-' ? argv[optind] : NULL));
		case OPT_CHECK: check = true; break;
		case 'q': quiet = true; break;
		default:
			common_option(opt, offcpu_only ? offcpu_usage : record_usage);
		}
	}
	if (o.live && offcpu_given && o.offcpu)
		usage_error("--live writes no off-CPU samples (each is known only when its interval ends, after "
			    "later records): give --offcpu-freq=0, or leave --live out");
	if (o.live) {
		/* its records are let go of as they are written */
		o.offcpu = false;
		o.spill_after = 0;
	}
	/*
	 * Rings grown for big stack copies lock more memory than an unprivileged
	 * user may (perf_event_mlock_kb, then RLIMIT_MEMLOCK): only with the right to.
	 */
	if (!pages_given && !offcpu_only && privilege__has(CAP_IPC_LOCK))
		o.perf.clock_pages = event_rings__pages_for(o.perf.stack_snapshot);
	if (check)
		exit(run_checks(o.perf.freq));
	if (o.npids && o.perf.system_wide)
		usage_error("-p records some processes, -a and -C all of them: give one");
	if (optind == argc && !o.npids && !o.perf.system_wide)
		usage_error("no command to record");
	o.argv = optind < argc ? argv + optind : NULL;
	o.pids = pids;
	if (check_system(&o) < 0 || place_in_job(&o, &output, &output_name) < 0)
		goto cleanup;

	if (spill_dir(&o, output, &spill_path) < 0)
		goto cleanup;
	if (output) {
		struct stat sb;

		out = fopen(output, "we");
		if (!out) {
			error("cannot open '%s': %s", output, strerror(errno));
			goto cleanup;
		}
		/* a failed recording's file goes (make's .DELETE_ON_ERROR): never a device or a pipe */
		made_file = fstat(fileno(out), &sb) == 0 && S_ISREG(sb.st_mode);
	} else if (o.argv) {
		/* the stream owns stdout: the command's output must not mix into it */
		o.workload_stdout = STDERR_FILENO;
	}
	if (out == stdout)
		widen_pipe(STDOUT_FILENO);
	setvbuf(out, outbuf, _IOFBF, sizeof(outbuf));
	/* the stream's first line now: an output that cannot be written is found before the command runs */
	if (write_version(out) < 0) {
		say_write_error(output, -EIO, errno);
		goto cleanup;
	}

	active = recorder__new(&o);
	if (!active) {
		error("out of memory");
		goto cleanup;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* the write phase's many small allocations (libdw's, the demangler's) in huge pages */
	hugemem__heap(HUGEMEM_HEAP_MAX);
	ret = recorder__start(active, &err);
	if (ret < 0) {
		if (o.argv && err.kind == LP_ERROR_EXEC) {
			error("cannot run '%s': %s", o.argv[0], strerror(-ret));
			status = ret == -ENOENT ? 127 : 126;
		} else if ((ret == -EACCES || ret == -EPERM) && offcpu_only) {
			error("%s: %s: run as root, or give %s CAP_BPF and CAP_PERFMON", err.msg, strerror(-ret),
			      progname);
		} else if ((ret == -ENOENT || ret == -EOPNOTSUPP || ret == -ENODEV) &&
			   err.kind == LP_ERROR_EVENT) {
			error("%s: %s: this machine has no PMU that counts it (virtual machines often have "
			      "none: perf stat says 'not supported' too); software events and tracepoints "
			      "work everywhere (lp-record --list-events)", err.msg, strerror(-ret));
		} else if (ret == -EACCES || ret == -EPERM) {
			error("%s: %s: run as root, or give %s CAP_PERFMON, or lower "
			      "kernel.perf_event_paranoid", err.msg, strerror(-ret), progname);
		} else {
			error("%s: %s", err.msg, strerror(-ret));
		}
		goto cleanup;
	}
	if (o.live && (ret = recorder__write_live(active, out, &st)) < 0) {
		say_write_error(output, ret, st.write_errno);
		recorder__signal(active, SIGKILL);
		goto cleanup;
	}
	ret = recorder__run(active, &stop);
	if (ret < 0) {
		error("reading samples: %s", strerror(-ret));
		goto cleanup;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = recorder__write(active, out, &st);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret < 0) {
		/* the stream's own write failed (-EIO), maybe on the thread that writes it, or memory ran out */
		say_write_error(output, ret, st.write_errno);
		goto cleanup;
	}
	if (out == stdout ? close_stdout() != 0 : (fflush(out) != 0 || ferror(out) || fclose(out) != 0)) {
		if (out != stdout)
			error("cannot write '%s': %s", output, strerror(errno));
		out = NULL;
		goto cleanup;
	}
	out = NULL;
	whole = true;
	if (st.lost)
		warning("%llu samples lost: the ring buffers filled up; use a bigger -m (now %u)",
		      (unsigned long long)st.lost, perf_opts__clock_pages(&o.perf));
	if (st.truncated)
		warning("%llu stacks reached kernel.perf_event_max_stack (%ld frames) and were cut; "
		      "raise it with sysctl kernel.perf_event_max_stack=N",
		      (unsigned long long)st.truncated, event_rings__sysctl("perf_event_max_stack"));
	if (st.unwind_stopped)
		warning("%llu stacks start with " SYM_UNWIND_STOPPED ": unwinding could not go on "
		      "(frames bigger than the stack snapshot, or code with neither frame pointers nor CFI "
		      "where they were needed); the callers of their first frame are unknown",
		      (unsigned long long)st.unwind_stopped);
	if (st.stopped_copy_short)
		warning("%llu of those stacks go on beyond what the kernel could copy of them: a stack page "
		      "their thread had not touched yet (the kernel copies no page it would have to fault in), "
		      "or the stack's end; no --stack-size gives their callers",
		      (unsigned long long)st.stopped_copy_short);
	if (st.regions_off[0])
		warning("code regions were not recorded (of the files mapped after): %s", st.regions_off);
	if (st.regions_lost)
		warning("%llu code region marks lost: their ring buffers filled up",
		      (unsigned long long)st.regions_lost);
	if (st.region_orphans)
		warning("%llu code region ends without their begin (the first: '%s'): left out",
		      (unsigned long long)st.region_orphans, st.first_orphan);
	if (st.region_unclosed)
		warning("%llu code regions still open as an outer one ended or their thread exited "
		      "(the first: '%s'): ended there", (unsigned long long)st.region_unclosed, st.first_unclosed);
	if (st.region_unnamed)
		warning("%llu code region marks of lp_region_begin/lp_region_end whose name was not "
		      "on the stack copied: left out", (unsigned long long)st.region_unnamed);
	if (st.stopped_past_copy && o.perf.stack_snapshot < 65528) {
		/* the smallest power of two that reaches the roots the thread's whole stacks showed, else 4 times */
		uint64_t want = st.stack_needed ? st.stack_needed : (uint64_t)o.perf.stack_snapshot * 4;
		unsigned bigger = (unsigned)o.perf.stack_snapshot * 2;

		while (bigger < want && bigger < 65528)
			bigger *= 2;
		if (bigger > 65528)
			bigger = 65528;

		warning("%llu of those stacks go on beyond the %u bytes of stack copied with each "
		      "on-CPU sample: --stack-size=%u reaches %s, at that many bytes a sample "
		      "(perf's --call-graph dwarf copies 8192)",
		      (unsigned long long)st.stopped_past_copy, o.perf.stack_snapshot, bigger,
		      st.stack_needed && bigger >= st.stack_needed ? "the roots their threads' whole stacks showed" :
								       "further");
	}
	if (o.perf.freq && st.samples > 100 && st.achieved_hz < 0.9 * (double)o.perf.freq) {
		long max_rate = event_rings__sysctl("perf_event_max_sample_rate");

		/* the limit is only the cause where it is now below the rate asked for */
		if (max_rate > 0 && (unsigned long long)max_rate < o.perf.freq)
			warning("sampled at %.0f Hz, not the %llu asked for: the kernel lowered "
			      "kernel.perf_event_max_sample_rate (now %ld)", st.achieved_hz,
			      (unsigned long long)o.perf.freq, max_rate);
		else if (st.unsampled_threads)
			warning("sampled at %.0f Hz of CPU time, not the %llu asked for: %llu threads ran "
			      "too briefly to be sampled (a thread's first sample comes a whole period into its "
			      "CPU time); their time is in the stream as %s", st.achieved_hz,
			      (unsigned long long)o.perf.freq, (unsigned long long)st.unsampled_threads,
			      SYM_NOT_SAMPLED);
		else
			warning("sampled at %.0f Hz of CPU time, not the %llu asked for (kernel.perf_event_max_sample_rate "
			      "is %ld): the kernel took fewer samples than asked", st.achieved_hz,
			      (unsigned long long)o.perf.freq, max_rate);
	}
	/* each cause with the remedy that fits it, if there is one */
	if (st.offcpu_drop_causes.full)
		warning("%llu off-CPU records lost: the BPF ring buffer filled up; use a smaller "
		      "--offcpu-buffer (wake up more often) or a lower off-CPU rate",
		      (unsigned long long)st.offcpu_drop_causes.full);
	if (st.offcpu_drop_causes.missed)
		warning("%llu off-CPU intervals lost: the kernel put a thread back on a CPU without a "
		      "sched_switch we saw, and it ran user code before its stack could be taken",
		      (unsigned long long)st.offcpu_drop_causes.missed);
	if (st.offcpu_drop_causes.slot)
		warning("%llu off-CPU intervals lost: no room to follow a thread (%d threads at once "
		      "at most)", (unsigned long long)st.offcpu_drop_causes.slot, OFFCPU_MAX_THREADS);
	if (st.throttled)
		warning("the kernel throttled sampling %llu times (kernel.perf_event_max_sample_rate)",
		      (unsigned long long)st.throttled);
	if (st.faster_than_clock)
		warning("the task-clock of %llu samples advanced more than the time since its previous "
		      "sample (the kernel's count after throttling): each stands for that time instead",
		      (unsigned long long)st.faster_than_clock);
	if (!quiet)
		error("%llu %ssamples, %llu processes and %llu threads spawned; symbolised and written %sin "
		      "%.3f s (%llu callers in all stacks recovered from CFI)",
		      (unsigned long long)(offcpu_only ? st.offcpu_samples : st.samples),
		      offcpu_only ? "off-CPU " : "on-CPU ", (unsigned long long)st.processes,
		      (unsigned long long)st.threads, o.live ? "while recording, the rest " : "",
		      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		      (unsigned long long)st.recovered);
	if (!quiet && st.roots_of_thread)
		error("%llu stacks deeper than the copy took their callers from a shallower stack of their thread "
		      "that showed the same frame in the same place", (unsigned long long)st.roots_of_thread);
	if (!quiet && st.roots_from_later)
		error("%llu stacks whose copy the kernel cut short (a stack page not touched yet) took their callers "
		      "from the next whole stack of their thread, which showed the same frame in the same place",
		      (unsigned long long)st.roots_from_later);
	/* after the on-CPU summary: lp-record's main figure comes first */
	if (!quiet && st.unsampled_ns)
		error("%.3f s on the CPU that no sample stood for (after a thread's last sample, or in %llu threads "
		      "too brief to be sampled): in the stream as %s", (double)st.unsampled_ns / 1e9,
		      (unsigned long long)st.unsampled_threads, SYM_NOT_SAMPLED);
	if (!quiet && st.offcpu_attachment)
		error("%llu off-CPU samples (%.3f s off the CPU; eBPF on %s)", (unsigned long long)st.offcpu_samples,
		      (double)st.offcpu_ns / 1e9, st.offcpu_attachment);
	if (!quiet && st.offcpu_kernel_unseen)
		error("%llu off-CPU samples end in %s: their thread came back to a CPU without a switch the kernel "
		      "showed, so its kernel stack then is not known", (unsigned long long)st.offcpu_kernel_unseen,
		      SYM_KERNEL_UNSEEN);
	if (!quiet && st.offcpu_one_frame)
		error("%llu off-CPU samples have one frame and %s: their thread's memory was gone (it was exiting) "
		      "or its stack was not seen", (unsigned long long)st.offcpu_one_frame, SYM_UNWIND_STOPPED);
	if (recorder__spill_error(active))
		warning("cannot write a temporary file in '%s' (%s): records were kept in memory",
		      o.spill_dir, strerror(recorder__spill_error(active)));
	if (!quiet && recorder__spilled_bytes(active))
		error("%.1f MB of records went through a temporary file in '%s' (--spill-after)",
		      (double)recorder__spilled_bytes(active) / 1e6, o.spill_dir);
	for (size_t k = 0; k < o.nevents; k++) {
		if (st.custom_lost[k])
			warning("%llu samples of '%s' lost: the ring buffers filled up; use a bigger -m "
			      "(now %u) or a bigger period", (unsigned long long)st.custom_lost[k], specs[k].name,
			      o.perf.mmap_pages);
		if (st.custom_doubt[k][0])
			warning("%s", st.custom_doubt[k]);
		if (st.custom_strayed[k][0])
			warning("%s", st.custom_strayed[k]);
		if (!quiet)
			error("%llu samples of '%s' (period %llu)", (unsigned long long)st.custom_samples[k],
			      specs[k].name, (unsigned long long)specs[k].period);
	}
	if (st.strayed_threads)
		warning("%llu threads' sampled on-CPU time strays more than %u%% from the kernel's exact "
		      "figure (#lp.warning in the stream), such as %s%s",
		      (unsigned long long)st.strayed_threads, o.time_tolerance, st.first_strayed,
		      st.lost || st.throttled ? ": samples were lost or throttled" :
		      ": what no sample stood for is in the stream as " SYM_NOT_SAMPLED);
	if (st.task_records_lost)
		warning("%llu records of spawns, execs, exits or mappings lost: their ring buffers "
		      "filled up; some threads may lack names or symbols", (unsigned long long)st.task_records_lost);
	if (o.argv) {
		int ws = recorder__wait_status(active);

		status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : EXIT_OWN;
	} else {
		status = 0;
	}
cleanup:
	if (out && out != stdout)
		fclose(out);
	/* a stream the recording did not finish would pass for an empty or a short one */
	if (made_file && !whole)
		unlink(output);
	recorder__free(active);
	free(pids);
	for (size_t i = 0; i < o.nevents; i++)
		event_spec__release(&specs[i]);
	strbuf__release(&output_name);
	free(spill_path);
	return status;
}
