/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-filter: cut stack frames of an lp stream or folded stacks by regex or Python. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdutil.h"
#include "filter/lpfilter.h"
#include "filter/pyfilter.h"
#include "filter/stackfilter.h"

static const char usage_text[] =
	"Usage: lp-filter [--mark] MODE [FILE]...\n"
	"Cut stack frames of an lp stream or folded stacks (detected) and write the\n"
	"same format; every other line passes unchanged. With no FILE, or '-', read\n"
	"stdin.\n"
	"\n"
	"Modes:\n"
	"  deny:FILTER     cut the frames FILTER matches\n"
	"  allow:FILTER    keep only the frames FILTER matches\n"
	"  python:SCRIPT   keep the frames SCRIPT's process(callchain) says True for\n"
	"                  (this runs SCRIPT: arbitrary code)\n"
	"A FILTER file has one statement a line: SYM <regex>, EXEC <regex>,\n"
	"ANY <regex> (symbol or executable), OR between groups, # comments.\n"
	"\n"
	"  -m, --mark      write each run of cut frames as one (cut) frame\n"
	"      --strict    an lp stream without its trailer (#lp.end: maybe cut) is an\n"
	"                  error, not a warning\n"
	"  -h, --help      show this help\n"
	"  -V, --version   show the version\n";

static const struct option long_options[] = {
	{ "mark", no_argument, NULL, 'm' },
	{ "strict", no_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct regex_filter {
	struct stackfilter *f;
	bool allow;
};

static int regex_decide(void *ctx, const struct filter_frame *frames, size_t n, bool *keep, struct lp_error *err)
{
	struct regex_filter *r = ctx;

	(void)err;
	for (size_t i = 0; i < n; i++) {
		int m = stackfilter__match(r->f, frames[i].sym, frames[i].symlen, frames[i].exec,
					   frames[i].execlen);

		if (m < 0)
			return m;
		keep[i] = r->allow ? m : !m;
	}
	return 0;
}

static int python_decide(void *ctx, const struct filter_frame *frames, size_t n, bool *keep, struct lp_error *err)
{
	return pyfilter__decide(ctx, frames, n, keep, err);
}

/* Filters one input ("-" for stdin) to stdout; prints what went wrong and returns -1. */
static int filter_input(const struct lpfilter_opts *o, const char *path)
{
	bool is_stdin = strcmp(path, "-") == 0;
	struct lp_error err;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	ret = lpfilter__run(o, fd, is_stdin ? "stdin" : path, stdout, &err);
	if (!is_stdin)
		close(fd);
	if (ret < 0) {
		fflush(stdout);
		error_report(&err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lpfilter_opts o = { .warn = print_warning };
	struct regex_filter rf = { 0 };
	struct pyfilter *py = NULL;
	const char *mode, *file;
	int opt, ret = EXIT_RUNTIME;
	static char outbuf[1 << 20];

	set_progname("lp-filter", argv);
	while ((opt = getopt_long(argc, argv, "mhV", long_options, NULL)) != -1) {
		switch (opt) {
		case 'm':
			o.mark = true;
			break;
		case 'S':
			o.strict = true;
			break;
		default:
			common_option(opt, usage_text);
		}
	}
	if (optind == argc)
		usage_error("no mode: deny:FILTER, allow:FILTER or python:SCRIPT");
	mode = argv[optind++];
	file = strchr(mode, ':');
	if (!file || !file[1])
		usage_error("mode '%s' is not deny:FILTER, allow:FILTER or python:SCRIPT", mode);
	file++;
	if (strncmp(mode, "deny:", 5) == 0 || strncmp(mode, "allow:", 6) == 0) {
		struct lp_error err;

		rf.allow = mode[0] == 'a';
		rf.f = stackfilter__load(file, &err);
		if (!rf.f) {
			error_report(&err);
			goto cleanup;
		}
		o.decide = regex_decide;
		o.pure = true;
		o.ctx = &rf;
		o.needs_exec = stackfilter__uses_exec(rf.f);
	} else if (strncmp(mode, "python:", 7) == 0) {
		struct lp_error err = { 0 };

		py = pyfilter__load(file, &err);
		if (!py) {
			error("%s: cannot start the Python filter:\n%s", file, err.msg[0] ? err.msg : "out of memory");
			goto cleanup;
		}
		o.decide = python_decide;
		o.ctx = py;
		o.needs_offsets = true;
	} else {
		usage_error("unknown mode '%.*s' (deny, allow or python)", (int)(file - 1 - mode), mode);
	}

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (optind == argc && filter_input(&o, "-") < 0)
		goto cleanup;
	for (int i = optind; i < argc; i++)
		if (filter_input(&o, argv[i]) < 0)
			goto cleanup;
	ret = close_stdout() ? EXIT_RUNTIME : 0;
cleanup:
	stackfilter__free(rf.f);
	pyfilter__free(py);
	return ret;
}
