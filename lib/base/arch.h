/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between the architectures lp runs on: which user registers a
 * sample carries (perf's sample_regs_user bits, which come in bit order),
 * and the DWARF numbers CFI unwinding uses for them. The BPF side has its
 * twin in bpf/offcpu-arch.h. Every architecture needs the same five: the
 * instruction pointer, the stack pointer, the frame pointer, the "link"
 * register, where a function that has not stored it keeps its return address
 * (arm64 x30, riscv ra; on x86-64 rdi, where glibc's vfork keeps it, as the
 * child must not find it on the stack they share), and one callee-saved
 * "alternate" register that hand-written code keeps its frame's address in
 * after it realigns the stack (x86-64 rbx: glibc's lazy-binding trampoline
 * _dl_runtime_resolve, where every first call of a library function goes).
 */
#ifndef LP_ARCH_H
#define LP_ARCH_H

#if defined(__x86_64__)
/* arch/x86/include/uapi/asm/perf_regs.h: BX 1, DI 5, BP 6, SP 7, IP 8 */
#define LP_SAMPLE_REGS ((1ULL << 1) | (1ULL << 5) | (1ULL << 6) | (1ULL << 7) | (1ULL << 8))
enum { LP_REG_AT_ALT = 0, LP_REG_AT_LINK = 1, LP_REG_AT_FP = 2, LP_REG_AT_SP = 3, LP_REG_AT_IP = 4 };
/* System V x86-64 psABI: rbx 3, rdi 5, rbp 6, rsp 7, return address column 16 */
enum { LP_DWARF_ALT = 3, LP_DWARF_LINK = 5, LP_DWARF_FP = 6, LP_DWARF_SP = 7, LP_DWARF_RA = 16 };
#elif defined(__aarch64__)
/* arch/arm64/include/uapi/asm/perf_regs.h: X19 19, X29 (fp) 29, LR 30, SP 31, PC 32 */
#define LP_SAMPLE_REGS ((1ULL << 19) | (1ULL << 29) | (1ULL << 30) | (1ULL << 31) | (1ULL << 32))
enum { LP_REG_AT_ALT = 0, LP_REG_AT_FP = 1, LP_REG_AT_LINK = 2, LP_REG_AT_SP = 3, LP_REG_AT_IP = 4 };
/* AArch64 DWARF: x19 19, x29 29, sp 31, return address in x30 */
enum { LP_DWARF_ALT = 19, LP_DWARF_FP = 29, LP_DWARF_SP = 31, LP_DWARF_RA = 30, LP_DWARF_LINK = 30 };
#elif defined(__riscv) && __riscv_xlen == 64
/* arch/riscv/include/uapi/asm/perf_regs.h: PC 0, RA 1, SP 2, S0 (fp) 8, S1 9 */
#define LP_SAMPLE_REGS ((1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 8) | (1ULL << 9))
enum { LP_REG_AT_IP = 0, LP_REG_AT_LINK = 1, LP_REG_AT_SP = 2, LP_REG_AT_FP = 3, LP_REG_AT_ALT = 4 };
/* RISC-V DWARF: s0 8, s1 9, sp 2, return address in ra (1) */
enum { LP_DWARF_FP = 8, LP_DWARF_ALT = 9, LP_DWARF_SP = 2, LP_DWARF_RA = 1, LP_DWARF_LINK = 1 };
#else
#error "lp knows the registers of x86-64, arm64 and riscv64 only: add this architecture to lib/base/arch.h"
#endif

enum { LP_SAMPLE_NREGS = 5 };

/*
 * The registers a code region's probe sample carries: every general one, as
 * a probe's argument may be in any (its perf numbers are the bits).
 */
#if defined(__x86_64__)
#define REGION_REGS (0x1ffULL | (0xffULL << 16))	/* AX..IP 0-8, R8..R15 16-23 */
enum { LP_REGION_SP_REG = 7 };
#elif defined(__aarch64__)
#define REGION_REGS ((1ULL << 33) - 1)		/* X0..X30, SP, PC */
enum { LP_REGION_SP_REG = 31 };
#else
#define REGION_REGS ((1ULL << 32) - 1)		/* PC, RA, SP ... T6 */
enum { LP_REGION_SP_REG = 2 };
#endif

#endif
