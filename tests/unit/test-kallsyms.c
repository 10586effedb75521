/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel symbols read from a /proc/kallsyms-shaped file: functions only, modules named, names whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/kallsyms.h"
#include "tap.h"

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Whether addr looks up to name in module. */
static int names(const struct symtab *t, uint64_t addr, const char *name, const char *module)
{
	const char *m = NULL, *n = symtab__lookup(t, addr, &m);

	if (!n || strcmp(n, name) || strcmp(m, module)) {
		printf("# %#llx: '%s' [%s], want '%s' [%s]\n", (unsigned long long)addr, n ? n : "(none)",
		       m ? m : "", name, module);
		return 0;
	}
	return 1;
}

int main(void)
{
	char dir[] = "/tmp/lp-kallsyms.XXXXXX", path[64], long_name[700], text[2048];
	struct symtab *t;

	if (!ok(mkdtemp(dir) != NULL, "a directory for the files"))
		return tap_done();
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	snprintf(text, sizeof(text),
		 "ffffffff81000000 T _stext\n"
		 "ffffffff81000100 t helper\n"
		 "ffffffff81000180 D some_data\n"
		 "ffffffff81000200 W weak_one\n"
		 "ffffffff81000300 T %s\n"
		 "not a line at all\n"
		 "ffffffff8100 0400 T split_address\n"
		 "\n"
		 "ffffffffc0001000 t mod_fn\t[mymod]\n"
		 "ffffffffc0001100 T mod_other\t[mymod]\n"
		 "ffffffffc0002000 t last_fn\t[other]",
		 long_name);
	write_file(path, text);
	t = kallsyms__load(path);
	if (!ok(t != NULL, "read"))
		return tap_done();
	ok(names(t, 0xffffffff81000000, "_stext", "") && names(t, 0xffffffff81000150, "helper", ""),
	   "a function of the kernel, at its start and inside");
	ok(names(t, 0xffffffff81000190, "helper", ""), "data symbols are not functions: inside the one before");
	ok(names(t, 0xffffffff81000210, "weak_one", ""), "weak functions too");
	ok(names(t, 0xffffffff81000305, long_name, ""), "a 699-byte name whole");
	ok(names(t, 0xffffffffc0001010, "mod_fn", "mymod") && names(t, 0xffffffffc0001100, "mod_other", "mymod"),
	   "a module's functions, with its name");
	ok(names(t, 0xffffffffc0002001, "last_fn", "other"), "the last line without a newline");
	ok(!symtab__lookup(t, 0xffffffff80000000, NULL), "before the first symbol: none");
	symtab__free(t);

	write_file(path, "0000000000000000 T _stext\n0000000000000000 t helper\n");
	errno = 0;
	ok(kallsyms__load(path) == NULL && errno == ENODATA, "every address 0 (kptr_restrict): ENODATA");
	errno = 0;
	unlink(path);
	ok(kallsyms__load(path) == NULL && errno == ENOENT, "no file: ENOENT");
	rmdir(dir);
	symtab__free(NULL);
	return tap_done();
}
