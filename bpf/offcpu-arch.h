/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The user registers the off-CPU program reads at switch-out, and whether
 * they are those of a system call, per architecture: the twin of
 * lib/base/arch.h. Field names differ between the
 * architectures' struct pt_regs; the local flavours below (libbpf ignores the
 * ___suffix) let CO-RE find them in whatever kernel runs the program, so the
 * object builds for any of them from one vmlinux.h.
 */
#ifndef LP_BPF_ARCH_H
#define LP_BPF_ARCH_H

#include <bpf/bpf_core_read.h>

/*
 * A frame record, as frame-pointer walking reads it: the caller's frame
 * pointer and the return address, at these offsets from the frame pointer.
 */
#if defined(__TARGET_ARCH_riscv)
#define LP_FRAME_NEXT (-16)
#define LP_FRAME_RET (-8)
#else
#define LP_FRAME_NEXT 0
#define LP_FRAME_RET 8
#endif

/*
 * Each LP_X(r) has a twin LP_X_D(r) that loads the field directly: for the
 * kernel's own pointer (bpf_task_pt_regs in a tp_btf program), a load the
 * verifier checks instead of a bpf_probe_read_kernel call each.
 */
#if defined(__TARGET_ARCH_x86)
#define LP_REG_IP_D(r) ((r)->ip)
#define LP_REG_SP_D(r) ((r)->sp)
#define LP_REG_FP_D(r) ((r)->bp)
#define LP_REG_LINK_D(r) ((r)->di)
#define LP_REG_ALT_D(r) ((r)->bx)
#define LP_IN_SYSCALL_D(r) ((r)->ax == (unsigned long)-38 && (long)(r)->orig_ax >= 0)
#define LP_SYSCALL_NR_D(r) ((long)(r)->orig_ax)
#define LP_REG_IP(r) BPF_CORE_READ((r), ip)
#define LP_REG_SP(r) BPF_CORE_READ((r), sp)
#define LP_REG_FP(r) BPF_CORE_READ((r), bp)
#define LP_REG_LINK(r) BPF_CORE_READ((r), di)
#define LP_REG_ALT(r) BPF_CORE_READ((r), bx)
/* inside a system call: entry_SYSCALL_64 saved -ENOSYS as ax and the call's number as orig_ax */
#define LP_IN_SYSCALL(r) (BPF_CORE_READ((r), ax) == (unsigned long)-38 && (long)BPF_CORE_READ((r), orig_ax) >= 0)
#define LP_SYSCALL_NR(r) ((long)BPF_CORE_READ((r), orig_ax))
/* calls after which the stack or the registers are not the caller's: rt_sigreturn, clone, fork, vfork, execve, execveat, clone3 */
#define LP_SYSCALL_CHANGES_STACK(nr) \
	((nr) == 15 || ((nr) >= 56 && (nr) <= 59) || (nr) == 322 || (nr) == 435)
/* the task's user thread pointer, as it was when the task last entered the kernel */
#define LP_TASK_TP(t) BPF_CORE_READ((t), thread.fsbase)
#elif defined(__TARGET_ARCH_arm64)
struct pt_regs___lp_arm64 {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__s32 syscallno;
} __attribute__((preserve_access_index));
#define LP_REG_IP_D(r) (((struct pt_regs___lp_arm64 *)(r))->pc)
#define LP_REG_SP_D(r) (((struct pt_regs___lp_arm64 *)(r))->sp)
#define LP_REG_FP_D(r) (((struct pt_regs___lp_arm64 *)(r))->regs[29])
#define LP_REG_LINK_D(r) (((struct pt_regs___lp_arm64 *)(r))->regs[30])
#define LP_REG_ALT_D(r) (((struct pt_regs___lp_arm64 *)(r))->regs[19])
#define LP_IN_SYSCALL_D(r) (((struct pt_regs___lp_arm64 *)(r))->syscallno >= 0)
#define LP_SYSCALL_NR_D(r) ((long)((struct pt_regs___lp_arm64 *)(r))->syscallno)
#define LP_REG_IP(r) BPF_CORE_READ((struct pt_regs___lp_arm64 *)(r), pc)
#define LP_REG_SP(r) BPF_CORE_READ((struct pt_regs___lp_arm64 *)(r), sp)
#define LP_REG_FP(r) BPF_CORE_READ((struct pt_regs___lp_arm64 *)(r), regs[29])
#define LP_REG_LINK(r) BPF_CORE_READ((struct pt_regs___lp_arm64 *)(r), regs[30])
#define LP_REG_ALT(r) BPF_CORE_READ((struct pt_regs___lp_arm64 *)(r), regs[19])
/* NO_SYSCALL (-1) outside one */
#define LP_IN_SYSCALL(r) (BPF_CORE_READ((struct pt_regs___lp_arm64 *)(r), syscallno) >= 0)
#define LP_SYSCALL_NR(r) ((long)BPF_CORE_READ((struct pt_regs___lp_arm64 *)(r), syscallno))
/* rt_sigreturn, clone, execve, execveat, clone3 (arm64 has no fork or vfork call) */
#define LP_SYSCALL_CHANGES_STACK(nr) ((nr) == 139 || (nr) == 220 || (nr) == 221 || (nr) == 281 || (nr) == 435)
struct thread_struct___lp_arm64 {
	struct {
		unsigned long tp_value;
	} uw;
} __attribute__((preserve_access_index));
struct task_struct___lp_arm64 {
	struct thread_struct___lp_arm64 thread;
} __attribute__((preserve_access_index));
#define LP_TASK_TP(t) BPF_CORE_READ((struct task_struct___lp_arm64 *)(t), thread.uw.tp_value)
#elif defined(__TARGET_ARCH_riscv)
struct pt_regs___lp_riscv {
	unsigned long epc, ra, sp, gp, tp, t0, t1, t2, s0, s1;
} __attribute__((preserve_access_index));
#define LP_REG_IP_D(r) (((struct pt_regs___lp_riscv *)(r))->epc)
#define LP_REG_SP_D(r) (((struct pt_regs___lp_riscv *)(r))->sp)
#define LP_REG_FP_D(r) (((struct pt_regs___lp_riscv *)(r))->s0)
#define LP_REG_LINK_D(r) (((struct pt_regs___lp_riscv *)(r))->ra)
#define LP_REG_ALT_D(r) (((struct pt_regs___lp_riscv *)(r))->s1)
#define LP_IN_SYSCALL_D(r) 0
#define LP_SYSCALL_NR_D(r) (-1L)
#define LP_REG_IP(r) BPF_CORE_READ((struct pt_regs___lp_riscv *)(r), epc)
#define LP_REG_SP(r) BPF_CORE_READ((struct pt_regs___lp_riscv *)(r), sp)
#define LP_REG_FP(r) BPF_CORE_READ((struct pt_regs___lp_riscv *)(r), s0)
#define LP_REG_LINK(r) BPF_CORE_READ((struct pt_regs___lp_riscv *)(r), ra)
#define LP_REG_ALT(r) BPF_CORE_READ((struct pt_regs___lp_riscv *)(r), s1)
/* not told apart here: the stack is always taken at switch-out */
#define LP_IN_SYSCALL(r) 0
#define LP_SYSCALL_NR(r) (-1L)
#define LP_SYSCALL_CHANGES_STACK(nr) 1
/* (kept in a register, not in the task: not used) */
#define LP_TASK_TP(t) 0ul
#else
#error "bpf/offcpu-arch.h knows x86, arm64 and riscv: define __TARGET_ARCH_x86, _arm64 or _riscv"
#endif

#endif
