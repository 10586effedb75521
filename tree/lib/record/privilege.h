/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What this process may do, as the kernel will judge it: its effective capabilities. */
#ifndef LP_PRIVILEGE_H
#define LP_PRIVILEGE_H

#include <stdbool.h>

/* Whether capability cap (CAP_PERFMON, CAP_BPF, CAP_SYS_ADMIN...) is in the effective set. */
bool privilege__has(int cap);

/*
 * Whether perf_event_open will let this process sample a child's CPU and
 * kernel events at kernel.perf_event_paranoid level paranoid: CAP_PERFMON
 * (or CAP_SYS_ADMIN, which kernels before 5.8 ask for) lifts the limit.
 */
bool privilege__may_profile(long paranoid);

#endif
