// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Off-CPU sampling of one process tree on sched_switch.
 *
 * At switch-out a traced thread's time, state, user registers, user stack
 * (frame pointers) and a snapshot of the stack top go into its per-thread
 * slot; at switch-in the interval [out, in) is weighed by the tick grid
 * (every interval when period_ns is 0) and, if it counts, sent with the
 * kernel stack. The kernel stack is taken at switch-in (bpf_get_task_stack
 * of the incoming task, still parked in schedule()), so it costs nothing for
 * intervals that are not reported.
 *
 * Reading user memory is the costly part of a switch (a microsecond and
 * more on some virtual machines), and most intervals are never reported:
 * where a thread sleeps inside a system call (tp_btf, user stacks only),
 * its user stack is taken only once its interval is to be reported, as the
 * call returns (sys_exit), or as it leaves the CPU again first; one that
 * leaves outside a call (preempted, or as a call returns) has it taken as it
 * returns to user mode (rseq_update), where it has an rseq area. No user
 * code has run by then, so the stack is as it was when the thread left;
 * calls that change it (execve, vfork, whose child runs on the caller's
 * stack, rt_sigreturn) are not waited for.
 *
 * Two attachments: tp_btf, with the slot in task storage; raw_tp where
 * tp_btf is missing, with slots in a hash by thread id and the kernel stack
 * taken at switch-out (a raw pointer to the incoming task cannot be walked).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "offcpu-arch.h"
#include "offcpu.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 period_ns = 0;	/* tick spacing; 0 reports every interval */
const volatile __u32 capture = OFFCPU_USER;
const volatile __u32 wakeup_every = 0;	/* records per reader wake-up; 0: when half full */
const volatile __u32 snapshot_bytes = 2048;	/* of user stack, a multiple of 8 up to OFFCPU_SNAPSHOT */
const volatile bool trace_all = false;	/* every process but the idle task and the recorder (-a) */
const volatile __u32 self_tgid = 0;	/* the recorder, whose own waiting is not the workload's */
const volatile bool some_cpus = false;	/* intervals begin only on the CPUs of cpu_mask (-C) */
const volatile __u64 cpu_mask[OFFCPU_MAX_CPUS / 64] = {};
const volatile bool rseq_hook = false;	/* rseq_update is attached: it sees threads return to user mode */

__u64 grid_start;	/* set by user space when the workload starts */
/* records lost, by cause: */
__u64 drops_full;	/* the ring buffer had no room */
__u64 drops_missed;	/* a switch-in went unseen and the stack the thread left with is gone */
__u64 drops_slot;	/* no slot (task storage, map entries) could be made for a thread */
__u64 pending;		/* records since the last wake-up */
__u64 nmissed;		/* entries in missed_in: while 0, nobody looks there */

/*
 * A thread's slot: its next record, filled in at switch-out and at switch-in,
 * laid out as it leaves: the event, the stack snapshot, then user frames and
 * kernel frames.
 */
struct slot {
	struct offcpu_event ev;
	__u8 data[OFFCPU_SNAPSHOT + 2 * OFFCPU_MAX_STACK * 8];
	/* not sent: its user stack is still to be taken (deferred), its interval to be sent when it is (due) */
	__u8 deferred, due;
	/* deferred to its return to user mode (rseq_update), not to the end of a call */
	__u8 at_return;
	/*
	 * Its last switch-in: when, and its sum_exec_runtime then. The kernel
	 * adds a running slice to sum_exec_runtime only at a tick or a switch,
	 * so at exit it lacks the slice under way: for a process that runs a
	 * millisecond between fork and exit, most of its life.
	 */
	__u64 run_since, sum_since;
	/* its sum_exec_runtime as it last left a CPU: how long it has run since, whatever we missed */
	__u64 sum_at_out;
	/* when it became runnable again: woken (sched_waking), or as it left when it stayed runnable */
	__u64 runnable_since;
};

/* A task's rseq area, where the kernel has one (CONFIG_RSEQ). */
struct task_struct___lp_rseq {
	void *rseq;
} __attribute__((preserve_access_index));

/* Where the frames start: after the snapshot (bounded, for the verifier). */
static __always_inline __u64 *ips_of(struct slot *s)
{
	__u32 off = s->ev.snapshot_size;

	if (off > OFFCPU_SNAPSHOT)
		off = OFFCPU_SNAPSHOT;
	return (__u64 *)&s->data[off & ~7u];
}

/* Thread groups followed: 0 until the root execs (lp's own code before exec is not the workload), then 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_PROCESSES);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct slot);
} task_slots SEC(".maps");

/* raw_tp only (user space sizes it for the thread count, or 1 when unused) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot);
} tid_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot);
} zero_slot SEC(".maps");

/*
 * tp_btf only: where a traced thread came back on the CPU while its slot
 * could not be had (task storage is busy on a CPU while an exiting task's
 * storage is freed there), by thread id. The interval is reported from the
 * slot as soon as the slot can be had again, ending here.
 */
