#include "recorder.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cfi.h"
#include "escape.h"
#include "hash.h"
#include "htab.h"
#include "lpstream.h"
#include "stackmap.h"
#include "strbuf.h"
#include "symbolizer.h"

enum { ARENA_CHUNK = 8 << 20, TRAILER = 32, MAX_UNWIND = 32 };

/* Our own record type in the arena: an off-CPU interval from the BPF ring buffer. */
enum { LP_RECORD_OFFCPU = 0x4c50 };

struct index_entry {
	uint64_t time, seq;
	const struct perf_event_header *h;
};

struct chunk {
	struct chunk *next;
	size_t used;
	_Alignas(8) char data[];
};

struct thread_name {
	struct htab_entry head;
	pid_t tid;
	char comm[17];
};

struct recorder {
	struct record_opts o;
	struct perf_session *session;
	struct offcpu *offcpu;
	uint64_t offcpu_drops;
	long max_stack;		/* kernel.perf_event_max_stack */
	struct {
		uint64_t samples, sample_ns, lost, truncated;
	} counts;
	pid_t child;
	int wait_status;
	bool exited;
	uint64_t start_ns;

	struct chunk *chunks;
	struct index_entry *index;
	size_t n, cap;

	struct htab names;	/* of struct thread_name */
	size_t fork_child_offset;	/* of child_pid in the tracepoint's raw data */
};

struct recorder *recorder__new(const struct record_opts *o)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	r->child = -1;
	r->max_stack = perf_sysctl("perf_event_max_stack");
	r->fork_child_offset = 20;
	r->names = HTAB_INIT(struct thread_name);
	return r;
}

void recorder__free(struct recorder *r)
{
	struct chunk *c, *next;

	if (!r)
		return;
	perf_session__free(r->session);
	offcpu__free(r->offcpu);
	for (c = r->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(r->index);
	htab__release(&r->names);
	free(r);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- keeping records ---- */

static uint64_t u64_at(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)p + off, 8);
	return v;
}

static uint32_t u32_at(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, 4);
	return v;
}

static uint64_t record_time(const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_SAMPLE)
		return u64_at(h, 32);
	if (h->type == LP_RECORD_OFFCPU)
		return u64_at(h, 8);
	return h->size >= sizeof(*h) + TRAILER ? u64_at(h, h->size - 24) : 0;
}

static bool offcpu_truncated(const struct perf_event_header *h);

/* What the header says of the records: samples, their time, losses, cut stacks. */
static void count(struct recorder *r, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_LOST) {
		r->counts.lost += u64_at(h, 16);
	} else if (h->type == LP_RECORD_OFFCPU) {
		r->counts.truncated += offcpu_truncated(h);
	} else if (h->type == PERF_RECORD_SAMPLE && h->size >= 72 &&
		   !perf_session__is_fork_id(r->session, u64_at(h, 8))) {
		/* after the period: the counter's value if read, then the chain's length */
		size_t nr_at = perf_session__reads_values(r->session) ? 64 : 56;
		uint64_t nr = h->size >= nr_at + 8 ? u64_at(h, nr_at) : 0;

		r->counts.samples++;
		r->counts.sample_ns += u64_at(h, 48);
		/* the chain holds a context marker besides the frames */
		if (r->max_stack > 0 && nr >= (uint64_t)r->max_stack + 1)
			r->counts.truncated++;
	}
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int keep(void *ctx, const struct perf_event_header *h)
{
	struct recorder *r = ctx;
	struct chunk *c = r->chunks;
	struct perf_event_header *copy;

	if (!c || ARENA_CHUNK - c->used < h->size) {
		c = malloc(sizeof(*c) + ARENA_CHUNK);
		if (!c)
			return -ENOMEM;
		c->used = 0;
		c->next = r->chunks;
		r->chunks = c;
	}
	copy = (struct perf_event_header *)(c->data + c->used);
	memcpy(copy, h, h->size);
	c->used += round8(h->size);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 65536;
		struct index_entry *v = realloc(r->index, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->index = v;
		r->cap = cap;
	}
	count(r, copy);
	r->index[r->n].time = record_time(copy);
	r->index[r->n].seq = r->n;
	r->index[r->n].h = copy;
	r->n++;
	return 0;
}

/* Keeps an off-CPU interval, without the unused parts of its buffers. */
static int keep_offcpu(void *ctx, const struct offcpu_event *ev, size_t size)
{
	_Alignas(8) char buf[8 + sizeof(*ev) + OFFCPU_SNAPSHOT + 2 * OFFCPU_MAX_STACK * 8];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t snap = round8(ev->snapshot_size), nips = (size_t)ev->nuser + ev->nkernel;
	char *p = buf + 8;

	if (ev->snapshot_size > OFFCPU_SNAPSHOT || ev->nuser > OFFCPU_MAX_STACK ||
	    ev->nkernel > OFFCPU_MAX_STACK || size < sizeof(*ev) + OFFCPU_SNAPSHOT + nips * 8)
		return -EPROTO;
	memcpy(p, ev, sizeof(*ev));
	p += sizeof(*ev);
	memcpy(p, ev + 1, ev->snapshot_size);
	p += snap;
	memcpy(p, (const char *)(ev + 1) + OFFCPU_SNAPSHOT, nips * 8);
	p += nips * 8;
	h->type = LP_RECORD_OFFCPU;
	h->misc = 0;
	h->size = (uint16_t)(p - buf);
	return keep(ctx, h);
}

