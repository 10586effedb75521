/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libpfm4 (PMU events by name), loaded at its first use. Linked, its
 * relocations cost every start of lp-record, lp-offcpu and lp-roofline 7 ms
 * of CPU (290 page faults in its tables, where a program's whole start is
 * 1.5 ms), and most recordings name no PMU event. The calls are libpfm's,
 * with its arguments and results; without the library each fails as an
 * uninitialised libpfm does (PFM_ERR_NOINIT).
 */
#ifndef LP_PFMLOAD_H
#define LP_PFMLOAD_H

#include <perfmon/pfmlib_perf_event.h>

pfm_err_t pfmload__initialize(void);
int pfmload__get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args);
const char *pfmload__strerror(int code);
pfm_err_t pfmload__get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *output);
int pfmload__get_event_next(int idx);
pfm_err_t pfmload__get_event_info(int idx, pfm_os_t os, pfm_event_info_t *output);

#endif