struct missed {
	__u64 end;
	__u64 nkernel;
	__u64 ips[OFFCPU_MAX_STACK];	/* the kernel stack as the thread came back */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, OFFCPU_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct missed);
} missed_in SEC(".maps");

/* Where a missed switch-in is put together: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct missed);
} missed_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

static __always_inline void drop(__u64 *cause)
{
	__sync_fetch_and_add(cause, 1);
}

static __always_inline bool is_traced(struct task_struct *t)
{
	__u32 tgid = BPF_CORE_READ(t, tgid);
	__u8 *active;

	if (trace_all)
		return tgid != 0 && tgid != self_tgid;
	active = bpf_map_lookup_elem(&traced, &tgid);
	return active && *active;
}

/* Whether an interval may begin on this CPU. */
static __always_inline bool on_our_cpu(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (!some_cpus)
		return true;
	return cpu < OFFCPU_MAX_CPUS && (cpu_mask[(cpu / 64) & (OFFCPU_MAX_CPUS / 64 - 1)] >> (cpu % 64) & 1);
}

/*
 * A field of a task or of its user registers: loaded directly where the
 * program has the kernel's own pointers (tp_btf: direct is true), else
 * through bpf_probe_read_kernel. A dozen helper calls were a third of the
 * switch program's 620 ns, at every switch.
 */
#define TASK_FIELD(direct, t, f) ((direct) ? (t)->f : BPF_CORE_READ((t), f))
#define REG(direct, what, r) ((direct) ? LP_REG_##what##_D(r) : LP_REG_##what(r))
#define IN_SYSCALL(direct, r) ((direct) ? LP_IN_SYSCALL_D(r) : LP_IN_SYSCALL(r))
#define SYSCALL_NR(direct, r) ((direct) ? LP_SYSCALL_NR_D(r) : LP_SYSCALL_NR(r))

static __always_inline bool has_rseq(struct task_struct *t, bool direct)
{
	struct task_struct___lp_rseq *r = (void *)t;

	return bpf_core_field_exists(r->rseq) && TASK_FIELD(direct, r, rseq);
}

static __always_inline char state_letter(bool preempt, unsigned int state)
{
	/* the bits of include/linux/sched.h */
	if (preempt || (state & 0xff) == 0)
		return 'R';
	if (state & 0x1)
		return 'S';
	if (state & 0x2)
		return (state & 0x400) ? 'I' : 'D';
	if (state & 0x4)
		return 'T';
	if (state & 0x8)
		return 't';
	if (state & 0x40)
		return 'P';
	return '?';
}



/*
 * Copies the top of the user stack at sp into to: snapshot_bytes, or as much
 * of them as can be read. A read is all or nothing: one that meets a page
 * the thread never touched fails as a whole, and a main thread's stack has
 * such pages between its frames and the environment over them (exec leaves
 * a random gap of up to 8 KB there), and ends a few KB above main. So where
 * the whole copy cannot be read, the longest that ends at a page boundary
 * is taken, the stack's first pages being the ones unwinding needs.
 *
 * No more is asked than the stack holds. A main thread's first frame is at
 * the process's first stack pointer (mm->start_stack, where argc is): a
 * little over it is copied (argc and argv), not the gap. A thread's stack
 * ends under its thread pointer (glibc keeps the thread's descriptor and
 * static TLS at the top of the stack's mapping), or a shallow stack would
 * take kilobytes of them with each interval (-F -1 of a pipe ping-pong:
 * 12.7 KB of 16, and the ring buffer lost 29% of the intervals). The bytes
 * copied.
 */
static __always_inline __u16 copy_stack(__u8 *to, __u64 sp)
{
	struct task_struct *me = (struct task_struct *)bpf_get_current_task();
	__u64 n = snapshot_bytes & ~7u, len = (4096 - (sp & 4095)) & ~7u, tp = LP_TASK_TP(me);
	__u64 first = BPF_CORE_READ(me, mm, start_stack) + 64;

	if (sp < first && first - sp < n)
		n = (first - sp) & ~7ull;
	else if (sp < tp && tp - sp < n)
		n = (tp - sp) & ~7ull;
	if (n > OFFCPU_SNAPSHOT)
		n = OFFCPU_SNAPSHOT;
	if (!n)
		return 0;
	if (bpf_probe_read_user(to, n, (void *)sp) == 0)
		return (__u16)n;
	/* the page ends under sp + n, from the farthest: a copy of 16 KB spans 5 pages */
	if (len < n)
		len += (n - len - 1) / 4096 * 4096;
	for (int i = 0; i < OFFCPU_SNAPSHOT / 4096 + 1; i++) {
		/* (the bound checked on the register that is passed: the verifier loses it through a copy) */
		barrier_var(len);
		if (len >= n || len > OFFCPU_SNAPSHOT)
			return 0;
		if (bpf_probe_read_user(to, len, (void *)sp) == 0)
			return (__u16)len;
		if (len <= 4096)
			return 0;
		len -= 4096;
	}
	return 0;
}