/* ---- starting ---- */

/* The id of sched:sched_process_fork, mounting tracefs if it is not there; -1 if unavailable. */
static int fork_tracepoint(struct recorder *r)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256], line[256];

	for (int attempt = 0; attempt < 2; attempt++) {
		for (size_t i = 0; i < 2; i++) {
			FILE *f;
			int id = -1;

			snprintf(path, sizeof(path), "%s/events/sched/sched_process_fork/id", dirs[i]);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fscanf(f, "%d", &id) != 1)
				id = -1;
			fclose(f);
			snprintf(path, sizeof(path), "%s/events/sched/sched_process_fork/format", dirs[i]);
			f = fopen(path, "r");
			while (f && fgets(line, sizeof(line), f)) {
				const char *field = strstr(line, " child_pid;");
				const char *off = strstr(line, "offset:");

				if (field && off)
					r->fork_child_offset = (size_t)atoi(off + 7);
			}
			if (f)
				fclose(f);
			return id;
		}
		/* tracefs is not mounted: try to (as root this works) */
		if (system("mount -t tracefs nodev /sys/kernel/tracing >/dev/null 2>&1") != 0)
			break;
	}
	return -1;
}

static int start_command(struct recorder *r, const char **what)
{
	int go[2], err[2], e = 0, ret;
	ssize_t n;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		*what = "pipe";
		return -errno;
	}
	r->child = fork();
	if (r->child < 0) {
		*what = "fork";
		return -errno;
	}
	if (r->child == 0) {
		char c;

		close(go[1]);
		close(err[0]);
		if (r->o.workload_stdout >= 0)
			dup2(r->o.workload_stdout, STDOUT_FILENO);
		/* wait until the events are open: they start counting at exec */
		if (read(go[0], &c, 1) != 1)
			_exit(125);
		execvp(r->o.argv[0], r->o.argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	r->session = perf_session__open(r->child, &r->o.perf, what);
	if (!r->session) {
		ret = -errno;
		close(go[1]);
		close(err[0]);
		waitpid(r->child, NULL, 0);
		r->child = -1;
		return ret;
	}
	if (r->offcpu && (ret = offcpu__follow(r->offcpu, r->child, false)) < 0) {
		*what = "following the command off the CPU";
		close(go[1]);
		close(err[0]);
		waitpid(r->child, NULL, 0);
		r->child = -1;
		return ret;
	}
	r->start_ns = now_ns();
	if (r->offcpu)
		offcpu__start(r->offcpu, r->start_ns);
	ret = write(go[1], "x", 1) == 1 ? 0 : -errno;
	close(go[1]);
	n = read(err[0], &e, sizeof(e));
	close(err[0]);
	if (n == sizeof(e)) {
		waitpid(r->child, &r->wait_status, 0);
		r->exited = true;
		*what = "exec";
		return -e;
	}
	return ret;
}

/* A record as the kernel would have written it, for what existed before recording. */
static int synthesize(struct recorder *r, uint32_t type, uint16_t misc, const void *body, size_t len,
		      pid_t pid, pid_t tid)
{
	char buf[8 + 64 + 4096 + TRAILER];
	struct perf_event_header *h = (struct perf_event_header *)buf;
	size_t size = round8(8 + len);
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };
	uint64_t time = r->start_ns;

	if (size + TRAILER > sizeof(buf))
		return 0;
	memset(buf, 0, sizeof(buf));
	h->type = type;
	h->misc = misc;
	memcpy(buf + 8, body, len);
	memcpy(buf + size, ids, 8);
	memcpy(buf + size + 8, &time, 8);
	h->size = (uint16_t)(size + TRAILER);
	return keep(r, h);
}

/* The executable mappings and thread names of a running process. */
static int synthesize_process(struct recorder *r, pid_t pid)
{
	char path[64], line[4200];
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
		char body[64 + 4096];
		uint32_t ids[2] = { (uint32_t)pid, (uint32_t)pid }, dev[2];
		uint64_t v[3];
		size_t flen;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &off, &maj, &min,
			   &ino, file) < 7 || perms[2] != 'x')
			continue;
		if (!file[0])
			strcpy(file, "//anon");
		memset(body, 0, sizeof(body));
		memcpy(body, ids, 8);
		v[0] = start;
		v[1] = end - start;
		v[2] = off;
		memcpy(body + 8, v, 24);
		dev[0] = maj;
		dev[1] = min;
		memcpy(body + 32, dev, 8);
		memcpy(body + 40, &(uint64_t){ ino }, 8);
		flen = strlen(file) + 1;
		memcpy(body + 64, file, flen);
		ret = synthesize(r, PERF_RECORD_MMAP2, 0, body, 64 + flen, pid, pid);
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (ret < 0 || !(tasks = opendir(path)))
		return ret;
	while (ret == 0 && (d = readdir(tasks))) {
		pid_t tid = (pid_t)atoi(d->d_name);
		char body[8 + 32] = { 0 };
		uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(body + 8, 17, f))
			body[8 + strcspn(body + 8, "\n")] = 0;
		fclose(f);
		memcpy(body, ids, 8);
		ret = synthesize(r, PERF_RECORD_COMM, 0, body, 8 + strlen(body + 8) + 1, pid, tid);
	}
	closedir(tasks);
	return ret;
}

