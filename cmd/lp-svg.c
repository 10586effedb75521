/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-svg: folded stacks or an lp stream to an interactive flame graph (SVG). */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdutil.h"
#include "inputs.h"
#include "profile/profile.h"
#include "picture/flamesink.h"
#include "picture/flamesvg.h"
#include "picture/flametree.h"
#include "export/export.h"
#include "base/numparse.h"
#include "picture/palette.h"
#include "base/stackmap.h"
#include "base/strbuf.h"
#include "picture/roofline.h"
#include "picture/timeline.h"

extern const char flamegraph_js[], flamegraph_css[], timeline_js[], timeline_css[], roofline_js[], roofline_css[];
extern const unsigned long flamegraph_js_len, flamegraph_css_len, timeline_js_len, timeline_css_len, roofline_js_len,
	roofline_css_len;

static const char usage_text[] =
	"Usage: lp-svg [OPTION]... [FILE]...\n"
	"Draw an interactive flame graph (one standalone SVG) of folded stacks, an lp\n"
	"stream or `perf script` text. With two FILEs, or folded lines with two counts,\n"
	"draw a differential flame graph. With no FILE, or '-', read stdin.\n"
	"\n"
	"Pictures:\n"
	"      --flamechart      x is time: each thread's samples in order (lp stream)\n"
	"      --tid=TID         with --flamechart: one thread only\n"
	"      --pid=PID         with --flamechart: one process's threads only\n"
	"      --timeline        a row per thread, nested by spawn tree, on one time\n"
	"                        axis: on-CPU and off-CPU time, exec and exit (lp\n"
	"                        stream; each FILE a band, on CLOCK_REALTIME when all\n"
	"                        have #lp.realtime); --height is a row's height\n"
	"      --no-srclines     timeline: no file:line in spawning stacks (faster)\n"
	"      --roofline        the roofline plot of R records (lp-roofline roofs) and\n"
	"                        Q records (lp-roofline points) of the inputs\n"
	"      --inverted        an icicle graph (root at the top)\n"
	"      --reverse         merge stacks from the leaves\n"
	"  -e, --event=KEY[,KEY] lp: draw these events only (default: cpu and offcpu,\n"
	"                        coloured by off-CPU share when both are there)\n"
	"      --by=host,rank,region  lp: a tower per host and/or MPI rank (root frames\n"
	"                        from each input's #lp.host and #lp.rank), per code\n"
	"                        region (region=NAME, from the C records)\n"
	"      --waits=WHICH     lp: off-CPU waits drawn: unexplained (default: a wait\n"
	"                        another thread of the stream ended is one frame,\n"
	"                        [waiting for NAME]), all (each with its stack) or none\n"
	"      --negate          differential: swap red and blue\n"
	"      --max-depth=N     draw N frames of a deeper stack, the rest as one frame\n"
	"                        (2048; 0: all)\n"
	"  -f, --format=FMT      read inputs as lp, perf or folded (default auto)\n"
	"  -j, --jobs=N          perf: read a big file (32 MB or more) on 2 cores when N\n"
	"                        is 2 or more (default: 2 when there are 2 CPUs); 1: one\n"
	"      --strict          lp: a stream without its trailer (#lp.end: it may be\n"
	"                        cut) is an error, not a warning\n"
	"Looks (flamegraph.pl's options):\n"
	"      --title=TEXT --subtitle=TEXT --notes=TEXT\n"
	"      --width=PX (1200) --height=PX frame height (16) --minwidth=PX|N% (0.1)\n"
	"      --fonttype=FONT (Verdana) --fontsize=PT (12) --fontwidth=F (0.59)\n"
	"      --countname=NAME (samples) --nametype=TEXT (Function:) --total=N\n"
	"      --colors=PALETTE hot mem io wakeup java js perl red green blue aqua\n"
	"                       yellow purple orange chain (hot)\n"
	"      --bgcolors=yellow|blue|green|grey|#rrggbb --hash --random\n"
	"      --cp              keep colours consistent through ./palette.map\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n";

