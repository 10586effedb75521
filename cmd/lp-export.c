/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-export: lp streams as pprof, speedscope, Trace Event JSON or perf script text. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdutil.h"
#include "base/safeout.h"
#include "export/export.h"
#include "inputs.h"

static const char usage_text[] =
	"Usage: lp-export -f FORMAT [OPTION]... [FILE]...\n"
	"Write lp streams in the format of another viewer. Several FILEs are merged;\n"
	"with no FILE, or '-', read stdin.\n"
	"\n"
	"  -f, --format=FORMAT   pprof        gzipped profile.proto (go tool pprof,\n"
	"                                     Grafana Pyroscope)\n"
	"                        speedscope   speedscope's JSON: a profile per event,\n"
	"                                     and per thread in time order\n"
	"                        trace        Trace Event JSON (Perfetto UI,\n"
	"                                     chrome://tracing): a track per thread\n"
	"                        perf-script  `perf script` text (stackcollapse-perf.pl,\n"
	"                                     Firefox Profiler)\n"
	"  -e, --event=KEY[,KEY] export only these events (default: all)\n"
	"  -o, --output=FILE     write to FILE instead of stdout\n"
	"      --name=NAME       the profile's name (speedscope; default: the first FILE)\n"
	"      --strict          a stream without its trailer (#lp.end: it may be cut) is\n"
	"                        an error, not a warning\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n"
	"\n"
	"Exit status: 0 success, 1 bad input or runtime error, 2 usage error.\n";

enum { OPT_NAME = 256, OPT_STRICT };

static const struct option long_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "event", required_argument, NULL, 'e' },
	{ "output", required_argument, NULL, 'o' },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct export_opts o = { .warn = print_warning };
	const char **events = NULL, *output = NULL;
	struct exporter *e = NULL;
	struct safeout *out = NULL;
	bool have_format = false;
	int opt, ret = EXIT_RUNTIME, err;

	set_progname("lp-export", argv);
	while ((opt = getopt_long(argc, argv, "f:e:o:hV", long_options, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (export_format__parse(optarg, &o.format) < 0)
				usage_error("unknown format '%s' (pprof, speedscope, trace or perf-script)", optarg);
			have_format = true;
			break;
		case 'e':
			add_events(optarg, &events, &o.nevents);
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_STRICT:
			o.strict = true;
			break;
		case OPT_NAME:
			o.name = optarg;
			break;
		default:
			common_option(opt, usage_text);
		}
	}
	if (!have_format)
		usage_error("which format? -f pprof, speedscope, trace or perf-script");
	o.events = events;
	/* the output is whole or not there: a half-written file would pass for a profile */
	if (!(out = safeout__open(output))) {
		error("cannot write '%s': %s", output ? output : "stdout", strerror(errno));
		goto cleanup;
	}
	e = exporter__new(&o, safeout__file(out));
	if (!e) {
		error("cannot start: %s", strerror(errno));
		goto cleanup;
	}
	if (export_inputs(e, argv + optind, argc - optind) < 0)
		goto cleanup;
	err = safeout__commit(out);
	out = NULL;
	if (err < 0) {
		error("cannot write the output: %s", strerror(-err));
		goto cleanup;
	}
	ret = close_stdout() ? EXIT_RUNTIME : 0;
cleanup:
	if (out && safeout__abort(out))
		error("the output written before that is incomplete");
	exporter__free(e);
	free(events);
	return ret;
}
