/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The out= file of the bench's TCG plugins (itlb/itlb-plugin.so,
 * icount/icount-plugin.so), shared by both.
 */
#ifndef BENCH_PLUGIN_OUT_H
#define BENCH_PLUGIN_OUT_H

#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * Open @out_path for writing; in a process other than @install_pid (a
 * guest child that qemu-user forked with the plugin loaded) open
 * "@out_path.PID" instead, so that a child writes beside, not over, its
 * parent's results.  The name opened is left in @path (@size bytes).
 */
static inline FILE *plugin_out_open(const char *out_path, pid_t install_pid,
				    char *path, size_t size)
{
	if (getpid() != install_pid)
		snprintf(path, size, "%s.%d", out_path, (int)getpid());
	else
		snprintf(path, size, "%s", out_path);
	return fopen(path, "w");
}

#endif