static int attach(struct recorder *r, const char **what)
{
	struct perf_opts o = r->o.perf;

	o.enable_on_exec = false;
	for (size_t i = 0; i < r->o.npids; i++) {
		char dir[64];
		struct dirent *d;
		DIR *tasks;

		snprintf(dir, sizeof(dir), "/proc/%d/task", (int)r->o.pids[i]);
		tasks = opendir(dir);
		if (!tasks) {
			*what = "reading the process's threads";
			return -errno;
		}
		while ((d = readdir(tasks))) {
			pid_t tid = (pid_t)atoi(d->d_name);
			int ret = 0;

			if (tid <= 0)
				continue;
			if (!r->session) {
				r->session = perf_session__open(tid, &o, what);
				if (!r->session)
					ret = -errno;
			} else {
				ret = perf_session__add_task(r->session, tid, what);
			}
			/* a thread that exited since it was listed: nothing to follow */
			if (ret == -ESRCH && tid != r->o.pids[i])
				continue;
			if (ret < 0) {
				closedir(tasks);
				return ret;
			}
		}
		closedir(tasks);
	}
	r->start_ns = now_ns();
	if (r->offcpu)
		offcpu__start(r->offcpu, r->start_ns);
	for (size_t i = 0; i < r->o.npids; i++) {
		int ret = r->offcpu ? offcpu__follow(r->offcpu, r->o.pids[i], true) : 0;

		if (ret < 0) {
			*what = "following the process off the CPU";
			return ret;
		}
		ret = synthesize_process(r, r->o.pids[i]);

		if (ret < 0) {
			*what = "reading the process's mappings";
			return ret;
		}
	}
	return r->session ? perf_session__enable(r->session) : -ESRCH;
}

/* Loads the off-CPU program; without it, a warning saying why, or failure if it was required. */
static int start_offcpu(struct recorder *r, const char **what)
{
	const char *why = "";
	char msg[1024];

	r->offcpu = offcpu__open(&r->o.offcpu_opts, &why);
	if (r->offcpu)
		return 0;
	if (r->o.offcpu_required) {
		*what = why;
		return errno ? -errno : -ENOTSUP;
	}
	snprintf(msg, sizeof(msg), "off-CPU sampling is off: %s: %s%s", why, strerror(errno),
		 errno == EPERM || errno == EACCES ? " (it needs root or CAP_BPF and CAP_PERFMON)" : "");
	if (r->o.warn)
		r->o.warn(r->o.ctx, msg);
	return 0;
}

int recorder__start(struct recorder *r, const char **what)
{
	int ret;

	r->o.perf.fork_tracepoint = r->o.spawn_stacks ? fork_tracepoint(r) : -1;
	if (r->o.offcpu && (ret = start_offcpu(r, what)) < 0)
		return ret;
	if (r->o.argv) {
		r->o.perf.enable_on_exec = true;
		ret = start_command(r, what);
	} else {
		ret = attach(r, what);
	}
	if (ret == 0 && r->offcpu)
		perf_session__poll_also(r->session, offcpu__fd(r->offcpu));
	return ret;
}

void recorder__signal(struct recorder *r, int sig)
{
	if (r->child > 0 && !r->exited)
		kill(r->child, sig);
}

int recorder__wait_status(const struct recorder *r)
{
	return r->wait_status;
}

