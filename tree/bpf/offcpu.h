/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the off-CPU BPF program (offcpu.bpf.c) and user space share: the
 * limits and the records that leave the ring buffer. Types and limits only.
 */
#ifndef LP_BPF_OFFCPU_H
#define LP_BPF_OFFCPU_H

/* Frames per stack, user or kernel: the kernel's default perf_event_max_stack. */
#define OFFCPU_MAX_STACK 127
/*
 * Most bytes of user stack copied at switch-out (snapshot_bytes sets how
 * many), for CFI recovery of callers without frame pointers.
 */
#define OFFCPU_SNAPSHOT 16384
/* Processes (thread groups) followed at once. */
#define OFFCPU_MAX_PROCESSES 16384
/* Threads whose return to the CPU could not be recorded in their slot, at once. */
#define OFFCPU_MAX_THREADS 65536

/* CPUs a system-wide recording may be limited to (-C): a bitmap of this many bits. */
#define OFFCPU_MAX_CPUS 1024

#define OFFCPU_USER 1
#define OFFCPU_KERNEL 2

/*
 * The state of an event that is a followed thread's end, not an interval:
 * start is when it exited, end its exact on-CPU time (sum_exec_runtime, ns),
 * truncated 1 when it was its process's last thread, and then weight is the
 * process's exit_code (a wait status: exit status << 8, or the signal that
 * killed it). No stack follows.
 */
#define OFFCPU_EXITED 'X'

/*
 * One reported off-CPU interval [start, end) of a thread. In the ring buffer
 * it is followed by snapshot_size bytes of user stack (copied from sp, a
 * multiple of 8), then nuser user and nkernel kernel return addresses, leaf
 * first.
 */
struct offcpu_event {
	__u64 start;		/* switch-out, CLOCK_MONOTONIC ns */
	__u64 end;		/* switch-in */
	__u64 weight;		/* ns of off-CPU time the interval stands for */
	__u64 ip, sp, bp, link, alt;	/* user registers at switch-out (link, alt: see lib/base/arch.h) */
	__u32 pid, tid;
	__u64 queued;		/* ns from its wake-up (its switch-out, when state is R) to its switch-in */
	__u32 waker_pid, waker_tid;	/* the thread that woke it, where waker is OFFCPU_WOKEN_BY_TASK */
	char waker_comm[16];
	__u16 nuser, nkernel, snapshot_size;
	char state;		/* at switch-out, as ps shows it: S, D, R (preempted)... */
	__u8 truncated;		/* a stack filled OFFCPU_MAX_STACK, or OFFCPU_CALLERS_UNKNOWN */
	__u8 waker;		/* OFFCPU_WOKEN_*: who made it runnable again */
	__u8 waker_followed;	/* OFFCPU_WOKEN_BY_TASK: the waker's process was followed then */
	__u8 kernel_unseen;	/* kernel stacks asked for, and its return to a CPU went unseen: nkernel is 0 */
	__u8 pad[5];
};

/* waker of an offcpu_event: */
#define OFFCPU_WOKEN_UNSEEN 0	/* preempted (state R), or its wake-up was not seen */
#define OFFCPU_WOKEN_BY_TASK 1	/* a thread, in a system call or a fault: waker_pid, waker_tid, waker_comm */
#define OFFCPU_WOKEN_BY_IRQ 2	/* an interrupt: a timer, a device, another CPU's call */

/* truncated of an interval whose user stack could not be read: ip is its only frame */
#define OFFCPU_CALLERS_UNKNOWN 2

#endif
