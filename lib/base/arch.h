/*
 * What differs between the architectures lp runs on: which user registers a
 * sample carries (perf's sample_regs_user bits, which come in bit order),
 * and the DWARF numbers CFI unwinding uses for them. The BPF side has its
 * twin in bpf/arch.h. Every architecture needs the same three: the
 * instruction pointer, the stack pointer and the frame pointer.
 */
#ifndef LP_ARCH_H
#define LP_ARCH_H

#if defined(__x86_64__)
/* arch/x86/include/uapi/asm/perf_regs.h: BP 6, SP 7, IP 8 */
#define LP_SAMPLE_REGS ((1ULL << 6) | (1ULL << 7) | (1ULL << 8))
enum { LP_REG_AT_FP = 0, LP_REG_AT_SP = 1, LP_REG_AT_IP = 2 };
/* System V x86-64 psABI: rbp 6, rsp 7, return address column 16 */
enum { LP_DWARF_FP = 6, LP_DWARF_SP = 7, LP_DWARF_RA = 16 };
#elif defined(__aarch64__)
/* arch/arm64/include/uapi/asm/perf_regs.h: X29 (fp) 29, SP 31, PC 32 */
#define LP_SAMPLE_REGS ((1ULL << 29) | (1ULL << 31) | (1ULL << 32))
enum { LP_REG_AT_FP = 0, LP_REG_AT_SP = 1, LP_REG_AT_IP = 2 };
/* AArch64 DWARF: x29 29, sp 31, return address in x30 */
enum { LP_DWARF_FP = 29, LP_DWARF_SP = 31, LP_DWARF_RA = 30 };
#elif defined(__riscv) && __riscv_xlen == 64
/* arch/riscv/include/uapi/asm/perf_regs.h: PC 0, SP 2, S0 (fp) 8 */
#define LP_SAMPLE_REGS ((1ULL << 0) | (1ULL << 2) | (1ULL << 8))
enum { LP_REG_AT_IP = 0, LP_REG_AT_SP = 1, LP_REG_AT_FP = 2 };
/* RISC-V DWARF: s0 8, sp 2, return address in ra (1) */
enum { LP_DWARF_FP = 8, LP_DWARF_SP = 2, LP_DWARF_RA = 1 };
#else
#error "lp knows the registers of x86-64, arm64 and riscv64 only: add this architecture to lib/base/arch.h"
#endif

enum { LP_SAMPLE_NREGS = 3 };

#endif
