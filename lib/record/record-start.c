/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting a recording: the command forked and held until its events are
 * open, or the threads of running processes attached (with what they had
 * mapped before, from /proc); the off-CPU program loaded.
 */
#include "record/recorder-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/followgate.h"
#include "record/offcpu-sampler.h"
#include "record/perfevent.h"
#include "record/threadstat.h"

/* The id of sched:sched_process_fork and its child_pid's offset, from a tracefs directory; -1 if absent. */
static int read_fork_tracepoint(struct recorder *r, const char *dir)
{
	char path[256], line[256];
	FILE *f;
	int id = -1;

	snprintf(path, sizeof(path), "%s/events/sched/sched_process_fork/id", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	snprintf(path, sizeof(path), "%s/events/sched/sched_process_fork/format", dir);
	if (!(f = fopen(path, "r")))
		return id;
	while (fgets(line, sizeof(line), f)) {
		const char *field = strstr(line, " child_pid;");
		const char *off = strstr(line, "offset:");

		if (field && off)
			r->fork_child_offset = (size_t)atoi(off + 7);
	}
	fclose(f);
	return id;
}

/* The fork tracepoint's id, mounting tracefs if it is not there (as root this works); -1 if unavailable. */
static int fork_tracepoint(struct recorder *r)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	int id;

	for (size_t i = 0; i < 2; i++)
		if ((id = read_fork_tracepoint(r, dirs[i])) >= 0)
			return id;
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) != 0)
		return -1;
	return read_fork_tracepoint(r, dirs[0]);
}

static void set_layout(struct recorder *r)
{
	r->layout = event_rings__layout(r->session);
}

/*
 * The file execvp would run for name (PATH searched when it has no '/'):
 * path filled, or false.
 */
static bool command_path(const char *name, char *path, size_t size)
{
	const char *dirs = getenv("PATH");

	if (strchr(name, '/'))
		return (size_t)snprintf(path, size, "%s", name) < size && access(path, X_OK) == 0;
	for (const char *d = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; ; d++) {
		const char *end = strchr(d, ':');
		size_t len = end ? (size_t)(end - d) : strlen(d);

		if ((size_t)snprintf(path, size, "%.*s%s%s", (int)len, d, len ? "/" : "", name) < size &&
		    access(path, X_OK) == 0)
			return true;
		if (!end)
			return false;
		d = end;
	}
}

/* The command's own region probes, attached before it runs: its first region too is seen. */
static void scan_command(struct recorder *r)
{
	char path[4096];
	struct stat st;

	if (command_path(r->o.argv[0], path, sizeof(path)) && stat(path, &st) == 0)
		recorder__scan_regions(r, path, (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev), st.st_ino);
}

