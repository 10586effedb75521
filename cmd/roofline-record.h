/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LP_ROOFLINE_RECORD_H
#define LP_ROOFLINE_RECORD_H

/* "lp-roofline record": its options and COMMAND in argv (argv[0] the program's name) */
int roofline_record(int argc, char **argv);

#endif