/*
 * The user frames of the thread leaving the CPU as the kernel's
 * frame-pointer walk gives them (perf_callchain_user, what bpf_get_stack
 * returns): ip, then each frame record's return address. The records are
 * read from the stack snapshot just copied where it holds them (most
 * stacks), from user memory past its end: bpf_get_stack read each from user
 * memory and cost a microsecond a switch on a pipe ping-pong, where most
 * intervals are never reported.
 */
struct frame_walk {
	struct slot *s;
	__u64 sp, fp;
	__u32 snap, n;
};

/* One frame record of the walk: 0 to go on, 1 at the end. */
static __always_inline long frame_step(__u32 i, struct frame_walk *w)
{
	struct slot *s = w->s;
	__u64 record = w->fp + LP_FRAME_NEXT, off = record - w->sp, next, ret;
	__u32 k = i + 1;
	__u64 *ips, idx;

	if (!w->fp || k >= OFFCPU_MAX_STACK)
		return 1;
	if (w->snap >= 16 && off <= w->snap - 16 && off <= OFFCPU_SNAPSHOT - 16 && !(off & 7)) {
		next = *(__u64 *)&s->data[off & (OFFCPU_SNAPSHOT - 1)];
		ret = *(__u64 *)&s->data[(off + LP_FRAME_RET - LP_FRAME_NEXT) & (OFFCPU_SNAPSHOT - 1)];
	} else if (bpf_probe_read_user(&next, 8, (void *)record) ||
		   bpf_probe_read_user(&ret, 8, (void *)(w->fp + LP_FRAME_RET))) {
		return 1;
	}
	ips = ips_of(s);
	/* the bound again, on the 64-bit register that indexes: the verifier loses it through a 32-bit copy */
	idx = k;
	barrier_var(idx);
	if (idx >= OFFCPU_MAX_STACK)
		return 1;
	ips[idx] = ret;
	w->n = k + 1;
	w->fp = next;
	return 0;
}

static long frame_step_cb(__u32 i, void *ctx)
{
	return frame_step(i, ctx);
}

static __always_inline __u32 user_frames(struct slot *s, __u64 ip, __u64 sp, __u64 fp)
{
	struct frame_walk w = { .s = s, .sp = sp, .fp = fp, .snap = s->ev.snapshot_size, .n = 1 };

	ips_of(s)[0] = ip;
	/*
	 * bpf_loop (5.17) has its step checked once; the loop written out is
	 * checked frame by frame, a tenth of a second at every place it is used
	 */
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop)) {
		bpf_loop(OFFCPU_MAX_STACK - 1, frame_step_cb, &w, 0);
	} else {
		for (__u32 i = 0; i < OFFCPU_MAX_STACK - 1; i++)
			if (frame_step(i, &w))
				break;
	}
	return w.n;
}

/* The user stack of the current thread, whose user registers were ip, sp, fp and link, into its slot: the user frames. */
static __always_inline __u32 take_user_stack(struct slot *s, __u64 ip, __u64 sp, __u64 fp, __u64 link, __u64 alt)
{
	__u32 nu;

	s->ev.ip = ip;
	s->ev.sp = sp;
	s->ev.bp = fp;
	s->ev.link = link;
	s->ev.alt = alt;
	s->ev.snapshot_size = sp ? copy_stack(s->data, sp) : 0;
	nu = ip ? user_frames(s, ip, sp, fp) : 0;
	if (nu >= OFFCPU_MAX_STACK) {
		nu = OFFCPU_MAX_STACK;
		s->ev.truncated = 1;
	}
	/* its memory could not be read (an exiting thread's, gone): the one frame has callers, unknown */
	if (nu == 1 && !s->ev.snapshot_size)
		s->ev.truncated = OFFCPU_CALLERS_UNKNOWN;
	return nu;
}

static __always_inline void send(struct slot *s);

/* Sends a due interval, its user stack in place, and empties the slot. */
static __always_inline void send_taken(struct slot *s)
{
	s->ev.nkernel = 0;
	send(s);
	s->due = s->deferred = s->at_return = 0;
	s->ev.start = 0;
}

