/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-roofline record: COMMAND under lp-record with the PMU's FLOP and
 * load/store counters, or (--emulate) timed under lp-record and counted
 * under qemu-user with lp-count, lp's TCG plugin.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "roofline/calibrate.h"
#include "cmdutil.h"
#include "roofline/emucounts.h"
#include "roofline/flopevents.h"
#include "roofline-record.h"

static const char record_usage[] =
	"Usage: lp-roofline record [OPTION]... [LP-RECORD-OPTION]... -- COMMAND [ARG]...\n"
	"Record COMMAND with lp-record and this CPU's FLOP and load/store counters, for\n"
	"lp-roofline points. The counters are first checked on kernels whose FLOPs,\n"
	"loads and stores are known: one off by more than 1% is refused. When there\n"
	"are more counters than --group-size, COMMAND runs once per group (the later\n"
	"runs without on- or off-CPU samples) and the stream holds every run.\n"
	"With --emulate, COMMAND runs once under lp-record for its time and once more\n"
	"under QEMU (Debian's qemu-user) with lp's plugin, which counts every FP\n"
	"operation and every byte loaded and stored, exactly, per thread and function:\n"
	"no counters needed, many times slower. Other options go to lp-record.\n"
	"\n"
	"  -o, --output=FILE     write the stream to FILE (default stdout)\n"
	"      --emulate         count by emulation instead of with the PMU's counters\n"
	"      --emulate=exact   the same with a callback for every load and store\n"
	"                        throughout (3-5x slower; the bytes are the same)\n"
	"      --group-size=N    counters per run (default 4)\n"
	"      --period=N        a sample every N counts of each counter (default 1000003)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: COMMAND's, 125 when the counters are missing or not to be trusted,\n"
	"or the emulator cannot run COMMAND (nothing is recorded then), 2 usage error.\n";

/*
 * Runs argv; its exit status as lp-record gives it (128+N for a signal).
 * When the stream goes to stdout, the command's output goes to stderr.
 */
static int run(char **argv, bool stream_on_stdout)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (stream_on_stdout && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", progname, argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Appends a group's stream to out: streams one after another, each whole, as cat would. */
static int append_stream(FILE *out, const char *path)
{
	FILE *in = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (!in)
		return -errno;
	while ((n = getline(&line, &cap, in)) > 0) {
		if (fwrite(line, 1, (size_t)n, out) != (size_t)n) {
			ret = -EIO;
			break;
		}
	}
	if (ferror(in))
		ret = -EIO;
	free(line);
	fclose(in);
	return ret;
}

/* The stream to write: the file output, or stdout without one; NULL, said, when it cannot be made */
static FILE *open_output(const char *output)
{
	FILE *out = output ? fopen(output, "we") : stdout;

	if (!out)
		error("cannot write '%s': %s", output, strerror(errno));
	return out;
}

/* Closes the stream written (stdout, or the file output), saying why it could not be: 0 or -1 */
static int close_output(FILE **out, const char *output)
{
	int failed = *out == stdout ? close_stdout() : fclose(*out) != 0;

	*out = NULL;
	if (failed)
		error("cannot write '%s': %s", output ? output : "stdout", strerror(errno));
	return failed ? -1 : 0;
}

/* name found in PATH (or name itself, with a slash) into buf: 0, or -ENOENT */
static int find_program(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(buf, size, "%s", name);
		return access(buf, X_OK) == 0 ? 0 : -errno;
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		if ((size_t)snprintf(buf, size, "%.*s/%s", (int)len, len ? p : ".", name) < size &&
		    access(buf, X_OK) == 0)
			return 0;
		p += len + (colon ? 1 : 0);
	}
	return -ENOENT;
}

/* lp-count, lp's QEMU plugin: $LP_COUNT_PLUGIN, else ../lib/lp/ from this program */
static int find_plugin(char *buf, size_t size)
{
	const char *env = getenv("LP_COUNT_PLUGIN");
	size_t n;

	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return access(buf, R_OK) == 0 ? 0 : -errno;
	}
	exe_dir(buf, size);
	n = strlen(buf);
	if (n + sizeof("../lib/lp/lp-count.so") > size)
		return -ENAMETOOLONG;
	strcpy(buf + n, "../lib/lp/lp-count.so");
	return access(buf, R_OK) == 0 ? 0 : -errno;
}