enum {
	OPT_TITLE = 256, OPT_SUBTITLE, OPT_NOTES, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH,
	OPT_FONTTYPE, OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_TOTAL,
	OPT_COLORS, OPT_BGCOLORS, OPT_HASH, OPT_RANDOM, OPT_CP, OPT_INVERTED, OPT_REVERSE,
	OPT_FLAMECHART, OPT_NEGATE, OPT_TID, OPT_MAX_DEPTH, OPT_BY, OPT_WAITS, OPT_TIMELINE, OPT_NO_SRCLINES, OPT_PID, OPT_ROOFLINE,
	OPT_STRICT,
};

static const struct option long_options[] = {
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "timeline", no_argument, NULL, OPT_TIMELINE },
	{ "roofline", no_argument, NULL, OPT_ROOFLINE },
	{ "no-srclines", no_argument, NULL, OPT_NO_SRCLINES },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "by", required_argument, NULL, OPT_BY },
	{ "waits", required_argument, NULL, OPT_WAITS },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "event", required_argument, NULL, 'e' },
	{ "format", required_argument, NULL, 'f' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static double number(const char *opt, const char *arg, double min, double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= min && v <= max))
		usage_error("%s needs a number from %g to %g, got '%s'", opt, min, max, arg);
	return v;
}

/* The timeline reads lp streams only, each input a band: the exporter's reading, lp-svg's picture. */
static int draw_timeline(char **paths, int n, const struct flamesvg_opts *so, bool srclines, bool strict)
{
	struct timeline_opts to = {
		.title = so->title ? so->title : "Timeline", .width = so->width,
		.rowheight = so->frameheight, .fonttype = so->fonttype, .fontsize = so->fontsize,
		.srclines = srclines, .js = timeline_js, .css = timeline_css,
		.jslen = timeline_js_len, .csslen = timeline_css_len,
	};
	struct export_opts eo = { .reader = "lp-svg --timeline", .format_opts = &to, .strict = strict,
				  .warn = print_warning };
	struct exporter *e = exporter__new_with(&eo, &timeline__ops, stdout);
	int ret = EXIT_RUNTIME;

	if (!e) {
		error("cannot start: %s", strerror(errno));
		return ret;
	}
	if (export_inputs(e, paths, n) == 0)
		ret = close_stdout() ? EXIT_RUNTIME : 0;
	exporter__free(e);
	return ret;
}

static int read_roofline(void *ctx, int fd, const char *name, struct lp_error *err)
{
	return roofline__read(ctx, fd, name, err);
}

/* The roofline reads R and Q records of lp streams, however many. */
static int draw_roofline(char **paths, int n, const struct flamesvg_opts *so, bool strict)
{
	struct roofline_opts ro = {
		.title = so->title ? so->title : "Roofline", .width = so->width, .height = 720,
		.fonttype = so->fonttype, .fontsize = so->fontsize, .js = roofline_js, .css = roofline_css,
		.jslen = roofline_js_len, .csslen = roofline_css_len, .strict = strict, .warn = print_warning,
	};
	struct roofline *r = roofline__new(&ro);
	struct lp_error err;
	int ret = EXIT_RUNTIME;

	if (!r) {
		error("cannot start: %s", strerror(errno));
		return ret;
	}
	if (n == 0 && read_input_with("-", read_roofline, r) < 0)
		goto cleanup;
	for (int i = 0; i < n; i++)
		if (read_input_with(paths[i], read_roofline, r) < 0)
			goto cleanup;
	if (roofline__write(r, stdout, &err) < 0) {
		if (err.msg[0])
			error_report(&err);
		else
			error("cannot write: %s", strerror(errno));
		goto cleanup;
	}
	ret = close_stdout() ? EXIT_RUNTIME : 0;
cleanup:
	roofline__free(r);
	return ret;
}