/* Starts the command, held until its events are open (not when the whole system is recorded already). */
static int start_command(struct recorder *r, struct lp_error *err)
{
	int go[2], errpipe[2], e = 0, ret;
	ssize_t n;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(errpipe, O_CLOEXEC) < 0)
		return lp_error__set(err, -errno, "pipe");
	r->child = fork();
	if (r->child < 0)
		return lp_error__set(err, -errno, "fork");
	if (r->child == 0) {
		char c;

		close(go[1]);
		close(errpipe[0]);
		if (r->o.workload_stdout >= 0)
			dup2(r->o.workload_stdout, STDOUT_FILENO);
		/* wait until the events are open: they start counting at exec */
		if (read(go[0], &c, 1) != 1)
			_exit(125);
		execvp(r->o.argv[0], r->o.argv);
		e = errno;
		if (write(errpipe[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(errpipe[1]);
	if (r->o.perf.system_wide) {
		/* (the whole system's events are open already) */
		scan_command(r);
		ret = 0;
		goto let_go;
	}
	if (r->o.npids) {
		/* the processes of -p are recorded for as long as the command runs: it is not followed */
		ret = 0;
		goto let_go;
	}
	r->session = event_rings__open(r->child, &r->o.perf, err);
	ret = r->session ? 0 : -errno;
	if (ret == 0 && r->gate && (ret = follow_gate__follow(r->gate, r->child)) < 0)
		lp_error__set(err, ret, "following the command");
	if (ret == 0) {
		set_layout(r);
		if (r->offcpu && (ret = offcpu__follow(r->offcpu, r->child, false)) < 0)
			lp_error__set(err, 0, "following the command off the CPU");
	}
	if (ret < 0) {
		close(go[1]);
		close(errpipe[0]);
		waitpid(r->child, NULL, 0);
		r->child = -1;
		return ret;
	}
	scan_command(r);
	recorder__mark_start(r);
	if (r->offcpu)
		offcpu__start(r->offcpu, r->start_ns);
let_go:
	ret = write(go[1], "x", 1) == 1 ? 0 : -errno;
	close(go[1]);
	n = read(errpipe[0], &e, sizeof(e));
	close(errpipe[0]);
	if (n == sizeof(e)) {
		waitpid(r->child, &r->wait_status, 0);
		r->exited = true;
		return lp_error__set_kind(err, LP_ERROR_EXEC, -e, "cannot run the command");
	}
	return ret;
}

/* The executable mappings and thread names of a running process, as records. */
static int synthesize_process(struct recorder *r, pid_t pid)
{
	char path[64], line[4200], buf[8 + 64 + 4096 + 64];
	struct perf_event_header *h;
	uint64_t before;
	FILE *f;
	DIR *tasks;
	struct dirent *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))
		return -errno;
	while (ret == 0 && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned maj, min;
		char perms[8], file[4096] = "";
		struct perf_mmap2 m = { .pid = pid, .tid = pid, .path = file };

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &off, &maj, &min,
			   &ino, file) < 7 || perms[2] != 'x')
			continue;
		if (!file[0])
			strcpy(file, "//anon");
		m.start = start;
		m.len = end - start;
		m.pgoff = off;
		m.dev = (uint64_t)maj << 32 | min;
		m.ino = ino;
		if ((h = perf_mmap2__encode(buf, sizeof(buf), &m, r->start_ns)))
			ret = recorder__keep(r, h);
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (ret < 0 || !(tasks = opendir(path)))
		return ret;
	while (ret == 0 && (d = readdir(tasks))) {
		pid_t tid = (pid_t)atoi(d->d_name);
		char comm[17] = "";

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		h = perf_comm__encode(buf, sizeof(buf), &(struct perf_comm){ .pid = pid, .tid = tid, .comm = comm },
				      r->start_ns);
		if (h)
			ret = recorder__keep(r, h);
		if (ret == 0 && thread_stats__cpu_so_far(pid, tid, &before))
			ret = recorder__note_cpu_before(r, tid, before);
	}
	closedir(tasks);
	return ret;
}

/* Opens the events on every thread of one attached process. */
static int attach_threads(struct recorder *r, pid_t pid, const struct perf_opts *o, struct lp_error *err)
{
	char dir[64];
	struct dirent *d;
	DIR *tasks;
	int ret = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	if (!(tasks = opendir(dir)))
		return errno == ENOENT ? lp_error__set(err, -ESRCH, "no process %d", (int)pid) :
					 lp_error__set(err, -errno, "reading the threads of process %d", (int)pid);
	while (ret == 0 && (d = readdir(tasks))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid <= 0)
			continue;
		if (!r->session) {
			r->session = event_rings__open(tid, o, err);
			ret = r->session ? 0 : -errno;
			if (r->session)
				set_layout(r);
		} else {
			ret = event_rings__add_task(r->session, tid, err);
		}
		if (ret == 0 && r->gate && (ret = follow_gate__follow(r->gate, tid)) < 0)
			lp_error__set(err, ret, "following process %d", (int)pid);
		/* a thread that exited since it was listed: nothing to follow */
		if (ret == -ESRCH && tid != pid)
			ret = 0;
	}
	closedir(tasks);
	return ret;
}

