/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lp-record's writer on records made here, as the kernel's rings would hand
 * them over (each CPU's in time order, the CPUs one after another): the
 * stream has them in time order, a spawn with its parent, names as they
 * changed, an exit followed by the thread's summary, and the threads still
 * alive summed up at the end of recording. (No samples: those need a
 * session's layout and a process to symbolise, which the bats tests have.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder-int.h"
#include "tap.h"

/* PERF_RECORD_FORK and _EXIT: pid, ppid, tid, ptid, time; then sample_id_all's pid, tid, time, id, cpu. */
static int keep_task(struct recorder *r, uint32_t type, pid_t pid, pid_t ppid, pid_t tid, pid_t ptid, uint64_t time)
{
	_Alignas(8) unsigned char buf[8 + 24 + 32] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)buf;
	uint32_t ids[4] = { (uint32_t)pid, (uint32_t)ppid, (uint32_t)tid, (uint32_t)ptid }, trailer[2] = { (uint32_t)pid, (uint32_t)tid };

	h->type = type;
	h->size = sizeof(buf);
	memcpy(buf + 8, ids, sizeof(ids));
	memcpy(buf + 24, &time, 8);
	memcpy(buf + 32, trailer, sizeof(trailer));
	memcpy(buf + 40, &time, 8);
	return recorder__keep(r, h);
}

static int keep_comm(struct recorder *r, pid_t pid, pid_t tid, const char *comm, uint64_t time)
{
	_Alignas(8) unsigned char buf[128];
	struct perf_comm c = { .pid = pid, .tid = tid, .comm = comm };
	struct perf_event_header *h = perf_comm__encode(buf, sizeof(buf), &c, time);

	return h ? recorder__keep(r, h) : -1;
}

/* The records of the stream written, metadata left out, with TIME kept. */
static char *records(const char *stream)
{
	char *out = calloc(1, strlen(stream) + 1), *o = out;

	for (const char *line = stream; out && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line + 1) : strlen(line);

		if (line[0] != '#') {
			memcpy(o, line, len);
			o += len;
		}
		line += len;
	}
	return out;
}

/* above PID_MAX_LIMIT: no thread of this machine's /proc is taken for them */
enum { PID = 4194400, TID1 = PID + 1, TID2 = PID + 2 };

int main(void)
{
	struct record_opts o = { 0 };
	struct recorder *r = recorder__new(&o);
	struct record_stats st = { 0 };
	char *text = NULL, *got;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	int bad = 0;

	ok(r && out, "a recorder and a stream to write to");
	/* CPU 0's ring: the main thread named, a thread spawned; CPU 1's: the thread's name, its exit */
	bad += keep_comm(r, PID, PID, "app", 10) != 0;
	bad += keep_task(r, PERF_RECORD_FORK, PID, PID, TID1, PID, 20) != 0;
	bad += keep_task(r, PERF_RECORD_FORK, PID, PID, TID2, PID, 50) != 0;
	bad += keep_comm(r, PID, TID1, "worker", 30) != 0;
	bad += keep_task(r, PERF_RECORD_EXIT, PID, PID, TID1, PID, 40) != 0;
	ok(!bad && r->n == 5, "five records kept");
	r->end_ns = 60;		/* recording ended */
	ok(recorder__write(r, out, &st) == 0 && fclose(out) == 0, "the stream written");
	got = records(text);
	is_str(got,
	       "P\t10\t4194400\t4194400\tcomm\tapp\n"
	       "P\t20\t4194400\t4194401\tspawn\tapp\t4194400\t4194400\t\t-\n"
	       "P\t30\t4194400\t4194401\tcomm\tworker\n"
	       "P\t40\t4194400\t4194401\texit\tworker\n"
	       "T\t40\t4194400\t4194401\tworker\tstart=20\tend=40\n"
	       "P\t50\t4194400\t4194402\tspawn\tapp\t4194400\t4194400\t\t-\n"
	       "T\t60\t4194400\t4194402\tapp\tstart=50\n",
	       "records in time order: spawns with their parents, names, an exit and its summary");
	ok(st.threads == 2 && st.processes == 0, "two threads spawned, no process");
	/* (the version line is the command's, written before recording: an output that cannot be written fails first) */
	ok(strncmp(text, "#lp-stream", 10) != 0 && strstr(text, "\n#lp.end\t7\n") &&
	   strcmp(text + size - 10, "#lp.end\t7\n") == 0, "the trailer last, counting the records");
	free(got);
	free(text);
	recorder__free(r);
	recorder__free(NULL);
	return tap_done();
}
