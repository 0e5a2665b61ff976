/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Our own declarations of the QEMU TCG plugin API (version 1) entry points
 * the bench's plugins use (itlb/itlb-plugin.so, icount/icount-plugin.so),
 * written from the API documentation of include/qemu/qemu-plugin.h (QEMU
 * 7.2, QEMU_PLUGIN_VERSION 1).  Debian 12 ships no plugin header.  The
 * functions are resolved at load time from the qemu binary (qemu-x86_64,
 * qemu-system-x86_64, qemu-aarch64 and qemu-system-aarch64 export them:
 * nm -D /usr/bin/qemu-x86_64 | grep qemu_plugin).  In QEMU 9.0
 * qemu_plugin_insn_data() changed to copy into a buffer (and API version 2
 * changed other calls): recheck these against a newer QEMU.
 *
 * Only what is used is declared; layouts that are passed by pointer and
 * read (qemu_info_t) follow the 7.2 definition.
 */
#ifndef BENCH_QEMU_PLUGIN_API_H
#define BENCH_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QP_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;

typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;		/* opaque */
struct qemu_plugin_insn;	/* opaque */

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id,
					      unsigned int vcpu_index,
					      int64_t num, uint64_t a1,
					      uint64_t a2, uint64_t a3,
					      uint64_t a4, uint64_t a5,
					      uint64_t a6, uint64_t a7,
					      uint64_t a8);

QP_EXPORT extern int qemu_plugin_version;
QP_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
				  const qemu_info_t *info,
				  int argc, char **argv);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id,
					  qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb,
				    void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);

void qemu_plugin_outs(const char *string);
const char *qemu_plugin_path_to_binary(void);

#endif
