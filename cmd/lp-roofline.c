/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-roofline: the machine's roofs, and roofline points of recorded code. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "roofline/carmcsv.h"
#include "cmdutil.h"
#include "inputs.h"
#include "roofline/points.h"
#include "roofline-record.h"
#include "roofline/roofs.h"

static const char usage_text[] =
	"Usage: lp-roofline roofs [OPTION]...\n"
	"   or: lp-roofline points [OPTION]... [ROOFS] RUN.lp...\n"
	"   or: lp-roofline record [OPTION]... -- COMMAND [ARG]...\n"
	"Cache-aware roofline: the machine's roofs from micro-benchmarks (roofs), and\n"
	"each code region's FLOPs, bytes and time from a recording (record, points).\n"
	"Run 'lp-roofline COMMAND --help' for a command's options.\n"
	"\n"
	"Exit status: 0 success, 1 runtime error, 2 usage error, 125 no hardware\n"
	"counters for record.\n";

static const char roofs_usage[] =
	"Usage: lp-roofline roofs [OPTION]...\n"
	"Measure the machine's roofs and write them as R records (an lp stream) to\n"
	"stdout: the bandwidth of L1, L2, L3 and DRAM, and the FLOP rate of add, mul and\n"
	"fma, for each ISA. Cache sizes come from sysfs and CPUID, confirmed by a sweep\n"
	"of working-set sizes (said on stderr where they disagree).\n"
	"\n"
	"      --isa=LIST        ISAs to measure: scalar, sse, avx2, avx512 (x86-64),\n"
	"                        scalar, neon (arm64) (default: every one this CPU has)\n"
	"      --precision=P     dp (default) or sp\n"
	"  -t, --threads=N       threads, each pinned to its own CPU (default 1)\n"
	"      --interleaved     give the threads to NUMA nodes in turn\n"
	"      --ldst=L:S        loads to stores: 2:1 (default), 1:0, 0:1, 1:1, 3:1, 4:1, 1:2\n"
	"  -r, --runs=N          each figure the median of N runs (default 32)\n"
	"      --l1=SIZE, --l2=SIZE, --l3=SIZE, --dram=SIZE\n"
	"                        a level's working set per thread (e.g. 16K, 8M, 1G)\n"
	"                        instead of the one sized from the caches\n"
	"      --csv=DIR         also append the CARM Tool's CSV to\n"
	"                        DIR/roofline/NAME_roofline.csv\n"
	"      --name=NAME       the machine's name in the CSV (default: the host name)\n"
	"      --sysfs=ROOT      read the caches from ROOT/sys/devices/system/cpu\n"
	"  -q, --quiet           no progress on stderr\n"
	"  -h, --help            show this help\n";

enum { OPT_ISA = 256, OPT_PRECISION, OPT_INTERLEAVED, OPT_LDST, OPT_L1, OPT_L2, OPT_L3, OPT_DRAM, OPT_CSV, OPT_NAME,
       OPT_SYSFS };

static const struct option roofs_options[] = {
	{ "isa", required_argument, NULL, OPT_ISA },
	{ "precision", required_argument, NULL, OPT_PRECISION },
	{ "threads", required_argument, NULL, 't' },
	{ "interleaved", no_argument, NULL, OPT_INTERLEAVED },
	{ "ldst", required_argument, NULL, OPT_LDST },
	{ "runs", required_argument, NULL, 'r' },
	{ "l1", required_argument, NULL, OPT_L1 },
	{ "l2", required_argument, NULL, OPT_L2 },
	{ "l3", required_argument, NULL, OPT_L3 },
	{ "dram", required_argument, NULL, OPT_DRAM },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "sysfs", required_argument, NULL, OPT_SYSFS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void parse_isas(const char *arg, struct roofs_opts *o)
{
	char *copy = strdup(arg), *save = NULL;

	if (!copy)
		usage_error("out of memory");
	o->nisas = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum carm_isa isa;

		if (carm_isa__parse(tok, &isa) < 0)
			usage_error("unknown ISA '%s' (scalar, sse, avx2, avx512, neon)", tok);
		if (o->nisas < CARM_NISA)
			o->isas[o->nisas++] = isa;
	}
	free(copy);
	if (!o->nisas)
		usage_error("--isa needs at least one ISA");
}

static void show_progress(void *ctx, const char *what)
{
	(void)ctx;
	fprintf(stderr, "%s: %s\n", progname, what);
}

