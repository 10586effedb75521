/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The main lp-record and lp-offcpu share. */
#ifndef LP_RECORDCMD_H
#define LP_RECORDCMD_H

#include <stdbool.h>

/* offcpu_only: lp-offcpu (off-CPU sampling alone, required); else lp-record. */
int record_main(int argc, char **argv, bool offcpu_only);

#endif
