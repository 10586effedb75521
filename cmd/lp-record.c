/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-record: sample a command and everything it spawns, on and off the CPU. */
#include "recordcmd.h"

int main(int argc, char **argv)
{
	return record_main(argc, argv, false);
}
