/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Before lp-roofline record trusts the FLOP and load/store counters, each is
 * counted over carm/ kernels whose FLOPs, loads and stores are known
 * exactly; a counter whose total strays by more than 1% is refused, as is
 * one that was multiplexed or counted what no program does.
 */
#ifndef LP_CALIBRATE_H
#define LP_CALIBRATE_H

#include <stddef.h>

#include "base/error.h"
#include "record/eventspec.h"

/* What calibration found: each total against what the kernels did (1.0 = exact; 0 when not checked). */
struct calibration {
	double flops, widths, loads, stores;
};

/*
 * Counts each event over the kernels. -ENODEV when a counter cannot be
 * opened (no PMU: err names the event), -ERANGE when one is off by more
 * than 1% or not to be trusted, -EINVAL when an event is unknown here.
 */
int flop_counters__calibrate(const char *const *events, size_t n, const struct event_env *env, struct calibration *c,
			     struct lp_error *err);

#endif
