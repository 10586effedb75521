/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CARM Tool's roofline CSV, byte for byte, so that its files and ours
 * are interchangeable (Adaptyst's analyser reads exactly this layout):
 * DIR/roofline/NAME_roofline.csv, two header rows, 21 columns, CRLF, numbers
 * rounded and printed as its Python does, rows appended to a file that exists.
 */
#ifndef LP_CARMCSV_H
#define LP_CARMCSV_H

#include <stddef.h>
#include <time.h>

#include "base/error.h"
#include "roofline/roofs.h"

/*
 * A number as the CARM Tool writes it: 4 significant decimals after the
 * first non-zero digit (custom_round), then as Python's repr of a float
 * ("191.7812", "0.00012", "1e-05", "120.0"), and "0" for zero. Returns buf.
 */
const char *carm_csv__number(double v, char *buf, size_t size);

/* One row per ISA of r, appended to DIR/roofline/NAME_roofline.csv (made with its headers when new); -errno. */
int carm_csv__append(const char *dir, const char *name, time_t when, const struct roofs_opts *o,
		     const struct roofs *r, struct lp_error *err);

#endif
