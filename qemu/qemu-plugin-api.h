/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The part of QEMU's TCG plugin API that lp-count uses, declared here from
 * its documentation (docs/devel/tcg-plugins.rst and qemu-plugin.h of QEMU
 * 7.2, the qemu-user of Debian 12): API version 1. QEMU resolves these
 * functions in the plugin when it loads it; a QEMU whose version range does
 * not take in version 1 is refused by lp-count itself (lp-count.c).
 */
#ifndef LP_QEMU_PLUGIN_API_H
#define LP_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LP_QEMU_PLUGIN_API 1

typedef uint64_t qemu_plugin_id_t;

/* What QEMU says of itself when it installs the plugin (valid during that call only). */
typedef struct {
	const char *target_name;		/* "x86_64", "aarch64" */
	struct {
		int min, cur;			/* the API versions it takes */
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef uint32_t qemu_plugin_meminfo_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };

typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info, uint64_t vaddr,
					  void *userdata);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num,
					      uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
					      uint64_t a6, uint64_t a7, uint64_t a8);

/* what the plugin exports: the API it was built for, and its entry point */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

/* called at each translation of a block of guest code */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
/* during that call: the block's instructions, and what runs each time it runs */
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
/* each time the instruction runs */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
/* user mode: where the guest's code is in QEMU's own address space */
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
/* malloc'd text, for the caller to free */
char *qemu_plugin_insn_disas(const struct qemu_plugin_insn *insn);
/* each load and store the instruction makes, as it makes it */
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw, void *userdata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);

/*
 * Drops every callback of the plugin and every translation, at a point where
 * no vCPU runs, then calls cb (the plugin registers again there); the
 * callbacks go on until then.
 */
void qemu_plugin_reset(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);

/* each system call the guest makes, before it is made */
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
/* when the guest program exits (exit_group, or a signal that ends it) */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
void qemu_plugin_outs(const char *string);

#endif
