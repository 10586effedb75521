/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "record/syscheck.h"
#include "tap.h"

int main(void)
{
	struct check c;

	syscheck__numa(&c, 1, 2, 2);
	ok(c.status == CHECK_WARNING && strstr(c.text, "may run on 2 of 2 nodes"),
	   "balancing on, the command's CPUs on two nodes: a warning");
	ok(strstr(c.remedy, "sysctl kernel.numa_balancing=0") && strstr(c.remedy, "numactl --cpunodebind=0 --membind=0"),
	   "with both remedies");
	syscheck__numa(&c, 1, 2, 1);
	ok(c.status == CHECK_OK && !c.remedy[0], "bound to one node: nothing to do");
	syscheck__numa(&c, 0, 4, 4);
	ok(c.status == CHECK_OK && !strcmp(c.text, "off"), "balancing off");
	syscheck__numa(&c, 1, 1, 1);
	ok(c.status == CHECK_OK && !strcmp(c.text, "one node"), "one node: nothing to balance");
	is_str(check_status__name(CHECK_PROBLEM), "problem", "statuses have names");
	return tap_done();
}
