/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lp-offcpu: sample the time a command and everything it spawns spend off the CPU. */
#include "recordcmd.h"

int main(int argc, char **argv)
{
	return record_main(argc, argv, true);
}