/*
 * Sends a due interval of the current thread with its user stack, taken now:
 * from where regs say, or, deferred to its return to user mode, from the
 * registers it left with. A signal delivered on the way back moves the
 * registers to its handler and puts its frame below the stack, which it
 * leaves as it was; so does an rseq abort.
 */
static __always_inline void send_due(struct slot *s, struct pt_regs *regs)
{
	if (s->at_return)
		s->ev.nuser = take_user_stack(s, s->ev.ip, s->ev.sp, s->ev.bp, s->ev.link, s->ev.alt);
	else
		s->ev.nuser = take_user_stack(s, LP_REG_IP(regs), LP_REG_SP(regs), LP_REG_FP(regs), LP_REG_LINK(regs),
					      LP_REG_ALT(regs));
	send_taken(s);
}

/*
 * Sends a due interval whose thread has run user code since it left the CPU
 * (its return to user mode went unseen): with the one frame its registers
 * said then, and no callers.
 */
static __always_inline void send_callers_unknown(struct slot *s)
{
	ips_of(s)[0] = s->ev.ip;
	s->ev.nuser = s->ev.ip ? 1 : 0;
	s->ev.snapshot_size = 0;
	s->ev.truncated = OFFCPU_CALLERS_UNKNOWN;
	send_taken(s);
}

/*
 * A due interval, as its thread makes a system call: the stack is the one
 * it left with, unless it was to be taken on the way back to user mode
 * (rseq_update), which then went unseen.
 */
static __always_inline void settle_due(struct slot *s, struct pt_regs *regs)
{
	if (s->at_return)
		send_callers_unknown(s);
	else
		send_due(s, regs);
}

static __always_inline void switch_in(struct slot *s, struct task_struct *next, __u64 end, bool kernel_now);

/* Fills the slot of prev (current) as it leaves the CPU, now. */
static __always_inline void switch_out(void *ctx, struct slot *s, struct task_struct *prev,
				       struct pt_regs *regs, bool preempt, unsigned int state,
				       bool kernel_now, __u64 now)
{
	long n;
	__u32 nu = 0;
	/* user stacks alone, on tp_btf: they can wait to be taken */
	bool may_wait = capture == OFFCPU_USER && regs && !kernel_now, in_call, same_at_return;
	/* tp_btf: prev and regs are the kernel's own pointers */
	bool direct = !kernel_now;

	/*
	 * Back on the CPU since its last interval and leaving again before it
	 * made a call or went back to user mode (rseq_update would have taken
	 * the stack): no user code has run.
	 */
	__u64 sum = TASK_FIELD(direct, prev, se.sum_exec_runtime), ran;

	if (s->due && regs)
		send_due(s, regs);
	/*
	 * Its interval is still open: the kernel put it back on a CPU without a
	 * sched_switch that reached us (seen about once in a thousand wake-ups
	 * on a busy 6.18 kernel). When is not known (the scheduler's own marks,
	 * prev_sum_exec_runtime, move on re-picks too), but how long it ran
	 * since it left is: what is left of [start, now) is the time it was off
	 * the CPU, whichever of it we missed, and the interval ends there. Its
	 * stack was taken as it left, or waits for its call to return
	 * (deferred): if its user registers are still those it left with, it
	 * is in that call yet, and the stack is as it was: taken now. Else it
	 * is lost, and counted.
	 */
	if (s->ev.start) {
		ran = s->sum_at_out && sum > s->sum_at_out ? sum - s->sum_at_out : 0;
		if (s->deferred && regs && REG(direct, IP, regs) == s->ev.ip && REG(direct, SP, regs) == s->ev.sp) {
			s->ev.nuser = take_user_stack(s, s->ev.ip, s->ev.sp, s->ev.bp, s->ev.link, s->ev.alt);
			s->deferred = s->at_return = 0;
		}
		if (!s->deferred && s->sum_at_out && now > s->ev.start + ran) {
			/* (tp_btf takes the kernel stack at switch-in: when that was, the stack is not known) */
			s->ev.kernel_unseen = !kernel_now && (capture & OFFCPU_KERNEL);
			switch_in(s, prev, now - ran, false);
		} else {
			drop(&drops_missed);
		}
	}
	s->due = s->deferred = s->at_return = 0;
	/* not running now: until a switch-in we see, its exit cannot tell how long it ran since */
	s->run_since = 0;
	s->sum_at_out = sum;
	s->ev.start = now;
	s->ev.pid = TASK_FIELD(direct, prev, tgid);
	s->ev.tid = TASK_FIELD(direct, prev, pid);
	s->ev.state = state_letter(preempt, state);
	s->ev.truncated = 0;
	s->ev.kernel_unseen = 0;
	s->ev.nkernel = 0;
	s->ev.snapshot_size = 0;
	s->ev.waker = OFFCPU_WOKEN_UNSEEN;
	s->ev.queued = 0;
	/* preempted, or woken before it was off the CPU: it waits for a CPU from now on */
	s->runnable_since = s->ev.state == 'R' ? now : 0;
	s->ev.ip = s->ev.sp = s->ev.bp = s->ev.link = s->ev.alt = 0;
	in_call = may_wait && IN_SYSCALL(direct, regs);
	/* a call that changes the stack (execve, sigreturn) has it taken now */
	same_at_return = may_wait && !(in_call && LP_SYSCALL_CHANGES_STACK(SYSCALL_NR(direct, regs)));
	if (same_at_return && in_call && !rseq_hook) {
		/* taken if the interval is reported, as the call returns (its registers: to know it is still in it) */
		s->ev.ip = REG(direct, IP, regs);
		s->ev.sp = REG(direct, SP, regs);
		s->ev.bp = REG(direct, FP, regs);
		s->ev.link = REG(direct, LINK, regs);
		s->ev.alt = REG(direct, ALT, regs);
		s->deferred = 1;
	} else if (same_at_return && rseq_hook && has_rseq(prev, direct)) {
		/*
		 * In a call, preempted, or back from a call or a fault: its user
		 * stack stays as it is until it returns to user mode, where the
		 * kernel updates its rseq area (it left the CPU) and rseq_update
		 * takes the stack if the interval is reported. (No program runs at
		 * every system call's exit then: that was a tenth of a pipe
		 * ping-pong's time.)
		 */
		s->ev.ip = REG(direct, IP, regs);
		s->ev.sp = REG(direct, SP, regs);
		s->ev.bp = REG(direct, FP, regs);
		s->ev.link = REG(direct, LINK, regs);
		s->ev.alt = REG(direct, ALT, regs);
		s->deferred = s->at_return = 1;
	} else if (capture & OFFCPU_USER) {
		if (regs && REG(direct, IP, regs)) {
			nu = take_user_stack(s, REG(direct, IP, regs), REG(direct, SP, regs), REG(direct, FP, regs),
					     REG(direct, LINK, regs), REG(direct, ALT, regs));
		} else {
			n = bpf_get_stack(ctx, ips_of(s), OFFCPU_MAX_STACK * 8, BPF_F_USER_STACK);
			nu = n > 0 ? (__u32)((__u64)n / 8) : 0;
			if (nu >= OFFCPU_MAX_STACK) {
				nu = OFFCPU_MAX_STACK;
				s->ev.truncated = 1;
			}
		}
	}
	s->ev.nuser = nu;
	if (kernel_now && (capture & OFFCPU_KERNEL) && nu <= OFFCPU_MAX_STACK) {
		n = bpf_get_stack(ctx, &ips_of(s)[nu], OFFCPU_MAX_STACK * 8, 0);
		s->ev.nkernel = n > 0 ? (__u16)((__u64)n / 8) : 0;
	}
}

