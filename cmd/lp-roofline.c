/* lp-roofline: the machine's roofs, and roofline points of recorded code. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "carmcsv.h"
#include "cmdutil.h"
#include "numparse.h"
#include "roofs.h"

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
	"      --isa=LIST        ISAs to measure: scalar, sse, avx2, avx512 (default:\n"
	"                        every one this CPU has)\n"
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

static unsigned parse_count(const char *arg, const char *what, unsigned max)
{
	uint64_t v;

	if (parse_u64(arg, strlen(arg), &v) < 0 || v == 0 || v > max)
		usage_error("%s must be a whole number from 1 to %u, got '%s'", what, max, arg);
	return (unsigned)v;
}

/* "16K", "8M", "1G", "4096": bytes. */
static uint64_t parse_size(const char *arg, const char *what)
{
	size_t len = strlen(arg);
	unsigned shift = 0;
	uint64_t v;

	if (len > 1 && strchr("KMG", arg[len - 1])) {
		shift = arg[len - 1] == 'K' ? 10 : arg[len - 1] == 'M' ? 20 : 30;
		len--;
	}
	if (parse_u64(arg, len, &v) < 0 || v == 0 || v > (UINT64_MAX >> shift))
		usage_error("%s must be a size such as 16K, 8M or 1G, got '%s'", what, arg);
	return v << shift;
}

static void parse_isas(const char *arg, struct roofs_opts *o)
{
	char *copy = strdup(arg), *save = NULL;

	if (!copy)
		usage_error("out of memory");
	o->nisas = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum carm_isa isa;

		if (carm_isa__parse(tok, &isa) < 0)
			usage_error("unknown ISA '%s' (scalar, sse, avx2, avx512)", tok);
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
			o.threads = parse_count(optarg, "--threads", 4096);
			break;
		case OPT_INTERLEAVED:
			o.interleaved = true;
			break;
		case OPT_LDST: {
			unsigned l, s;
			int n = 0;

			if (sscanf(optarg, "%u:%u%n", &l, &s, &n) != 2 || optarg[n] || !carm_mem_kernel(CARM_SSE, CARM_DP, l, s))
				usage_error("--ldst is one of 2:1, 1:0, 0:1, 1:1, 3:1, 4:1, 1:2, got '%s'", optarg);
			o.loads = l;
			o.stores = s;
			break;
		}
		case 'r':
			o.runs = parse_count(optarg, "--runs", 100000);
			break;
		case OPT_L1:
		case OPT_L2:
		case OPT_L3:
		case OPT_DRAM:
			o.size[opt - OPT_L1] = parse_size(optarg, roofs_options[opt - OPT_L1 + 6].name);
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

int main(int argc, char **argv)
{
	progname = "lp-roofline";
	if (argc < 2)
		usage_error("a command is needed: roofs, points or record");
	if (strcmp(argv[1], "roofs") == 0)
		return cmd_roofs(argc - 1, argv + 1);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-V") == 0 ||
	    strcmp(argv[1], "--version") == 0)
		common_option(argv[1][1] == 'h' || argv[1][2] == 'h' ? 'h' : 'V', usage_text);
	usage_error("unknown command '%s': roofs, points or record", argv[1]);
}
