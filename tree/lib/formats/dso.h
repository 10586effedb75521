/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a frame's executable (a perf DSO name or an lp LOCS entry) says about it. */
#ifndef LP_DSO_H
#define LP_DSO_H

#include <stdbool.h>
#include <stddef.h>

/* A JIT symbol map, /tmp/perf-PID.map (anywhere in s). */
bool dso__is_perf_map(const char *s, size_t len);

#endif