static bool attached_alive(const struct recorder *r)
{
	for (size_t i = 0; i < r->o.npids; i++)
		if (kill(r->o.pids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

int recorder__run(struct recorder *r, volatile sig_atomic_t *stop)
{
	bool hangup = false;
	int ret;

	for (;;) {
		ret = perf_session__read(r->session, 100, keep, r, &hangup);
		if (ret >= 0 && r->offcpu)
			ret = offcpu__read(r->offcpu, keep_offcpu, r);
		if (ret < 0)
			return ret;
		if (r->child > 0 && !r->exited) {
			pid_t w = waitpid(r->child, &r->wait_status, WNOHANG);

			if (w == r->child)
				r->exited = true;
		}
		if (r->exited || (!r->o.argv && (*stop || hangup || !attached_alive(r))))
			break;
	}
	/* what the kernel still holds */
	perf_session__disable(r->session);
	ret = perf_session__read(r->session, 0, keep, r, &hangup);
	if (ret >= 0 && r->offcpu) {
		ret = offcpu__read(r->offcpu, keep_offcpu, r);
		r->offcpu_drops = offcpu__drops(r->offcpu);
	}
	return ret < 0 ? ret : 0;
}

/* ---- writing ---- */

static int cmp_index(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static struct thread_name *name_slot(struct recorder *r, pid_t tid)
{
	uint64_t h = hash_mix((uint64_t)(uint32_t)tid);
	struct thread_name *t;

	if (htab__reserve(&r->names) < 0)
		return NULL;
	for (size_t i = h; (t = htab__at(&r->names, i))->head.used; i++)
		if (t->tid == tid)
			return t;
	htab__insert(&r->names, t, h);
	t->tid = tid;
	return t;
}

static const char *comm_of(struct recorder *r, pid_t tid)
{
	struct thread_name *t = name_slot(r, tid);

	return t && t->comm[0] ? t->comm : "[unknown]";
}

static void set_comm(struct recorder *r, pid_t tid, const char *comm)
{
	struct thread_name *t = name_slot(r, tid);

	if (t)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* A sample record taken apart (see LP_SAMPLE_TYPE). */
struct sample {
	uint64_t id, time, period, value, nr;
	bool has_value;
	pid_t pid, tid;
	uint32_t cpu;
	const uint64_t *ips;
	const uint8_t *raw;
	uint32_t raw_size;
	bool has_regs;
	struct user_regs regs;
	const uint8_t *stack;
	uint64_t stack_size;
};

static bool parse_sample(const struct recorder *r, const struct perf_event_header *h, bool raw,
			 struct sample *s)
{
	size_t off = 64, size = h->size;

	memset(s, 0, sizeof(*s));
	if (size < 72)
		return false;
	s->id = u64_at(h, 8);
	s->pid = (pid_t)u32_at(h, 24);
	s->tid = (pid_t)u32_at(h, 28);
	s->time = u64_at(h, 32);
	s->cpu = u32_at(h, 40);
	s->period = u64_at(h, 48);
	if (!raw && perf_session__reads_values(r->session)) {
		s->has_value = true;
		s->value = u64_at(h, 56);
		off += 8;
	}
	s->nr = u64_at(h, off - 8);
	if (s->nr > (size - off) / 8)
		return false;
	s->ips = (const uint64_t *)((const char *)h + off);
	off += s->nr * 8;
	if (raw) {
		if (off + 4 > size)
			return false;
		s->raw_size = u32_at(h, off);
		s->raw = (const uint8_t *)h + off + 4;
		off += round8(4 + s->raw_size);
		if (off > size)
			return false;
	}
	if (r->o.perf.stack_snapshot && (r->o.perf.capture & CAPTURE_USER)) {
		if (off + 8 > size)
			return false;
		if (u64_at(h, off) != PERF_SAMPLE_REGS_ABI_NONE) {
			if (off + 32 > size)
				return false;
			s->has_regs = true;
			s->regs.bp = u64_at(h, off + 8);
			s->regs.sp = u64_at(h, off + 16);
			s->regs.ip = u64_at(h, off + 24);
			off += 32;
		} else {
			off += 8;
		}
		if (off + 8 > size)
			return false;
		s->stack_size = u64_at(h, off);
		off += 8;
		if (s->stack_size) {
			if (off + s->stack_size + 8 > size)
				return false;
			s->stack = (const uint8_t *)h + off;
			/* only what the kernel could copy is real */
			s->stack_size = u64_at(h, off + s->stack_size) < s->stack_size ?
					u64_at(h, off + s->stack_size) : s->stack_size;
		}
	}
	return true;
}

/* The last counter value seen per (thread, CPU): each inherited event counts for one of them. */
struct last_value {
	struct htab_entry head;
	uint64_t key, value;
};

struct writer {
	struct stackmap *programs;	/* executables already checked for frame pointers */
	struct htab values;	/* of struct last_value: a counter's, by thread and CPU */
	struct recorder *r;
	struct symbolizer *sym;
	FILE *out;
	struct strbuf stack, locs, line;
	struct record_stats *stats;
	const struct perf_event_header **fork_stacks;	/* tracepoint sample by index of the FORK */
	uint64_t chain[2 * OFFCPU_MAX_STACK + 2];	/* an off-CPU record's, as perf orders one */
	struct sym_frame *frames;	/* a callchain's, reused from sample to sample */
	size_t frames_cap;
};

static int put_field(struct strbuf *line, const char *s)
{
	int ret = strbuf__grow(line, 3 * strlen(s) + 1);

	if (ret < 0)
		return ret;
	line->s[line->len++] = '\t';
	line->len += escape(line->s + line->len, s, strlen(s), ESCAPE_FIELD);
	return 0;
}

static int put_line(struct writer *w)
{
	if (strbuf__addc(&w->line, '\n') < 0)
		return -ENOMEM;
	if (fwrite_unlocked(w->line.s, 1, w->line.len, w->out) != w->line.len)
		return -EIO;
	strbuf__reset(&w->line);
	return 0;
}

/* Appends v in decimal, then sep unless 0. */
static int put_u64(struct strbuf *b, uint64_t v, char sep)
{
	char buf[24], *p = buf + sizeof(buf);

	if (sep)
		*--p = sep;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return strbuf__add(b, p, (size_t)(buf + sizeof(buf) - p));
}

static int putf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	char buf[256];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return strbuf__add(b, buf, (size_t)(n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1));
}

/*
 * The frames of a sample's callchain, root first, into w->stack and w->locs,
 * with the caller that frame-pointer walking lost recovered from CFI.
 */
static int callchain(struct writer *w, const struct sample *sm, pid_t pid)
{
	bool kernel = false, first = true, changed = false;
	size_t n = 0, user = SIZE_MAX;
	struct sym_frame *frames;

	/* room for the chain and for every caller unwinding may add */
	if (sm->nr + MAX_UNWIND > w->frames_cap) {
		size_t cap = sm->nr + MAX_UNWIND;
		struct sym_frame *v = realloc(w->frames, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->frames = v;
		w->frames_cap = cap;
	}
	frames = w->frames;
	for (uint64_t i = 0; i < sm->nr; i++) {
		uint64_t ip = sm->ips[i];

		if (ip >= PERF_CONTEXT_MAX) {
			kernel = ip == PERF_CONTEXT_KERNEL;
			continue;
		}
		if (!kernel && user == SIZE_MAX)
			user = n;
		frames[n].ip = ip;
		frames[n].kernel = kernel;
		frames[n].precise = first;
		first = false;
		n++;
	}
	if (sm->has_regs && user != SIZE_MAX && frames[user].ip == sm->regs.ip && sm->stack) {
		uint64_t ras[MAX_UNWIND], known[MAX_UNWIND];
		bool outermost;
		size_t nknown = 0, k;

		for (size_t i = user + 1; i < n && nknown < MAX_UNWIND; i++)
			known[nknown++] = frames[i].ip;
		k = symbolizer__unwind(w->sym, pid, &sm->regs, sm->stack, sm->stack_size, ras, MAX_UNWIND,
				       &outermost, known, nknown);
		size_t rest = user + 1;	/* first frame-pointer frame kept after the unwound ones */

		/*
		 * The unwound callers are right; frame-pointer walking may have lost
		 * some (functions without a frame pointer) and may have gone astray.
		 * Past the last unwound caller it finds too, its chain goes on.
		 */
		if (outermost) {
			rest = n;
		} else {
			for (size_t j = k; j-- > 0 && rest == user + 1;)
				for (size_t i = user + 1; i < n; i++)
					if (frames[i].ip == ras[j]) {
						rest = i + 1;
						break;
					}
		}
		if (k > 0) {
			size_t total = user + 1 + k + (n - rest);

			/* counted when the chain changed: callers were missing or wrong */
			changed = rest != user + 1 + k;
			for (size_t i = 0; i < k && !changed; i++)
				changed = frames[user + 1 + i].ip != ras[i];
			memmove(&frames[user + 1 + k], &frames[rest], (n - rest) * sizeof(*frames));
			for (size_t i = 0; i < k; i++)
				frames[user + 1 + i] = (struct sym_frame){ ras[i], false, false };
			n = total;
			w->stats->recovered += changed;
		}
	}
	/* a frame-pointer loop (garbage in a register) repeats one address to the depth limit */
	if (n >= 8) {
		size_t run = 1;

		while (run < n && frames[n - 1 - run].ip == frames[n - 1].ip && !frames[n - 1].kernel)
			run++;
		if (run >= 8)
			n -= run - 1;
	}
	return symbolizer__chain(w->sym, pid, frames, n, &w->stack, &w->locs);
}

static int put_stack(struct writer *w)
{
	if (strbuf__addc(&w->line, '\t') < 0 || strbuf__add(&w->line, w->stack.s, w->stack.len) < 0 ||
	    strbuf__addc(&w->line, '\t') < 0)
		return -ENOMEM;
	return w->locs.len ? strbuf__add(&w->line, w->locs.s, w->locs.len) : strbuf__addc(&w->line, '-');
}

/* The task-clock time a sample stands for: its counter's advance, or the period. */
static uint64_t sample_weight(struct writer *w, const struct sample *sm)
{
	uint64_t key = (uint64_t)(uint32_t)sm->tid << 32 | sm->cpu, h = hash_mix(key), before;
	struct last_value *v;

	if (!sm->has_value)
		return sm->period;
	if (htab__reserve(&w->values) < 0)
		return sm->period;
	for (size_t i = h; (v = htab__at(&w->values, i))->head.used; i++)
		if (v->key == key)
			break;
	if (!v->head.used) {
		htab__insert(&w->values, v, h);
		v->key = key;
	}
	before = v->value;
	v->value = sm->value;
	return sm->value >= before ? sm->value - before : sm->period;
}

/* An S record up to its attributes: TIME PID TID COMM EVENT WEIGHT STACK LOCS (w->stack, w->locs). */
static int put_sample(struct writer *w, uint64_t time, pid_t pid, pid_t tid, const char *event, uint64_t weight)
{
	int ret;

	/* the hot path: numbers by hand, not through printf */
	if ((ret = strbuf__add(&w->line, "S\t", 2)) < 0 || (ret = put_u64(&w->line, time, '\t')) < 0 ||
	    (ret = put_u64(&w->line, (uint64_t)pid, '\t')) < 0 || (ret = put_u64(&w->line, (uint64_t)tid, 0)) < 0 ||
	    (ret = put_field(&w->line, comm_of(w->r, tid))) < 0 || (ret = strbuf__addc(&w->line, '\t')) < 0 ||
	    (ret = strbuf__add(&w->line, event, strlen(event))) < 0 || (ret = strbuf__addc(&w->line, '\t')) < 0 ||
	    (ret = put_u64(&w->line, weight, 0)) < 0)
		return ret;
	return put_stack(w);
}

static int write_sample(struct writer *w, const struct perf_event_header *h)
{
	struct sample sm;
	uint64_t weight;
	int ret;

	if (!parse_sample(w->r, h, false, &sm))
		return 0;
	weight = sample_weight(w, &sm);
	if ((ret = callchain(w, &sm, sm.pid)) < 0)
		return ret;
	w->stats->samples++;
	if ((ret = put_sample(w, sm.time, sm.pid, sm.tid, "cpu", weight)) < 0 ||
	    (ret = strbuf__add(&w->line, "\tcpu=", 5)) < 0 || (ret = put_u64(&w->line, sm.cpu, 0)) < 0)
		return ret;
	return put_line(w);
}

/* The stacks of a kept off-CPU record, the snapshot, and the addresses (see keep_offcpu). */
static const struct offcpu_event *offcpu_parts(const struct perf_event_header *h, const uint8_t **stack,
					       const uint64_t **ips)
{
	const struct offcpu_event *ev = (const struct offcpu_event *)(h + 1);

	*stack = (const uint8_t *)(ev + 1);
	*ips = (const uint64_t *)(*stack + round8(ev->snapshot_size));
	return ev;
}

/* Whether a user stack was cut at the depth limit, rather than a frame-pointer loop that filled it. */
static bool offcpu_truncated(const struct perf_event_header *h)
{
	const uint8_t *stack;
	const uint64_t *ips;
	const struct offcpu_event *ev = offcpu_parts(h, &stack, &ips);

	return ev->truncated && !(ev->nuser >= 2 && ips[ev->nuser - 1] == ips[ev->nuser - 2]);
}

static int write_offcpu(struct writer *w, const struct perf_event_header *h)
{
	const uint8_t *stack;
	const uint64_t *ips;
	const struct offcpu_event *ev = offcpu_parts(h, &stack, &ips);
	struct sample sm = {
		.time = ev->start,
		.pid = (pid_t)ev->pid,
		.tid = (pid_t)ev->tid,
		.ips = w->chain,
		.has_regs = ev->snapshot_size && ev->ip,
		.regs = { .ip = ev->ip, .sp = ev->sp, .bp = ev->bp },
		.stack = stack,
		.stack_size = ev->snapshot_size,
	};
	size_t n = 0;
	int ret;

	/* as perf orders a callchain: kernel frames, then user frames, leaf first */
	if (ev->nkernel) {
		w->chain[n++] = PERF_CONTEXT_KERNEL;
		memcpy(&w->chain[n], ips + ev->nuser, ev->nkernel * 8);
		n += ev->nkernel;
	}
	if (ev->nuser) {
		w->chain[n++] = PERF_CONTEXT_USER;
		memcpy(&w->chain[n], ips, ev->nuser * 8);
		n += ev->nuser;
	}
	sm.nr = n;
	if ((ret = callchain(w, &sm, sm.pid)) < 0)
		return ret;
	w->stats->offcpu_samples++;
	w->stats->offcpu_ns += ev->weight;
	if ((ret = put_sample(w, ev->start, sm.pid, sm.tid, "offcpu", ev->weight)) < 0 ||
	    (ret = strbuf__add(&w->line, "\tdur=", 5)) < 0 ||
	    (ret = put_u64(&w->line, ev->end - ev->start, 0)) < 0 ||
	    (ret = putf(&w->line, "\tstate=%c", ev->state >= 'A' && ev->state <= 'z' ? ev->state : '?')) < 0)
		return ret;
	return put_line(w);
}

/* The path of the program pid execs: its first file mapping after the exec. */
static const char *exec_path(struct recorder *r, size_t from, pid_t pid)
{
	for (size_t i = from + 1; i < r->n && i < from + 64; i++) {
		const struct perf_event_header *h = r->index[i].h;

		if (h->type == PERF_RECORD_MMAP2 && (pid_t)u32_at(h, 8) == pid)
			return (const char *)h + 8 + 64;
	}
	return NULL;
}

/* Warns, once per program, about one the workload ran that seems built without frame pointers. */
static int check_frame_pointers(struct writer *w, const char *path)
{
	struct stack_entry *seen = stackmap__add(w->programs, path, strlen(path), 0, 1);
	char msg[4400];
	int share;

	if (!seen)
		return -ENOMEM;
	if (seen->count[0] > 1 || (share = symbolizer__frame_pointer_share(w->sym, path)) < 0 || share >= 50)
		return 0;
	snprintf(msg, sizeof(msg),
		 "'%s' seems built without frame pointers (%d%% of its biggest functions set one "
		 "up): callers beyond the stack snapshot may be missing; rebuild it with "
		 "-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer", path, share);
	if (w->r->o.warn)
		w->r->o.warn(w->r->o.ctx, msg);
	return 0;
}

static int write_record(struct writer *w, size_t i)
{
	struct recorder *r = w->r;
	const struct perf_event_header *h = r->index[i].h;
	uint64_t time = r->index[i].time;
	int ret = 0;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (perf_session__is_fork_id(r->session, u64_at(h, 8)))
			return 0;
		return write_sample(w, h);
	case LP_RECORD_OFFCPU:
		return write_offcpu(w, h);
	case PERF_RECORD_MMAP2: {
		pid_t pid = (pid_t)u32_at(h, 8);

		/* maj, min, ino; unless the record carries a build id in their place */
		uint64_t dev = h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID ? 0 :
			       (uint64_t)u32_at(h, 40) << 32 | u32_at(h, 44);
		uint64_t ino = h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID ? 0 : u64_at(h, 48);

		return symbolizer__mmap(w->sym, pid, u64_at(h, 16), u64_at(h, 24), u64_at(h, 32),
					(const char *)h + 8 + 64, dev, ino);
	}
	case PERF_RECORD_COMM: {
		pid_t pid = (pid_t)u32_at(h, 8), tid = (pid_t)u32_at(h, 12);
		const char *comm = (const char *)h + 16;
		bool exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		const char *path = exec ? exec_path(r, i, pid) : NULL;

		set_comm(r, tid, comm);
		if (exec && (ret = symbolizer__exec(w->sym, pid)) < 0)
			return ret;
		if (path && (ret = check_frame_pointers(w, path)) < 0)
			return ret;
		if ((ret = putf(&w->line, "P\t%" PRIu64 "\t%d\t%d\t%s", time, pid, tid, exec ? "exec" : "comm")) < 0 ||
		    (ret = put_field(&w->line, comm)) < 0 || (path && (ret = put_field(&w->line, path)) < 0))
			return ret;
		return put_line(w);
	}
	case PERF_RECORD_FORK: {
		pid_t pid = (pid_t)u32_at(h, 8), ppid = (pid_t)u32_at(h, 12);
		pid_t tid = (pid_t)u32_at(h, 16), ptid = (pid_t)u32_at(h, 20);
		const struct perf_event_header *tp = w->fork_stacks[i];

		set_comm(r, tid, comm_of(r, ptid));
		if (pid != ppid) {
			w->stats->processes++;
			if ((ret = symbolizer__fork(w->sym, ppid, pid)) < 0)
				return ret;
		} else {
			w->stats->threads++;
		}
		struct sample sm;

		strbuf__reset(&w->stack);
		strbuf__reset(&w->locs);
		if (tp && parse_sample(r, tp, true, &sm) && (ret = callchain(w, &sm, ppid)) < 0)
			return ret;
		if ((ret = putf(&w->line, "P\t%" PRIu64 "\t%d\t%d\tspawn", time, pid, tid)) < 0 ||
		    (ret = put_field(&w->line, comm_of(r, tid))) < 0 ||
		    (ret = putf(&w->line, "\t%d\t%d", ppid, ptid)) < 0 || (ret = put_stack(w)) < 0)
			return ret;
		return put_line(w);
	}
	case PERF_RECORD_EXIT: {
		pid_t pid = (pid_t)u32_at(h, 8), tid = (pid_t)u32_at(h, 16);

		if ((ret = putf(&w->line, "P\t%" PRIu64 "\t%d\t%d\texit", time, pid, tid)) < 0 ||
		    (ret = put_field(&w->line, comm_of(r, tid))) < 0)
			return ret;
		return put_line(w);
	}
	case PERF_RECORD_THROTTLE:
		w->stats->throttled++;
		return 0;
	default:
		return 0;
	}
}

/* Matches each FORK record with the tracepoint sample of the same child, taken in the parent. */
static int match_fork_stacks(struct writer *w)
{
	struct recorder *r = w->r;

	w->fork_stacks = calloc(r->n ? r->n : 1, sizeof(*w->fork_stacks));
	if (!w->fork_stacks)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		const struct perf_event_header *h = r->index[i].h;
		struct sample sm;
		pid_t child;

		if (h->type != PERF_RECORD_SAMPLE || !perf_session__is_fork_id(r->session, u64_at(h, 8)))
			continue;
		if (!parse_sample(r, h, true, &sm) || sm.raw_size < r->fork_child_offset + 4)
			continue;
		child = (pid_t)u32_at(sm.raw, r->fork_child_offset);
		/* the FORK record is near in time: search around */
		for (size_t j = i > 256 ? i - 256 : 0; j < r->n && j < i + 256; j++) {
			const struct perf_event_header *f = r->index[j].h;

			if (f->type == PERF_RECORD_FORK && (pid_t)u32_at(f, 16) == child) {
				w->fork_stacks[j] = h;
				break;
			}
		}
	}
	return 0;
}

static bool oncpu(const struct recorder *r)
{
	return r->o.perf.freq || r->o.perf.period;
}

static int write_header(struct recorder *r, FILE *out, const struct record_stats *st)
{
	struct utsname u;
	char buf[64];
	const char *v[3];
	int ret = lp_write_version(out);

	if (ret == 0 && r->o.argv) {
		size_t n = 0;

		while (r->o.argv[n])
			n++;
		ret = lp_write_meta(out, "command", (const char *const *)r->o.argv, n);
	}
	if (ret == 0 && uname(&u) == 0) {
		v[0] = u.nodename;
		ret = lp_write_meta(out, "host", v, 1);
		v[0] = u.release;
		if (ret == 0)
			ret = lp_write_meta(out, "kernel", v, 1);
		v[0] = u.machine;
		if (ret == 0)
			ret = lp_write_meta(out, "arch", v, 1);
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, r->start_ns);
	v[0] = buf;
	if (ret == 0)
		ret = lp_write_meta(out, "start", v, 1);
	if (ret == 0 && oncpu(r)) {
		char mode[64];

		v[0] = "cpu";
		v[1] = "task-clock";
		if (r->o.perf.freq)
			snprintf(mode, sizeof(mode), "freq=%" PRIu64, r->o.perf.freq);
		else
			snprintf(mode, sizeof(mode), "period=%" PRIu64, r->o.perf.period);
		v[2] = mode;
		ret = lp_write_meta(out, "sampling", v, 3);
	}
	if (ret == 0 && oncpu(r)) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->lost);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_write_meta(out, "lost", v, 2);
	}
	if (ret == 0 && r->offcpu) {
		char mode[64];

		if (r->o.offcpu_opts.freq > 0)
			snprintf(mode, sizeof(mode), "freq=%" PRId64, r->o.offcpu_opts.freq);
		else
			snprintf(mode, sizeof(mode), "every-interval");
		v[0] = "offcpu";
		v[1] = "sched_switch";
		v[2] = mode;
		ret = lp_write_meta(out, "sampling", v, 3);
		snprintf(buf, sizeof(buf), "%" PRIu64, st->offcpu_drops);
		v[1] = buf;
		if (ret == 0)
			ret = lp_write_meta(out, "lost", v, 2);
	}
	if (ret == 0 && oncpu(r)) {
		snprintf(buf, sizeof(buf), "%.0f", st->achieved_hz);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_write_meta(out, "achieved-hz", v, 2);
	}
	if (ret == 0 && st->truncated) {
		snprintf(buf, sizeof(buf), "%" PRIu64, st->truncated);
		v[0] = "cpu";
		v[1] = buf;
		ret = lp_write_meta(out, "truncated", v, 2);
	}
	return ret;
}

static void sym_warn(void *ctx, const char *msg)
{
	struct recorder *r = ctx;

	if (r->o.warn)
		r->o.warn(r->o.ctx, msg);
}

int recorder__write(struct recorder *r, FILE *out, struct record_stats *stats)
{
	struct writer w = { .r = r, .out = out, .stats = stats, .values = HTAB_INIT(struct last_value) };
	int ret = 0;

	memset(stats, 0, sizeof(*stats));
	stats->offcpu_drops = r->offcpu_drops;
	stats->offcpu_attachment = r->offcpu ? offcpu__attachment(r->offcpu) : NULL;
	if (r->n)
		qsort(r->index, r->n, sizeof(*r->index), cmp_index);
	/* counted as the records came, for the header */
	stats->lost = r->counts.lost;
	stats->truncated = r->counts.truncated;
	stats->achieved_hz = r->counts.sample_ns ? r->counts.samples / (r->counts.sample_ns / 1e9) : 0;
	w.sym = symbolizer__new(sym_warn, r);
	w.programs = stackmap__new();
	if (!w.sym || !w.programs || match_fork_stacks(&w) < 0) {
		ret = -ENOMEM;
		goto cleanup;
	}
	if ((ret = write_header(r, out, stats)) < 0)
		goto cleanup;
	for (size_t i = 0; i < r->n && ret == 0; i++)
		ret = write_record(&w, i);
cleanup:
	symbolizer__free(w.sym);
	stackmap__free(w.programs);
	free(w.fork_stacks);
	free(w.frames);
	htab__release(&w.values);
	strbuf__release(&w.stack);
	strbuf__release(&w.locs);
	strbuf__release(&w.line);
	return ret;
}