/* The ns the interval [start, end) stands for: ticks of the grid inside it, or all of it. */
static __always_inline __u64 weigh(__u64 start, __u64 end)
{
	__u64 g = grid_start, p = period_ns, first;

	if (end <= start)
		return 0;
	if (!p)
		return end - start;
	if (start < g)
		start = g;
	if (end <= start)
		return 0;
	/* the first tick from start on: past end for most intervals, which one division then tells */
	first = g + (start - g + p - 1) / p * p;
	if (first >= end)
		return 0;
	return ((end - 1 - first) / p + 1) * p;
}

static __always_inline void send(struct slot *s)
{
	__u64 flags = BPF_RB_NO_WAKEUP;
	__u32 nu = s->ev.nuser, nk = s->ev.nkernel;
	__u64 size;

	if (nu > OFFCPU_MAX_STACK || nk > OFFCPU_MAX_STACK)
		return;
	size = sizeof(s->ev) + (s->ev.snapshot_size & ~7u) + (nu + nk) * 8;
	if (size > sizeof(*s))
		return;
	if (wakeup_every) {
		if (__sync_fetch_and_add(&pending, 1) + 1 >= wakeup_every) {
			pending = 0;
			flags = BPF_RB_FORCE_WAKEUP;
		}
	} else if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 2) {
		flags = BPF_RB_FORCE_WAKEUP;
	}
	if (bpf_ringbuf_output(&events, s, size, flags) < 0)
		drop(&drops_full);
}

