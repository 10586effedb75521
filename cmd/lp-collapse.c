/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-collapse: lp streams, perf script text or folded stacks to folded stacks. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdutil.h"
#include "inputs.h"
#include "profile/profile.h"

static const char usage_text[] =
	"Usage: lp-collapse [OPTION]... [FILE]...\n"
	"Aggregate samples into folded stacks (\"comm;root;...;leaf COUNT\").\n"
	"Each FILE is an lp stream, `perf script` text or folded stacks (detected per\n"
	"file); all are summed into one output. With no FILE, or '-', read stdin.\n"
	"\n"
	"  -f, --format=FMT      read every input as FMT: lp, perf, folded (default auto)\n"
	"      --pid             name stacks comm-PID\n"
	"      --tid             name stacks comm-PID/TID\n"
	"      --kernel          mark kernel frames with _[k]\n"
	"      --jit             mark JIT frames (/tmp/perf-PID.map) with _[j]\n"
	"      --all             --kernel and --jit\n"
	"      --addrs           perf: keep the address of unknown frames ([dso <addr>])\n"
	"      --event-filter=EV perf: count only event EV (default: the first seen)\n"
	"  -e, --event=KEY[,KEY] lp: count only these events (default: all)\n"
	"      --by=host,rank,region  lp: root frames host=NAME and/or rank=N from each\n"
	"                        input's #lp.host and #lp.rank (MPI and Slurm jobs),\n"
	"                        region=NAME of the code regions open (C records)\n"
	"      --waits=WHICH     lp: off-CPU waits shown: all (default), unexplained\n"
	"                        (a wait another thread of the stream ended becomes one\n"
	"                        frame, [waiting for NAME]) or none\n"
	"      --samples         count samples instead of summing their weights\n"
	"      --time-ordered    keep each thread's samples in time order, merging only\n"
	"                        consecutive identical stacks (threads in order of\n"
	"                        appearance)\n"
	"  -d, --diff            two profiles: write \"STACK COUNT1 COUNT2\"\n"
	"  -n, --normalize       with --diff: scale COUNT1 so both profiles' totals match\n"
	"  -s, --strip-hex       replace hex numbers in names with 0x...\n"
	"      --strict          lp: a stream without its trailer (#lp.end: it may be\n"
	"                        cut) is an error, not a warning\n"
	"  -j, --jobs=N          perf: read a big file (32 MB or more) on 2 cores when N\n"
	"                        is 2 or more (default: 2 when there are 2 CPUs); 1: one\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n"
	"\n"
	"Exit status: 0 success, 1 bad input or runtime error, 2 usage error.\n";

enum {
	OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_EVENT_FILTER,
	OPT_SAMPLES, OPT_TIME_ORDERED, OPT_BY, OPT_STRICT, OPT_WAITS,
};

static const struct option long_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "event-filter", required_argument, NULL, OPT_EVENT_FILTER },
	{ "event", required_argument, NULL, 'e' },
	{ "samples", no_argument, NULL, OPT_SAMPLES },
	{ "time-ordered", no_argument, NULL, OPT_TIME_ORDERED },
	{ "by", required_argument, NULL, OPT_BY },
	{ "waits", required_argument, NULL, OPT_WAITS },
	{ "diff", no_argument, NULL, 'd' },
	{ "normalize", no_argument, NULL, 'n' },
	{ "strip-hex", no_argument, NULL, 's' },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "jobs", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct profile_opts o = { .warn = print_warning, .jobs = default_jobs() };
	struct folded_output out = { 0 };
	const char **events = NULL;
	struct profile *c = NULL;
	int opt, ret = EXIT_RUNTIME, ninputs;
	static char outbuf[1 << 20];

	set_progname("lp-collapse", argv);
	while ((opt = getopt_long(argc, argv, "f:e:dnsj:hV", long_options, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (lp_format__parse(optarg, &o.format) < 0)
				usage_error("unknown format '%s' (auto, lp, perf or folded)", optarg);
			break;
		case OPT_PID:
			if (o.naming != NAMING_TID)
				o.naming = NAMING_PID;
			break;
		case OPT_TID:
			o.naming = NAMING_TID;
			break;
		case OPT_KERNEL:
			o.annotate_kernel = true;
			break;
		case OPT_JIT:
			o.annotate_jit = true;
			break;
		case OPT_ALL:
			o.annotate_kernel = o.annotate_jit = true;
			break;
		case OPT_ADDRS:
			o.addrs = true;
			break;
		case OPT_EVENT_FILTER:
			o.event_filter = optarg;
			break;
		case OPT_STRICT:
			o.strict = true;
			break;
		case 'j':
			o.jobs = jobs_arg(optarg);
			break;
		case 'e':
			add_events(optarg, &events, &o.nevents);
			break;
		case OPT_SAMPLES:
			o.samples = true;
			break;
		case OPT_TIME_ORDERED:
			o.time_ordered = true;
			break;
		case OPT_BY:
			parse_by(optarg, &o);
			break;
		case OPT_WAITS:
			parse_waits(optarg, &o);
			break;
		case 'd':
			out.diff = o.diff = true;
			break;
		case 'n':
			out.normalize = true;
			break;
		case 's':
			o.strip_hex = true;
			break;
		default:
			common_option(opt, usage_text);
		}
	}
	o.events = events;
	ninputs = argc - optind;
	if (out.normalize && !out.diff)
		usage_error("--normalize goes with --diff");
	if (out.diff && ninputs > 2)
		usage_error("--diff takes two inputs (or one of differential lines), got %d", ninputs);
	if (out.diff && o.time_ordered)
		usage_error("--diff and --time-ordered do not go together");

	c = profile__new(&o);
	if (!c) {
		error("cannot start: %s", strerror(errno));
		goto cleanup;
	}
	if (read_inputs(c, argv + optind, ninputs, out.diff) < 0)
		goto cleanup;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	opt = profile__write_folded(c, stdout, &out);
	if (opt < 0 && opt != -EIO) {
		error("cannot write the stacks: %s", strerror(-opt));
		goto cleanup;
	}
	ret = close_stdout() ? EXIT_RUNTIME : 0;
cleanup:
	profile__free(c);
	free(events);
	return ret;
}
