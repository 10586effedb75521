/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-lines: weights per source line of an lp stream (the perf report --sort srcline of lp). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdutil.h"
#include "inputs.h"
#include "profile/lineprofile.h"

static const char usage_text[] =
	"Usage: lp-lines [OPTION]... [FILE]...\n"
	"Sum the samples of lp streams per source line, heaviest first:\n"
	"FILE:LINE<TAB>FUNCTION<TAB>WEIGHT<TAB>PERCENT, then the line's on- and off-CPU\n"
	"shares when the samples have both. Lines come from the DWARF line tables of\n"
	"each frame's binary or its debug file (/usr/lib/debug). With no FILE, or '-',\n"
	"read stdin.\n"
	"\n"
	"  -e, --event=KEY[,KEY] count these events (default: cpu and offcpu)\n"
	"      --inclusive       credit every frame's line, not only the leaf's\n"
	"      --nearest-source  credit the leafmost frame whose source file is readable\n"
	"                        here: time in libc, the kernel or code without debug\n"
	"                        information goes to the nearest caller you have the\n"
	"                        source of\n"
	"      --annotate=FUNC   print FUNC's source with its lines' shares in the margin;\n"
	"                        given again, each function's after a blank line, those\n"
	"                        without source here named on stderr\n"
	"      --strict          a stream without its trailer (#lp.end: it may be cut) is\n"
	"                        an error, not a warning\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n"
	"\n"
	"Exit status: 0 success, 1 bad input or runtime error, 2 usage error.\n";

enum { OPT_INCLUSIVE = 256, OPT_NEAREST_SOURCE, OPT_ANNOTATE, OPT_STRICT };

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "inclusive", no_argument, NULL, OPT_INCLUSIVE },
	{ "nearest-source", no_argument, NULL, OPT_NEAREST_SOURCE },
	{ "annotate", required_argument, NULL, OPT_ANNOTATE },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int read_lines(void *ctx, int fd, const char *name, struct lp_error *err)
{
	return line_profile__read(ctx, fd, name, err);
}

/*
 * One function's annotated source: 0, or 1 (said, the message in one's own
 * name when it is the only one asked for: an error; among several, what
 * the report of a run made elsewhere cannot show: a warning).
 */
static int annotate(struct line_profile *p, const char *fn, FILE *out, bool alone)
{
	void (*say)(const char *, ...) __attribute__((format(printf, 1, 2))) = alone ? error : warning;
	const char *path;
	int r = line_profile__annotate(p, fn, out, &path);

	if (r == -ENOENT && !path)
		say("no samples with source lines in '%s'", fn);
	else if (r == -ERANGE)
		say("'%s' is shorter than its line table says: not the source '%s' was built from", path, fn);
	else if (r < 0 && r != -EIO && alone)
		error("cannot read '%s': %s", path ? path : fn, strerror(-r));
	else if (r < 0 && r != -EIO)
		warning("no source of '%s' here: cannot read '%s': %s", fn, path ? path : "?", strerror(-r));
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct line_profile_opts o = { .warn = print_warning };
	const char **events = NULL, **functions = NULL;
	size_t nfunctions = 0;
	struct line_profile *p = NULL;
	int opt, ret = EXIT_RUNTIME;
	static char outbuf[1 << 16];

	set_progname("lp-lines", argv);
	while ((opt = getopt_long(argc, argv, "e:hV", long_options, NULL)) != -1) {
		switch (opt) {
		case 'e':
			add_events(optarg, &events, &o.nevents);
			break;
		case OPT_STRICT:
			o.strict = true;
			break;
		case OPT_INCLUSIVE:
			o.inclusive = true;
			break;
		case OPT_NEAREST_SOURCE:
			o.nearest_source = true;
			break;
		case OPT_ANNOTATE:
			{
				const char **v = realloc(functions, (nfunctions + 1) * sizeof(*v));

				if (!v) {
					error("out of memory");
					goto cleanup;
				}
				functions = v;
			}
			functions[nfunctions++] = optarg;
			o.annotate = true;
			break;
		default:
			common_option(opt, usage_text);
		}
	}
	if (o.inclusive && o.nearest_source)
		usage_error("--inclusive and --nearest-source exclude each other");
	o.events = events;
	p = line_profile__new(&o);
	if (!p) {
		error("cannot start: %s", strerror(errno));
		goto cleanup;
	}
	heap_for_inputs(argv + optind, argc - optind);
	if (optind == argc && read_input_with("-", read_lines, p) < 0)
		goto cleanup;
	for (int i = optind; i < argc; i++)
		if (read_input_with(argv[i], read_lines, p) < 0)
			goto cleanup;
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (nfunctions == 1) {
		if (annotate(p, functions[0], stdout, true))
			goto cleanup;
	} else if (nfunctions > 1) {
		bool first = true;

		/* each section whole or not at all, after a blank line: a source line always has its margin */
		for (size_t i = 0; i < nfunctions; i++) {
			char *text = NULL;
			size_t len = 0;
			FILE *section = open_memstream(&text, &len);

			if (!section) {
				error("out of memory");
				goto cleanup;
			}
			if (annotate(p, functions[i], section, false) == 0 && fflush(section) == 0 && len) {
				if (!first)
					putchar('\n');
				fwrite(text, 1, len, stdout);
				first = false;
			}
			fclose(section);
			free(text);
		}
	} else if (line_profile__write(p, stdout) == -ENOMEM) {
		error("out of memory");
		goto cleanup;
	}
	ret = close_stdout() ? EXIT_RUNTIME : 0;
cleanup:
	line_profile__free(p);
	free(events);
	free(functions);
	return ret;
}
