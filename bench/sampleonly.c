/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's side of sampling a command, and nothing else: task-clock at
 * HZ on each CPU, inherited, with STACK bytes of user stack and the user
 * registers copied into each sample as lp-record asks (0: none), the rings
 * emptied unread. What any perf_event profiler pays at that rate on this
 * machine before it does anything with a sample: the floor under
 * lp-record's slowdown in bench/record.sh.
 *
 *   sampleonly HZ STACK COMMAND [ARG...]
 */
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_CPUS = 256, RING_PAGES = 512 };

static int open_on(pid_t pid, int cpu, long hz, long stack)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_freq = (uint64_t)hz, .freq = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER,
		.disabled = 1, .inherit = 1, .enable_on_exec = 1, .sample_id_all = 1,
		.watermark = 1, .wakeup_watermark = RING_PAGES * 4096 / 4,
	};

	if (stack > 0) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		/* x86-64's ip, sp, bp and the rest lp-record takes; other machines: what they have of the low ones */
		a.sample_regs_user = 0xff0fff;
		a.sample_stack_user = (uint32_t)stack;
	}
	return (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	long hz, stack, ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct pollfd fds[MAX_CPUS];
	struct perf_event_mmap_page *rings[MAX_CPUS];
	int go[2], status;
	pid_t pid;

	if (argc < 4 || (hz = atol(argv[1])) <= 0 || (stack = atol(argv[2])) < 0 || ncpus < 1 || ncpus > MAX_CPUS) {
		fprintf(stderr, "usage: sampleonly HZ STACK COMMAND [ARG...]\n");
		return 2;
	}
	if (pipe(go) < 0 || (pid = fork()) < 0)
		return 1;
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		fds[cpu] = (struct pollfd){ .fd = open_on(pid, cpu, hz, stack), .events = POLLIN };
		rings[cpu] = fds[cpu].fd < 0 ? MAP_FAILED :
			     mmap(NULL, (RING_PAGES + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fds[cpu].fd, 0);
		if (rings[cpu] == MAP_FAILED) {
			perror("sampleonly: perf_event_open or its ring");
			kill(pid, SIGKILL);
			return 1;
		}
	}
	close(go[0]);
	if (write(go[1], "x", 1) != 1)
		return 1;
	for (;;) {
		poll(fds, (nfds_t)ncpus, 100);
		for (int cpu = 0; cpu < ncpus; cpu++)
			__atomic_store_n(&rings[cpu]->data_tail, __atomic_load_n(&rings[cpu]->data_head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
}
