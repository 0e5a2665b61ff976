/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Our own declarations of the QEMU TCG plugin API (version 1) entry points
 * icount-plugin.so uses, written from include/qemu/qemu-plugin.h of QEMU
 * 7.2 (QEMU_PLUGIN_VERSION 1): Debian 12 ships no plugin header.  The
 * functions resolve at load time from the qemu binary (qemu-x86_64,
 * qemu-system-x86_64, qemu-aarch64, qemu-system-aarch64 export them:
 * nm -D /usr/bin/qemu-x86_64 | grep qemu_plugin).
 *
 * bench/itlb/qemu_plugin_api.h declares the same layouts for its plugin;
 * this one adds qemu_plugin_insn_data() and the per-instruction exec
 * callback.  In QEMU 9.0 qemu_plugin_insn_data() changed to copy into a
 * buffer (and API version 2 changed other calls): recheck these
 * declarations against a newer QEMU before loading this plugin there.
 */
#ifndef ICOUNT_QEMU_PLUGIN_API_H
#define ICOUNT_QEMU_PLUGIN_API_H

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
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb,
				    void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

void qemu_plugin_outs(const char *string);

#endif