static int attach(struct recorder *r, struct lp_error *err)
{
	struct perf_opts o = r->o.perf;
	int ret;

	o.enable_on_exec = false;
	for (size_t i = 0; i < r->o.npids; i++)
		if ((ret = attach_threads(r, r->o.pids[i], &o, err)) < 0)
			return ret;
	recorder__mark_start(r);
	if (r->offcpu)
		offcpu__start(r->offcpu, r->start_ns);
	for (size_t i = 0; i < r->o.npids; i++) {
		if (r->offcpu && (ret = offcpu__follow(r->offcpu, r->o.pids[i], true)) < 0)
			return lp_error__set(err, ret, "following the process off the CPU");
		if ((ret = synthesize_process(r, r->o.pids[i])) < 0)
			return lp_error__set(err, ret, "reading the process's mappings");
	}
	return r->session ? event_rings__enable(r->session) : -ESRCH;
}

/*
 * Records every process on the machine (or on some CPUs): events on each CPU,
 * the processes already running read from /proc, then the command if any.
 */
static int start_system_wide(struct recorder *r, struct lp_error *err)
{
	struct perf_opts o = r->o.perf;
	struct dirent *d;
	size_t unreadable = 0;
	DIR *proc;
	int ret = 0;

	o.enable_on_exec = false;
	r->session = event_rings__open(-1, &o, err);
	if (!r->session)
		return -errno;
	set_layout(r);
	recorder__mark_start(r);
	if (r->offcpu)
		offcpu__start(r->offcpu, r->start_ns);
	if ((ret = event_rings__enable(r->session)) < 0)
		return lp_error__set(err, ret, "enabling the events");
	if (!(proc = opendir("/proc")))
		return lp_error__set(err, -errno, "reading /proc");
	while (ret == 0 && (d = readdir(proc))) {
		pid_t pid = (pid_t)atoi(d->d_name);

		if (pid <= 0)
			continue;
		/* gone since it was listed, or not ours to read: its frames show as addresses */
		if ((ret = synthesize_process(r, pid)) == -ENOMEM)
			lp_error__set(err, ret, "reading the mappings of process %d", (int)pid);
		else if (ret < 0 && ret != -ENOENT && ret != -ESRCH)
			unreadable++;
		if (ret != -ENOMEM)
			ret = 0;
	}
	closedir(proc);
	if (unreadable)
		lp_error__warn(r->o.warn, r->o.ctx, NULL, 0, "the mappings of %zu running processes cannot be read "
			"(/proc/PID/maps): their frames before an exec show as addresses", unreadable);
	if (ret == 0 && r->o.argv)
		ret = start_command(r, err);
	return ret;
}

/* Loads the off-CPU program; without it, a warning saying why, or failure if it was required. */
static int start_offcpu(struct recorder *r, struct lp_error *err)
{
	r->offcpu = offcpu__open(&r->o.offcpu_opts, err);
	if (r->offcpu)
		return 0;
	if (r->o.offcpu_required)
		return errno ? -errno : -ENOTSUP;
	lp_error__warn(r->o.warn, r->o.ctx, NULL, 0, "off-CPU sampling is off: %s: %s%s", err->msg, strerror(errno),
		errno == EPERM || errno == EACCES ? " (it needs root or CAP_BPF and CAP_PERFMON)" : "");
	lp_error__clear(err);
	return 0;
}

int recorder__start(struct recorder *r, struct lp_error *err)
{
	int ret;

	lp_error__clear(err);
	r->o.perf.fork_tracepoint = r->o.spawn_stacks ? fork_tracepoint(r) : -1;
	if (r->o.offcpu && (ret = start_offcpu(r, err)) < 0)
		return ret;
	if (r->o.perf.system_wide) {
		ret = start_system_wide(r, err);
	} else if (r->o.argv && !r->o.npids) {
		r->o.perf.enable_on_exec = true;
		ret = start_command(r, err);
	} else {
		ret = attach(r, err);
		/* perf's `-p PID -- sleep 10`: the command says how long */
		if (ret == 0 && r->o.argv)
			ret = start_command(r, err);
	}
	if (ret == 0 && r->offcpu)
		event_rings__poll_also(r->session, offcpu__fd(r->offcpu));
	/*
	 * Started once the command is (a thread is no company for a fork), and
	 * not for the whole system: every program it runs, sampled or not. A
	 * live recording's writer reads each file at its first frame instead.
	 */
	if (ret == 0 && !r->o.perf.system_wide && !r->o.live)
		recorder__load_symbols(r);
	return ret;
}