/* Reports the interval of s that ended at end (as next came back on the CPU), if it counts. */
static __always_inline void switch_in(struct slot *s, struct task_struct *next, __u64 end, bool kernel_now)
{
	__u64 weight;
	__u32 nu = s->ev.nuser;
	long n;

	if (!s->ev.start || s->due)
		return;
	weight = weigh(s->ev.start, end);
	if (weight) {
		s->ev.end = end;
		s->ev.weight = weight;
		s->ev.queued = s->runnable_since && end > s->runnable_since ? end - s->runnable_since : 0;
		if (kernel_now && (capture & OFFCPU_KERNEL) && nu <= OFFCPU_MAX_STACK) {
			n = bpf_get_task_stack(next, &ips_of(s)[nu], OFFCPU_MAX_STACK * 8, 0);
			s->ev.nkernel = n > 0 ? (__u16)((__u64)n / 8) : 0;
		}
		if (s->deferred) {
			/* the interval stays in the slot, start and all, until send_due */
			s->due = 1;
			return;
		}
		send(s);
	}
	s->ev.start = 0;
}

/* Reports t's interval whose switch-in found no slot, if there was one. */
static __always_inline void report_missed(struct slot *s, struct task_struct *t)
{
	__u32 tid, nu = s->ev.nuser;
	struct missed *m;

	if (!nmissed)
		return;
	tid = BPF_CORE_READ(t, pid);
	if (!(m = bpf_map_lookup_elem(&missed_in, &tid)))
		return;
	/* it has run user code since: the stack it left with is gone */
	if (s->deferred && s->ev.start) {
		if (weigh(s->ev.start, m->end))
			drop(&drops_missed);
		s->ev.start = 0;
		s->deferred = s->at_return = 0;
		if (bpf_map_delete_elem(&missed_in, &tid) == 0)
			__sync_fetch_and_add(&nmissed, -1);
		return;
	}
	/* the kernel stack taken when it came back, where switch_in would have taken it */
	if ((capture & OFFCPU_KERNEL) && nu <= OFFCPU_MAX_STACK && m->nkernel <= OFFCPU_MAX_STACK) {
		bpf_probe_read_kernel(&ips_of(s)[nu], m->nkernel * 8, m->ips);
		s->ev.nkernel = (__u16)m->nkernel;
	}
	switch_in(s, t, m->end, false);
	if (bpf_map_delete_elem(&missed_in, &tid) == 0)
		__sync_fetch_and_add(&nmissed, -1);
}

/*
 * Remembers that t came back on the CPU at now without its slot, with its
 * kernel stack; counted as lost if that fails too.
 */
