/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp: the umbrella, as git's: "lp COMMAND ARGS" runs lp-COMMAND, found beside lp or on PATH. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdutil.h"
#include "version.h"	/* LP_VERSION, made by make from git describe or VERSION */

static const struct {
	const char *name, *what;
} commands[] = {
	{ "stat", "count events of a command (or -p PID, -a) as perf stat does" },
	{ "record", "sample a command (or -p PID, -a) on and off the CPU into an lp stream" },
	{ "offcpu", "sample where a command waits, alone (eBPF on sched_switch)" },
	{ "collapse", "fold lp streams, perf script text or folded stacks into folded stacks" },
	{ "svg", "draw a flame graph, flame chart, timeline or roofline as one SVG" },
	{ "filter", "cut stack frames by regular expression or a Python function" },
	{ "lines", "weights per source line (DWARF line tables)" },
	{ "export", "write pprof, speedscope, Trace Event JSON or perf script text" },
	{ "roofline", "measure the machine's roofs and place code under them" },
	{ "report", "record a command into a static report: timeline, flame graphs, sources" },
	{ "job-report", "merge an MPI or Slurm job's streams into one report, a band per rank" },
};

static void list_commands(FILE *out)
{
	fprintf(out, "Usage: lp COMMAND [ARG]...   (each COMMAND is also the program lp-COMMAND)\n"
		     "       lp help [COMMAND]     (its manual page)\n"
		     "       lp --version\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].what);
	fprintf(out, "\nSee lp(7) for how they compose, lp-stream(5) for what they exchange.\n");
}

static bool is_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return true;
	return false;
}

/* Runs lp-NAME with args: beside lp, else from PATH. Returns only when it cannot. */
static void run(const char *name, char **args)
{
	char path[PATH_MAX], prog[64];
	const char *found;

	snprintf(prog, sizeof(prog), "lp-%s", name);
	args[0] = prog;
	found = program_beside(prog, path, sizeof(path));
	if (found != prog)
		execv(found, args);
	execvp(prog, args);
	error("cannot run '%s': %s", prog, strerror(errno));
}

/*
 * The manual page: man's own, else the page that came with lp where man does
 * not look (a build in its source tree, lp's share/man beside its bin/).
 */
static int help(const char *name)
{
	char page[64], dir[PATH_MAX], path[PATH_MAX + 96];
	const char *section = name ? "1" : "7";
	const char *const tries[] = { "../share/man/man%s/%s.%s", "../../share/man/man%s/%s.%s" };

	snprintf(page, sizeof(page), name ? "lp-%s" : "lp", name);
	exe_dir(dir, sizeof(dir));
	for (size_t i = 0; dir[0] && i < sizeof(tries) / sizeof(tries[0]); i++) {
		char rel[96];

		snprintf(rel, sizeof(rel), tries[i], section, page, section);
		snprintf(path, sizeof(path), "%s%s", dir, rel);
		if (access(path, R_OK) == 0)
			execlp("man", "man", "-l", path, (char *)NULL);
	}
	execlp("man", "man", section, page, (char *)NULL);
	error("cannot run man: %s", strerror(errno));
	return EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
	const char *cmd;

	set_progname("lp", argv);
	if (argc < 2) {
		list_commands(stdout);
		return close_stdout() ? EXIT_RUNTIME : 0;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		list_commands(stdout);
		return close_stdout() ? EXIT_RUNTIME : 0;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("lp %s\n", LP_VERSION);
		return close_stdout() ? EXIT_RUNTIME : 0;
	}
	if (strcmp(cmd, "help") == 0) {
		if (argc > 2 && !is_command(argv[2]))
			usage_error("'%s' is not an lp command; 'lp' lists them", argv[2]);
		return help(argc > 2 ? argv[2] : NULL);
	}
	if (!is_command(cmd))
		usage_error("'%s' is not an lp command; 'lp' lists them", cmd);
	run(cmd, argv + 1);
	return EXIT_RUNTIME;
}