static void remove_tree_files(const char *dir)
{
	char pattern[PATH_MAX];
	glob_t g;

	snprintf(pattern, sizeof(pattern), "%s/*", dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
		globfree(&g);
	}
	rmdir(dir);
}

/* Reads every process's counts of the emulated run into e (what, of .unsupported: what QEMU could not run). */
static int read_emulated(struct emucounts *e, const char *dir, const char *what)
{
	char pattern[PATH_MAX];
	struct lp_error err;
	glob_t g;
	int ret = 0;

	snprintf(pattern, sizeof(pattern), "%s/count.*%s", dir, what);
	if (glob(pattern, 0, NULL, &g) != 0) {
		error("the emulated run wrote no counts (in '%s')", dir);
		return -ENOENT;
	}
	for (size_t i = 0; i < g.gl_pathc && ret == 0; i++)
		if ((ret = emucounts__read(e, g.gl_pathv[i], &err)) < 0)
			error_report(&err);
	globfree(&g);
	return ret;
}

/*
 * record --emulate: COMMAND under lp-record for its time, then under
 * qemu-ARCH with lp-count for its FLOPs and bytes; the stream holds both
 * runs (lp-record's stream, then the K records'). The native run goes
 * first, so that an emulation that fails wastes nothing.
 */
static int record_emulated(char **command, char **passed, int npassed, const char *output, bool exact)
{
	char qemu_name[80], qemu[PATH_MAX], plugin[PATH_MAX], program[PATH_MAX], self[PATH_MAX], spec[PATH_MAX + 64];
	char tmpdir[] = "/tmp/lp-roofline.XXXXXX", native[PATH_MAX];
	struct emucounts *e = NULL;
	struct utsname u;
	struct stat st;
	struct lp_error err;
	char **args = NULL;
	FILE *out = NULL;
	int n = 0, status, emulated, copied, ret = 125;

	uname(&u);
	snprintf(qemu_name, sizeof(qemu_name), "qemu-%s", u.machine);
	if (find_program(qemu_name, qemu, sizeof(qemu)) < 0) {
		error("%s is missing: install Debian's qemu-user (apt-get install qemu-user); nothing recorded",
		      qemu_name);
		return ret;
	}
	if (find_plugin(plugin, sizeof(plugin)) < 0) {
		error("cannot find lp-count, lp's QEMU plugin, at '%s': %s (is lp installed whole?)", plugin,
		      strerror(errno));
		return ret;
	}
	if (find_program(command[0], program, sizeof(program)) < 0 || stat(program, &st) < 0) {
		error("cannot run '%s': not found", command[0]);
		return 127;
	}
	if ((st.st_mode & S_ISUID && st.st_uid != geteuid()) || (st.st_mode & S_ISGID && st.st_gid != getegid())) {
		error("'%s' is set-user-ID or set-group-ID: under QEMU it would run without its privileges, "
		      "doing other work; nothing recorded", program);
		return ret;
	}
	if (!mkdtemp(tmpdir)) {
		error("cannot make a temporary directory: %s", strerror(errno));
		return ret;
	}
	for (char **c = command; *c; c++)
		n++;
	args = calloc((size_t)npassed + (size_t)n + 16, sizeof(char *));
	if (!args) {
		error("out of memory");
		goto cleanup;
	}
	/* the time: lp-record as the user asked */
	snprintf(native, sizeof(native), "%s/native.lp", tmpdir);
	n = 0;
	args[n++] = (char *)program_beside("lp-record", self, sizeof(self));
	for (int i = 0; i < npassed; i++)
		args[n++] = passed[i];
	args[n++] = "-o";
	args[n++] = native;
	args[n++] = "--";
	for (char **c = command; *c; c++)
		args[n++] = *c;
	args[n] = NULL;
	status = run(args, !output);
	if (status < 0 || status >= 125) {
		if (status < 0)
			error("cannot run lp-record: %s", strerror(-status));
		ret = status < 0 ? 125 : status;
		goto cleanup;
	}
	/* the counts: the same command under QEMU, named argv[0] as before */
	fprintf(stderr, "%s: counting FLOPs and bytes: '%s' again, under %s (many times slower)\n", progname,
		command[0], qemu_name);
	snprintf(spec, sizeof(spec), "%s,out=%s/count%s", plugin, tmpdir, exact ? ",exact=1" : "");
	n = 0;
	args[n++] = qemu;
	args[n++] = "-cpu";
	args[n++] = "max";
	args[n++] = "-plugin";
	args[n++] = spec;
	args[n++] = "-0";
	args[n++] = command[0];
	args[n++] = program;
	for (char **c = command + 1; *c; c++)
		args[n++] = *c;
	args[n] = NULL;
	emulated = run(args, !output);
	if (!(e = emucounts__new(print_warning, NULL))) {
		error("out of memory");
		goto cleanup;
	}
	if (emulated == 128 + SIGILL) {
		read_emulated(e, tmpdir, ".unsupported");
		if (emucounts__unsupported(e) && strcmp(emucounts__unsupported(e), "avx512") == 0)
			error("'%s' uses AVX-512, which %s (QEMU 7.2) cannot run: it died of SIGILL there; "
			      "nothing recorded (build it without -mavx512*, or count with the PMU)", command[0], qemu_name);
		else
			error("'%s' died of SIGILL under %s: an instruction QEMU cannot run; nothing recorded",
			      command[0], qemu_name);
		goto cleanup;
	}
	if (emulated != status)
		warning("the emulated run exited with %d, the timed one with %d: they may have done different work",
			emulated, status);
	if (read_emulated(e, tmpdir, "[0-9]") < 0)
		goto cleanup;
	if (!(out = open_output(output)))
		goto cleanup;
	if ((copied = append_stream(out, native)) < 0) {
		error("cannot copy the stream of the timed run: %s", strerror(-copied));
		goto cleanup;
	}
	if (emucounts__write(e, out, &err) < 0) {
		error_report(&err);
		goto cleanup;
	}
	if (close_output(&out, output) == 0)
		ret = status;
cleanup:
	if (out && out != stdout)
		fclose(out);
	emucounts__free(e);
	free(args);
	remove_tree_files(tmpdir);
	return ret;
}