static __always_inline void miss(struct task_struct *t, __u64 now)
{
	__u32 tid = BPF_CORE_READ(t, pid), zero = 0;
	struct missed *m = bpf_map_lookup_elem(&missed_scratch, &zero);
	long n;

	if (!m) {
		drop(&drops_slot);
		return;
	}
	m->end = now;
	m->nkernel = 0;
	if (capture & OFFCPU_KERNEL) {
		n = bpf_get_task_stack(t, m->ips, sizeof(m->ips), 0);
		m->nkernel = n > 0 ? (__u64)n / 8 : 0;
	}
	if (bpf_map_update_elem(&missed_in, &tid, m, BPF_NOEXIST) == 0)
		__sync_fetch_and_add(&nmissed, 1);
	else if (bpf_map_update_elem(&missed_in, &tid, m, BPF_EXIST) < 0)
		drop(&drops_slot);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct slot *s;
	/* one clock read for both: the interval of next ends when that of prev begins */
	__u64 now = 0;

	/* a thread with a slot is followed: that saves looking its process up at every switch */
	if (on_our_cpu() && ((s = bpf_task_storage_get(&task_slots, prev, 0, 0)) || is_traced(prev))) {
		if (!s)
			s = bpf_task_storage_get(&task_slots, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (s) {
			report_missed(s, prev);
			now = bpf_ktime_get_ns();
			switch_out(ctx, s, prev, (struct pt_regs *)bpf_task_pt_regs(prev), preempt, prev_state,
				   false, now);
		} else {
			drop(&drops_slot);
		}
	}
	s = bpf_task_storage_get(&task_slots, next, 0, 0);
	if (s) {
		/*
		 * A missed switch-in ended the slot's interval (its switch-out
		 * since was lost, and counted): report that one, not [start, now).
		 */
		__u64 start = s->ev.start;

		if (!now)
			now = bpf_ktime_get_ns();
		s->run_since = now;
		s->sum_since = next->se.sum_exec_runtime;
		report_missed(s, next);
		if (s->ev.start == start)
			switch_in(s, next, now, true);
	} else if (is_traced(next) && BPF_CORE_READ(next, bpf_storage)) {
		/* it has task storage, so a slot: the storage was busy, not empty */
		miss(next, bpf_ktime_get_ns());
	}
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct slot *s;
	__u32 tid, zero = 0;

	if (is_traced(prev) && on_our_cpu()) {
		tid = BPF_CORE_READ(prev, pid);
		s = bpf_map_lookup_elem(&tid_slots, &tid);
		if (!s) {
			struct slot *z = bpf_map_lookup_elem(&zero_slot, &zero);

			if (z) {
				z->ev.start = 0;
				bpf_map_update_elem(&tid_slots, &tid, z, BPF_NOEXIST);
			}
			s = bpf_map_lookup_elem(&tid_slots, &tid);
		}
		if (s)
			switch_out(ctx, s, prev, (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()),
				   preempt, prev_state, true, bpf_ktime_get_ns());
		else
			drop(&drops_slot);
	}
	tid = BPF_CORE_READ(next, pid);
	s = bpf_map_lookup_elem(&tid_slots, &tid);
	if (s)
		switch_in(s, next, bpf_ktime_get_ns(), false);
	return 0;
}

/*
 * How deep in interrupt handlers each CPU is: timer callbacks (hrtimers,
 * which end sleeps and timeouts), softirqs (timer lists, network, block
 * completions) and device interrupts. An interrupt that comes in user mode
 * runs on the interrupted thread's own stack on x86-64, which the stack test
 * below cannot tell from that thread's system call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} irq_depth SEC(".maps");

static __always_inline void irq_enter_leave(int delta)
{
	__u32 zero = 0, *d = bpf_map_lookup_elem(&irq_depth, &zero);

	if (d && (delta > 0 || *d))
		*d += delta;
}

static __always_inline bool in_irq_handler(void)
{
	__u32 zero = 0, *d = bpf_map_lookup_elem(&irq_depth, &zero);

	return d && *d;
}

/* Each tracepoint twice: tp_btf, and raw_tp for kernels without it. */
#define IRQ_EDGE(tp, delta)                                        \
	SEC("tp_btf/" #tp) int BPF_PROG(tp##_btf) { irq_enter_leave(delta); return 0; } \
	SEC("raw_tp/" #tp) int BPF_PROG(tp##_raw) { irq_enter_leave(delta); return 0; }

IRQ_EDGE(hrtimer_expire_entry, 1)
IRQ_EDGE(hrtimer_expire_exit, -1)
IRQ_EDGE(softirq_entry, 1)
IRQ_EDGE(softirq_exit, -1)
IRQ_EDGE(irq_handler_entry, 1)
IRQ_EDGE(irq_handler_exit, -1)

/*
 * p, off the CPU, is made runnable: by the current thread, or by an
 * interrupt (a timer, a device) that runs on top of whatever thread was
 * there. Threads that wake nobody we follow pay a slot lookup.
 */
static __always_inline void woken(struct slot *s, bool direct)
{
	struct task_struct *me = bpf_get_current_task_btf();
	volatile __u64 here = 0;
	__u64 where = (__u64)&here, low, high;

	if (!s->ev.start || s->due || s->runnable_since)
		return;
	s->runnable_since = bpf_ktime_get_ns();
	/*
	 * An interrupt runs on a stack of its own, not on the task's (x86-64
	 * and arm64): from the task's lowest address to its user registers.
	 * (The preempt count, which says so too, is a per-CPU variable that
	 * kernels without CONFIG_KALLSYMS_ALL do not let BPF find.) An idle
	 * CPU's task makes no calls: what it wakes, an interrupt does. On x86-64
	 * an interrupt that came in user mode runs on the task's stack: the
	 * handlers' tracepoints say so (with two CPU hogs beside it, 3 to 8 of
	 * blocking's 21 timer wake-ups were their doing without them).
	 */
	low = (__u64)TASK_FIELD(direct, me, stack);
	high = (__u64)bpf_task_pt_regs(me);
	if (where < low || where >= high || !TASK_FIELD(direct, me, pid) || in_irq_handler()) {
		s->ev.waker = OFFCPU_WOKEN_BY_IRQ;
		return;
	}
	s->ev.waker = OFFCPU_WOKEN_BY_TASK;
	/*
	 * Said here, not left to the readers' "had a record before": the
	 * waker may be a process born during the wait (a shell's command
	 * substitution read until its grandchild exited), whose first record
	 * comes after the wait's, which is at its start.
	 */
	s->ev.waker_followed = direct ? bpf_task_storage_get(&task_slots, me, 0, 0) || is_traced(me) : is_traced(me);
	s->ev.waker_pid = TASK_FIELD(direct, me, tgid);
	s->ev.waker_tid = TASK_FIELD(direct, me, pid);
	if (direct)
		__builtin_memcpy(s->ev.waker_comm, me->comm, sizeof(s->ev.waker_comm));
	else
		bpf_probe_read_kernel(s->ev.waker_comm, sizeof(s->ev.waker_comm), me->comm);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(waking_btf, struct task_struct *p)
{
	struct slot *s = bpf_task_storage_get(&task_slots, p, 0, 0);

	if (s)
		woken(s, true);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(waking_raw, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct slot *s = bpf_map_lookup_elem(&tid_slots, &tid);

	if (s)
		woken(s, false);
	return 0;
}

/* Children join their parent's tree in the kernel, before they first run. */
static __always_inline void on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 *active = bpf_map_lookup_elem(&traced, &ptgid);

	if (active && ctgid != ptgid)
		bpf_map_update_elem(&traced, &ctgid, active, BPF_ANY);
}

static __always_inline void on_exec(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	__u8 *active = bpf_map_lookup_elem(&traced, &tgid);

	if (active)
		*active = 1;
}

/* s: p's slot where there is one (tp_btf), whose last switch-in completes sum_exec_runtime. */
static __always_inline void on_exit(struct task_struct *p, struct slot *s)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), tid = BPF_CORE_READ(p, pid);
	bool last = BPF_CORE_READ(p, signal, live.counter) == 0;
	struct offcpu_event end = { .state = OFFCPU_EXITED };

	/* its exact CPU time and how its process ended, which only the kernel knows */
	if (is_traced(p)) {
		end.start = bpf_ktime_get_ns();
		end.pid = tgid;
		end.tid = tid;
		end.end = BPF_CORE_READ(p, se.sum_exec_runtime);
		if (s && s->run_since && end.start > s->run_since && s->sum_since + (end.start - s->run_since) > end.end)
			end.end = s->sum_since + (end.start - s->run_since);
		end.truncated = last;
		end.weight = last ? (__u32)BPF_CORE_READ(p, exit_code) : 0;
		if (bpf_ringbuf_output(&events, &end, sizeof(end), 0) < 0)
			drop(&drops_full);
	}
	bpf_map_delete_elem(&tid_slots, &tid);
	/* the last thread of the group: its pid may be reused by a stranger */
	if (last)
		bpf_map_delete_elem(&traced, &tgid);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, child);
	/* a slot before its first run, whose start it notes: a child may exit before it ever leaves a CPU */
	if (is_traced(child))
		bpf_task_storage_get(&task_slots, child, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, child);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(exec_btf, struct task_struct *p)
{
	on_exec(p);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(exec_raw, struct task_struct *p)
{
	on_exec(p);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct slot *s;

	/* a missed switch-in's interval, before the thread is gone */
	if (nmissed && bpf_map_lookup_elem(&missed_in, &tid)) {
		s = bpf_task_storage_get(&task_slots, p, 0, 0);
		if (s) {
			report_missed(s, p);
		} else if (bpf_map_delete_elem(&missed_in, &tid) == 0) {
			__sync_fetch_and_add(&nmissed, -1);
			drop(&drops_missed);
		}
	}
	/* a due interval whose call never returned */
	s = bpf_task_storage_get(&task_slots, p, 0, 0);
	if (s && s->due)
		send_due(s, (struct pt_regs *)bpf_task_pt_regs(p));
	on_exit(p, s);
	return 0;
}

/* The call a thread slept in returns: the user stack of its due interval is as it left it. */
/*
 * The current thread runs, its interval still open and waiting for its
 * stack (deferred), not due: its switch-in went unseen. It has run
 * sum_exec_runtime's advance since it left (to its last tick: up to a tick
 * less), so it came back that long before now: the interval ends there.
 */
static __always_inline void end_missed(struct slot *s, struct task_struct *me)
{
	__u64 sum = BPF_CORE_READ(me, se.sum_exec_runtime), now = bpf_ktime_get_ns();
	__u64 ran = s->sum_at_out && sum > s->sum_at_out ? sum - s->sum_at_out : 0;

	if (s->ev.start && s->deferred && !s->due && s->sum_at_out && now > s->ev.start + ran)
		switch_in(s, me, now - ran, false);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	struct task_struct *me = bpf_get_current_task_btf();
	struct slot *s = bpf_task_storage_get(&task_slots, me, 0, 0);

	if (s && s->ev.start && !s->due && !s->at_return)
		end_missed(s, me);
	if (s && s->due)
		settle_due(s, regs);
	return 0;
}

/*
 * The current thread returns to user mode, having left the CPU since it
 * last did (the kernel updates its rseq area): no user code has run, the
 * user stack of its due interval is as it left it.
 */
SEC("tp_btf/rseq_update")
int BPF_PROG(rseq_update_btf, struct task_struct *t)
{
	struct task_struct *me = bpf_get_current_task_btf();
	struct slot *s = bpf_task_storage_get(&task_slots, me, 0, 0);

	if (s && s->ev.start && !s->due && s->at_return)
		end_missed(s, me);
	if (s && s->due)
		send_due(s, (struct pt_regs *)bpf_task_pt_regs(me));
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *p)
{
	on_exit(p, NULL);
	return 0;
}