static bool mapped_color(void *ctx, const char *name, size_t len, uint32_t *rgb)
{
	return palette_map__get(ctx, name, len, rgb);
}

/* A sampled event's flame graph says how much of it the samples are, where the stream counted it. */
static const char *counted_subtitle(const struct profile *c)
{
	static char text[128];
	uint64_t samples, occurrences;

	if (!profile__exact_count(c, &samples, &occurrences))
		return NULL;
	snprintf(text, sizeof(text), "%" PRIu64 " samples of %" PRIu64 " occurrences (counted exactly)", samples,
		 occurrences);
	return text;
}

int main(int argc, char **argv)
{
	struct flamesvg_opts so = {
		.countname = "samples", .nametype = "Function:", .fonttype = "Verdana",
		.fontsize = 12, .fontwidth = 0.59, .width = 1200, .frameheight = 16,
		.minwidth = 1, .palette = "hot", .hash = HASH_NAME_RANDOM,
	};
	/* waits another recorded thread ended are that thread's doing: the picture shows what was done */
	struct profile_opts co = { .warn = print_warning, .diff = true, .jobs = default_jobs(), .waits = WAITS_UNEXPLAINED };
	struct flamesvg_assets assets = { flamegraph_js, flamegraph_css, flamegraph_js_len,
					  flamegraph_css_len };
	const char **events = NULL;
	struct profile *c = NULL;
	struct flame_sink sink = { .max_depth = 2048 };
	struct flametree *tree = NULL;
	struct stackmap *palette_map = NULL;
	bool use_cp = false, lp_input, timeline = false, srclines = true, roofline = false, waits_said = false;
	int opt, ret = EXIT_RUNTIME, ninputs, profiles;
	uint64_t u;
	static char outbuf[1 << 20];

	set_progname("lp-svg", argv);
	while ((opt = getopt_long(argc, argv, "e:f:j:hV", long_options, NULL)) != -1) {
		switch (opt) {
		case OPT_TITLE: so.title = optarg; break;
		case OPT_SUBTITLE: so.subtitle = optarg; break;
		case OPT_NOTES: so.notes = optarg; break;
		case OPT_WIDTH: so.width = (int)number("--width", optarg, 100, 1e6); break;
		case OPT_HEIGHT: so.frameheight = (int)number("--height", optarg, 2, 1000); break;
		case OPT_MINWIDTH: {
			size_t n = strlen(optarg);

			if (n > 1 && optarg[n - 1] == '%') {
				optarg[n - 1] = 0;
				so.minwidth = number("--minwidth", optarg, 0, 100) / 100;
				so.minwidth_fraction = true;
			} else {
				so.minwidth = number("--minwidth", optarg, 0, 1e6);
			}
			break;
		}
		case OPT_FONTTYPE: so.fonttype = optarg; break;
		case OPT_FONTSIZE: so.fontsize = number("--fontsize", optarg, 1, 200); break;
		case OPT_FONTWIDTH: so.fontwidth = number("--fontwidth", optarg, 0.05, 5); break;
		case OPT_COUNTNAME: so.countname = optarg; break;
		case OPT_NAMETYPE: so.nametype = optarg; break;
		case OPT_TOTAL:
			if (numparse__u64(optarg, strlen(optarg), &u) < 0)
				usage_error("--total needs a non-negative integer, got '%s'", optarg);
			so.total = u;
			break;
		case OPT_COLORS:
			if (!palette__valid(optarg))
				usage_error("unknown palette '%s'", optarg);
			so.palette = optarg;
			break;
		case OPT_BGCOLORS: {
			char top[8], bottom[8];

			if (!palette__background(optarg, top, bottom))
				usage_error("unknown background '%s' (yellow, blue, green, grey or #rrggbb)",
					    optarg);
			so.bgcolors = optarg;
			break;
		}
		case OPT_HASH: so.hash = HASH_NAME_VECTOR; break;
		case OPT_RANDOM: so.hash = HASH_RANDOM; break;
		case OPT_CP: use_cp = true; break;
		case OPT_INVERTED: so.inverted = true; break;
		case OPT_REVERSE: sink.reverse = true; break;
		case OPT_FLAMECHART: so.flamechart = co.time_ordered = true; break;
		case OPT_TIMELINE: timeline = true; break;
		case OPT_ROOFLINE: roofline = true; break;
		case OPT_NO_SRCLINES: srclines = false; break;
		case OPT_NEGATE: so.negate = true; break;
		case OPT_MAX_DEPTH:
			if (numparse__u64(optarg, strlen(optarg), &u) < 0 || u > 1000000)
				usage_error("--max-depth needs a number of frames from 0 to 1000000, got '%s'", optarg);
			sink.max_depth = (size_t)u;
			break;
		case OPT_TID:
			if (numparse__u64(optarg, strlen(optarg), &u) < 0 || u == 0 || u > INT32_MAX)
				usage_error("--tid needs a thread id, got '%s'", optarg);
			co.only_tid = (int64_t)u;
			break;
		case OPT_PID:
			if (numparse__u64(optarg, strlen(optarg), &u) < 0 || u == 0 || u > INT32_MAX)
				usage_error("--pid needs a process id, got '%s'", optarg);
			co.only_pid = (int64_t)u;
			break;
		case 'e': add_events(optarg, &events, &co.nevents); break;
		case 'j': co.jobs = jobs_arg(optarg); break;
		case OPT_BY: parse_by(optarg, &co); break;
		case OPT_WAITS: parse_waits(optarg, &co); waits_said = true; break;
		case OPT_STRICT: co.strict = true; break;
		case 'f':
			if (lp_format__parse(optarg, &co.format) < 0)
				usage_error("unknown format '%s' (auto, lp, perf or folded)", optarg);
			break;
		default:
			common_option(opt, usage_text);
		}
	}
	ninputs = argc - optind;
	heap_for_inputs(argv + optind, ninputs);
	if (roofline) {
		if (timeline || so.flamechart || co.only_tid || co.only_pid || co.by_host || co.by_rank || events || use_cp ||
		    sink.reverse || so.inverted || waits_said)
			usage_error("--roofline goes with --title, --width, --fonttype and --fontsize only");
		return draw_roofline(argv + optind, ninputs, &so, co.strict);
	}
	if (timeline) {
		if (so.flamechart || co.only_tid || co.only_pid || co.by_host || co.by_rank || events || use_cp || sink.reverse ||
		    so.inverted || waits_said)
			usage_error("--timeline goes with --title, --width, --height, --fonttype, --fontsize and --no-srclines only");
		setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
		return draw_timeline(argv + optind, ninputs, &so, srclines, co.strict);
	}
	if (!srclines)
		usage_error("--no-srclines goes with --timeline");
	/* with --by, every input (a job's ranks) is one profile; otherwise two are a difference */
	profiles = co.by_host || co.by_rank ? 1 : ninputs;
	if (profiles > 2)
		usage_error("lp-svg draws one profile, or the difference of two; got %d inputs", ninputs);
	if (so.flamechart && profiles == 2)
		usage_error("--flamechart draws one profile");
	if ((co.only_tid || co.only_pid) && !so.flamechart)
		usage_error("%s goes with --flamechart", co.only_tid ? "--tid" : "--pid");
	co.events = events;
	co.naming = so.flamechart ? NAMING_TID : NAMING_COMM;
	co.spawn_notes = so.flamechart;
	co.offcpu_column = profiles < 2 && !so.flamechart;
	if (so.flamechart)
		co.diff = false;
	tree = flametree__new();
	if (!tree)
		goto nomem;
	sink.tree = tree;
	if (!so.flamechart) {
		co.sink = flame_sink__add;
		co.sink_ctx = &sink;
	}

	c = profile__new(&co);
	if (!c) {
		error("cannot start: %s", strerror(errno));
		goto cleanup;
	}
	if (read_inputs(c, argv + optind, ninputs, profiles == 2) < 0)
		goto cleanup;

	lp_input = profile__formats(c) & (1u << LP_FORMAT_LP);
	so.unit = lp_input ? profile__unit(c) : NULL;
	if (so.flamechart) {
		int built = flame_sink__add_timed(&sink, c);

		if (built < 0) {
			error("cannot build the flame chart: %s", strerror(-built));
			goto cleanup;
		}
	} else if (flametree__sort(tree) < 0) {
		goto nomem;
	}
	if (flametree__finish(tree) < 0) {
		/* the sum of all inputs overflowed: name them */
		if (ninputs > 2)
			error("%s and %d more inputs: a frame's total does not fit 64 bits", argv[optind], ninputs - 1);
		else
			error("%s%s%s: a frame's total does not fit 64 bits", ninputs ? argv[optind] : "stdin",
			      ninputs == 2 ? " and " : "", ninputs == 2 ? argv[optind + 1] : "");
		goto cleanup;
	}
	/* processes one after another along x: a picture few can read */
	if (so.flamechart && profile__processes(c) > 1 && !co.only_tid && !co.only_pid)
		warning("the flame chart puts the threads of several processes one after another: --pid PID or "
		      "--tid TID draws one; --timeline draws them all on one time axis, each thread's flame chart a click away");
	if (sink.folded)
		warning("%llu stacks are deeper than %zu frames: their deeper frames are drawn as one "
		      FLAME_DEEPER " frame (--max-depth)", (unsigned long long)sink.folded, sink.max_depth);
	/* an empty picture would pass for a result: flamegraph.pl refuses too */
	if (flametree__count(tree) <= 1) {
		if (co.only_tid)
			error("no samples of thread %lld in the input", (long long)co.only_tid);
		else if (co.only_pid)
			error("no samples of process %lld in the input", (long long)co.only_pid);
		else
			error("no stack counts found in the input");
		goto cleanup;
	}
	so.coloring = flame_coloring__choose(tree, profiles, lp_input);
	/* each thread's band of a flame chart: its summary (T record) in the tooltip */
	so.nframe_notes = profile__notes(c, &so.frame_note_names, &so.frame_notes);
	if (!so.title)
		so.title = so.flamechart ? "Flame Chart" : so.inverted ? "Icicle Graph" : "Flame Graph";
	if (!so.subtitle)
		so.subtitle = counted_subtitle(c);
	if (!so.subtitle && profile__explained_waits(c))
		so.subtitle = "a wait another recorded thread ended is one frame, [waiting for NAME] (--waits all: its stack)";
	if (use_cp) {
		struct lp_error err;

		palette_map = palette_map__load("palette.map", &err);
		if (!palette_map) {
			error_report(&err);
			goto cleanup;
		}
		so.mapped_color = mapped_color;
		so.ctx = palette_map;
	}

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	opt = flamesvg__write(stdout, tree, &so, &assets);
	if (opt < 0 && opt != -EIO) {
		error("cannot draw: %s", strerror(-opt));
		goto cleanup;
	}
	ret = close_stdout() ? EXIT_RUNTIME : 0;
	if (ret == 0 && use_cp) {
		if (palette_map__remember(palette_map, tree, so.palette, so.hash) < 0)
			goto nomem;
		if ((opt = palette_map__save(palette_map, "palette.map")) < 0) {
			error("cannot write 'palette.map': %s", strerror(-opt));
			ret = EXIT_RUNTIME;
		}
	}
	goto cleanup;
nomem:
	error("out of memory");
	ret = EXIT_RUNTIME;
cleanup:
	profile__free(c);
	flametree__free(tree);
	flame_sink__release(&sink);
	stackmap__free(palette_map);
	free(events);
	return ret;
}