int roofline_record(int argc, char **argv)
{
	enum flop_vendor vendor = flop_vendor__this();
	const char *const *events = flop_vendor__events(vendor), *output = NULL;
	size_t nevents = 0, group = 4, ngroups;
	unsigned long long period = 1000003;
	char **passed = calloc((size_t)argc + 1, sizeof(char *)), **command = NULL, self[PATH_MAX];
	char tmpdir[] = "/tmp/lp-roofline.XXXXXX";
	int npassed = 0, status = 0, ret = 125;
	struct calibration cal;
	struct lp_error err = { 0 };
	FILE *out = NULL;
	bool made_tmp = false, emulate = false, exact = false;

	if (!passed)
		usage_error("out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			command = argv + i + 1;
			break;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			common_option('h', record_usage);
		if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc)
			output = argv[++i];
		else if (strncmp(a, "--output=", 9) == 0)
			output = a + 9;
		else if (strncmp(a, "-o", 2) == 0 && a[2])
			output = a + 2;
		else if (strcmp(a, "--emulate") == 0)
			emulate = true;
		else if (strncmp(a, "--emulate=", 10) == 0 && strcmp(a + 10, "exact") == 0)
			emulate = exact = true;
		else if (strncmp(a, "--emulate=", 10) == 0)
			usage_error("--emulate takes nothing or 'exact', got '%s'", a + 10);
		else if (strncmp(a, "--group-size=", 13) == 0)
			group = count_arg(a + 13, "--group-size", 64);
		else if (strncmp(a, "--period=", 9) == 0)
			period = count_arg(a + 9, "--period", 4000000000u);
		else
			passed[npassed++] = argv[i];
	}
	if (!command || !*command)
		usage_error("record needs '-- COMMAND'");
	if (emulate) {
		ret = record_emulated(command, passed, npassed, output, exact);
		free(passed);
		return ret;
	}
	while (events[nevents])
		nevents++;
	if (!nevents) {
		error("no FLOP counters known for this CPU (%s): lp-roofline roofs still measures the machine",
		      flop_vendor__name(vendor));
		goto cleanup;
	}
	fprintf(stderr, "%s: checking the %zu %s counters on kernels of known FLOPs, loads and stores\n", progname,
		nevents, flop_vendor__name(vendor));
	if (flop_counters__calibrate(events, nevents, NULL, &cal, &err) < 0) {
		if (err.kind == LP_ERROR_NO_COUNTER) {
			/* name every counter a roofline needs, not only the first that failed */
			error("%s", err.msg);
			fprintf(stderr, "%s: a roofline needs these hardware counters, missing here:", progname);
			for (size_t i = 0; i < nevents; i++)
				fprintf(stderr, " %s", events[i]);
			fprintf(stderr, "; nothing recorded (lp-roofline roofs still measures the machine)\n");
		} else {
			error("%s; nothing recorded", err.msg);
		}
		goto cleanup;
	}
	fprintf(stderr, "%s: counters within 1%%: FLOPs %.3f, loads %.3f, stores %.3f of the known counts\n", progname,
		cal.flops, cal.loads, cal.stores);
	if (!mkdtemp(tmpdir)) {
		error("cannot make a temporary directory: %s", strerror(errno));
		goto cleanup;
	}
	made_tmp = true;
	ngroups = (nevents + group - 1) / group;
	for (size_t g = 0; g < ngroups; g++) {
		char **args = calloc((size_t)npassed + 2 * group + 16 + (size_t)argc, sizeof(char *));
		char path[PATH_MAX], specs[64][256];
		int n = 0, st;

		if (!args) {
			error("out of memory");
			goto cleanup;
		}
		args[n++] = (char *)program_beside("lp-record", self, sizeof(self));
		for (int i = 0; i < npassed; i++)
			args[n++] = passed[i];
		if (g > 0) {
			/* the first run's samples give the time; the later ones count only */
			args[n++] = "-F";
			args[n++] = "0";
			args[n++] = "--offcpu-freq=0";
			args[n++] = "-q";
		}
		for (size_t e = g * group; e < nevents && e < (g + 1) * group; e++) {
			snprintf(specs[e - g * group], sizeof(specs[0]), "%s,%llu", events[e], period);
			args[n++] = "-e";
			args[n++] = specs[e - g * group];
		}
		snprintf(path, sizeof(path), "%s/group%zu.lp", tmpdir, g);
		args[n++] = "-o";
		args[n++] = path;
		args[n++] = "--";
		for (char **c = command; *c; c++)
			args[n++] = *c;
		if (ngroups > 1)
			fprintf(stderr, "%s: run %zu of %zu\n", progname, g + 1, ngroups);
		st = run(args, !output);
		free(args);
		if (st < 0 || st >= 125) {
			if (st < 0)
				error("cannot run lp-record: %s", strerror(-st));
			status = st < 0 ? 125 : st;
			ret = status;
			goto cleanup;
		}
		if (g == 0)
			status = st;
	}
	if (!(out = open_output(output)))
		goto cleanup;
	for (size_t g = 0; g < ngroups; g++) {
		char path[PATH_MAX];
		int r;

		snprintf(path, sizeof(path), "%s/group%zu.lp", tmpdir, g);
		if ((r = append_stream(out, path)) < 0) {
			error("cannot copy the stream of run %zu: %s", g + 1, strerror(-r));
			goto cleanup;
		}
	}
	if (close_output(&out, output) == 0)
		ret = status;
cleanup:
	if (out && out != stdout)
		fclose(out);
	if (made_tmp)
		remove_tree_files(tmpdir);
	free(passed);
	return ret;
}