static int cmd_roofs(int argc, char **argv)
{
	struct roofs_opts o = { .precision = CARM_DP, .threads = 1, .loads = 2, .stores = 1, .runs = 32,
				.sysfs_root = "", .warn = print_warning, .progress = show_progress };
	const char *csv = NULL, *name = NULL;
	char host[256];
	struct lp_error err;
	struct roofs *r = NULL;
	int opt, ret = EXIT_RUNTIME;

	while ((opt = getopt_long(argc, argv, "t:r:qhV", roofs_options, NULL)) != -1) {
		switch (opt) {
		case OPT_ISA:
			parse_isas(optarg, &o);
			break;
		case OPT_PRECISION:
			if (strcmp(optarg, "dp") && strcmp(optarg, "sp"))
				usage_error("--precision is dp or sp, got '%s'", optarg);
			o.precision = strcmp(optarg, "dp") ? CARM_SP : CARM_DP;
			break;
		case 't':
			o.threads = count_arg(optarg, "--threads", 4096);
			break;
		case OPT_INTERLEAVED:
			o.interleaved = true;
			break;
		case OPT_LDST: {
			unsigned l, s;
			int n = 0;

			if (sscanf(optarg, "%u:%u%n", &l, &s, &n) != 2 || optarg[n] || !carm__mem_ratio_known(l, s))
				usage_error("--ldst is one of 2:1, 1:0, 0:1, 1:1, 3:1, 4:1, 1:2, got '%s'", optarg);
			o.loads = l;
			o.stores = s;
			break;
		}
		case 'r':
			o.runs = count_arg(optarg, "--runs", 100000);
			break;
		case OPT_L1:
		case OPT_L2:
		case OPT_L3:
		case OPT_DRAM:
			o.size[opt - OPT_L1] = size_arg((const char *[]){ "--l1", "--l2", "--l3", "--dram" }[opt - OPT_L1], optarg, false);
			break;
		case OPT_CSV:
			csv = optarg;
			break;
		case OPT_NAME:
			name = optarg;
			break;
		case OPT_SYSFS:
			o.sysfs_root = optarg;
			break;
		case 'q':
			o.progress = NULL;
			break;
		default:
			common_option(opt, roofs_usage);
		}
	}
	if (optind < argc)
		usage_error("roofs takes no operands, got '%s'", argv[optind]);
	if (name && (!*name || strchr(name, '/')))
		usage_error("--name must be a file name, got '%s'", name);
	if (!name) {
		if (gethostname(host, sizeof(host)) < 0)
			snprintf(host, sizeof(host), "machine");
		host[sizeof(host) - 1] = 0;
		name = host;
	}
	r = malloc(sizeof(*r));
	if (!r) {
		error("out of memory");
		goto cleanup;
	}
	if (roofs__measure(&o, r, &err) < 0) {
		error_report(&err);
		goto cleanup;
	}
	if (roofs__write_records(&o, r, stdout) < 0) {
		error("cannot write the roofs: %s", strerror(errno));
		goto cleanup;
	}
	if (csv && carm_csv__append(csv, name, time(NULL), &o, r, &err) < 0) {
		error_report(&err);
		goto cleanup;
	}
	ret = close_stdout() ? EXIT_RUNTIME : 0;
cleanup:
	free(r);
	return ret;
}

static const char points_usage[] =
	"Usage: lp-roofline points [OPTION]... [ROOFS] RUN.lp...\n"
	"Write a Q record per code region of the recordings: the FLOPs and bytes its\n"
	"FLOP and load/store event samples count and its on-CPU seconds, the longest\n"
	"first, after the R records of the inputs (ROOFS, from lp-roofline roofs).\n"
	"Bytes are the loads and stores times the width of the FP operations where the\n"
	"counters give it (Intel, AMD Zen 4 and 5: bytes=width-mix-W), else 8 bytes\n"
	"each (bytes=width-8). With no file, or '-', read stdin.\n"
	"\n"
	"      --depth=N         a region is the first N frames of a stack from its root\n"
	"                        (default: each function where the samples fell)\n"
	"      --by=region       a region is each code region of the program (C records,\n"
	"                        lp/region.h), counting the regions inside it\n"
	"      --strict          a stream without its trailer (#lp.end: it may be cut) is\n"
	"                        an error, not a warning\n"
	"  -h, --help            show this help\n";

static int read_points(void *ctx, int fd, const char *name, struct lp_error *err)
{
	return points__read(ctx, fd, name, err);
}

static int cmd_points(int argc, char **argv)
{
	static const struct option options[] = {
		{ "depth", required_argument, NULL, 'd' },
		{ "by", required_argument, NULL, 'b' },
		{ "strict", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct points_opts o = { .warn = print_warning };
	struct points *p;
	struct lp_error err;
	int opt, ret = EXIT_RUNTIME;

	while ((opt = getopt_long(argc, argv, "hV", options, NULL)) != -1) {
		if (opt == 'd')
			o.depth = count_arg(optarg, "--depth", 100000);
		else if (opt == 'b' && strcmp(optarg, "region") == 0)
			o.by_region = true;
		else if (opt == 'b')
			usage_error("points --by takes region, not '%s'", optarg);
		else if (opt == 'S')
			o.strict = true;
		else
			common_option(opt, points_usage);
	}
	if (o.by_region && o.depth)
		usage_error("--by region and --depth do not go together");
	p = points__new(&o);
	if (!p) {
		error("cannot start: %s", strerror(errno));
		return ret;
	}
	if (optind == argc && read_input_with("-", read_points, p) < 0)
		goto cleanup;
	for (int i = optind; i < argc; i++)
		if (read_input_with(argv[i], read_points, p) < 0)
			goto cleanup;
	if (points__write(p, stdout, &err) < 0) {
		error_report(&err);
		goto cleanup;
	}
	ret = close_stdout() ? EXIT_RUNTIME : 0;
cleanup:
	points__free(p);
	return ret;
}

int main(int argc, char **argv)
{
	const char *command;

	set_progname("lp-roofline", argv);
	if (argc < 2)
		usage_error("a command is needed: roofs, points or record");
	command = argv[1];
	/* the command's own options are named as the program's: "lp-roofline: unrecognized option" */
	argv[1] = (char *)progname;
	if (strcmp(command, "roofs") == 0)
		return cmd_roofs(argc - 1, argv + 1);
	if (strcmp(command, "points") == 0)
		return cmd_points(argc - 1, argv + 1);
	if (strcmp(command, "record") == 0)
		return roofline_record(argc - 1, argv + 1);
	if (strcmp(command, "-h") == 0 || strcmp(command, "--help") == 0 || strcmp(command, "-V") == 0 ||
	    strcmp(command, "--version") == 0)
		common_option(command[1] == 'h' || command[2] == 'h' ? 'h' : 'V', usage_text);
	usage_error("unknown command '%s': roofs, points or record", command);
}
