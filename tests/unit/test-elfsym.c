/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfsym on real files: this test's own executable, its PLT entries named
 * as objdump names them, and a copy stripped of its symbols.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elfsym.h"
#include "tap.h"

static void check_plt(const struct elfsym *e, const char *path, const char *what)
{
	char cmd[4200], line[512];
	FILE *p;
	int entries = 0, right = 0;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		uint64_t addr;
		char name[256];
		const char *got, *got_inside;

		/* 0000000000001030 <free@plt>: */
		if (sscanf(line, "%" SCNx64 " <%255[^>]>:", &addr, name) != 2 || strlen(name) < 5 ||
		    strcmp(name + strlen(name) - 4, "@plt") != 0)
			continue;	/* the lazy PLT's first entry is NAME@plt-0x10 */
		entries++;
		got = elfsym__lookup(e, addr);
		got_inside = elfsym__lookup(e, addr + 5);
		if (got && got_inside && strcmp(got, name) == 0 && strcmp(got_inside, name) == 0)
			right++;
		else
			printf("# %s at 0x%" PRIx64 ": got %s\n", name, addr, got ? got : "(none)");
	}
	if (p)
		pclose(p);
	printf("# %s: %d PLT entries\n", what, entries);
	ok(entries >= 3 && right == entries, what);
}

/* The address nm gives name in path, or 0. */
static uint64_t nm_address(const char *path, const char *name)
{
	char cmd[4400], line[512], sym[256], type;
	uint64_t addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, sym) == 3 && strcmp(sym, name) == 0)
			found = addr;
	if (p)
		pclose(p);
	return found;
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/*
 * A stripped program whose symbols are in a separate debug file, found by
 * its build id (ROOT/.build-id/xx/rest.debug) or by its debug link
 * (ROOT/DIR/NAME, DIR/.debug/NAME).
 */
static void check_debug_files(const char *work)
{
	char source[128], prog[128], root[128], debug[128];
	uint64_t hidden;
	struct elfsym *e;
	const char *name;
	FILE *f;

	snprintf(source, sizeof(source), "%s/prog.c", work);
	snprintf(prog, sizeof(prog), "%s/prog", work);
	snprintf(root, sizeof(root), "%s/root", work);
	snprintf(debug, sizeof(debug), "%s/prog.debug", work);
	if ((f = fopen(source, "w"))) {
		fputs("static int __attribute__((noinline)) hidden_work(int x) { return x * 3 + 1; }\n"
		      "int main(int c, char **v) { (void)v; return hidden_work(c); }\n", f);
		fclose(f);
	}
	if (run("cc -g -O1 -Wl,--build-id -o '%s' '%s'", prog, source) != 0 ||
	    !(hidden = nm_address(prog, "hidden_work")) ||
	    run("objcopy --only-keep-debug '%s' '%s'", prog, debug) != 0 ||
	    run("strip --strip-all '%s'", prog) != 0) {
		ok(0, "build and strip a program with a separate debug file");
		return;
	}
	e = elfsym__load(prog, root);
	ok(e && !elfsym__lookup(e, hidden), "stripped, without its debug file: a static function is unknown");
	elfsym__free(e);

	/* by build id: the file name is the id's hex digits, the first two a folder */
	run("d=%s; id=$(readelf -n \"$d\" | sed -n 's/.*Build ID: *//p'); x=%s; y=%s; "
	    "mkdir -p \"$x/.build-id/$(echo $id | cut -c1-2)\" && "
	    "cp \"$y\" \"$x/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug\"", prog, root, debug);
	e = elfsym__load(prog, root);
	name = e ? elfsym__lookup(e, hidden + 1) : NULL;
	ok(name && strcmp(name, "hidden_work") == 0, "the debug file is found by build id: hidden_work named");
	elfsym__free(e);
	run("rm -rf '%s/.build-id'", root);

	/* by debug link, in ROOT/DIR and in DIR/.debug */
	if (run("objcopy --add-gnu-debuglink='%s' '%s'", debug, prog) != 0) {
		ok(0, "objcopy --add-gnu-debuglink");
		return;
	}
	run("mkdir -p '%s/%s' && cp '%s' '%s/%s/'", root, work, debug, root, work);
	e = elfsym__load(prog, root);
	name = e ? elfsym__lookup(e, hidden + 1) : NULL;
	ok(name && strcmp(name, "hidden_work") == 0, "the debug file is found by debug link under the root");
	elfsym__free(e);
	run("rm -rf '%s' && mkdir -p '%s/.debug' && mv '%s' '%s/.debug/'", root, work, debug, work);
	e = elfsym__load(prog, root);
	name = e ? elfsym__lookup(e, hidden + 1) : NULL;
	ok(name && strcmp(name, "hidden_work") == 0, "the debug file is found by debug link in .debug beside it");
	elfsym__free(e);
}

int main(void)
{
	char self[4096], stripped[4200], source[4300], cmd[8800], work[64];
	FILE *f;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct elfsym *e;

	if (len <= 0)
		return 1;
	self[len] = 0;
	e = elfsym__load(self, NULL);
	ok(e != NULL, "loads its own executable");
	if (!e)
		return tap_done();
	ok(elfsym__lookup(e, (uint64_t)(uintptr_t)0) == NULL, "nothing at address 0");
	check_plt(e, self, "every PLT entry objdump names has the same name (NAME@plt)");
	elfsym__free(e);

	/* stripped: .dynsym has no PLT entries either, they are still named */
	snprintf(stripped, sizeof(stripped), "/tmp/lp-test-elfsym.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "strip -o '%s' '%s'", stripped, self);
	if (system(cmd) == 0 && (e = elfsym__load(stripped, NULL))) {
		check_plt(e, stripped, "stripped: the PLT entries are still named");
		elfsym__free(e);
	} else {
		ok(0, "strip a copy of the executable");
	}
	unlink(stripped);

	/* with IBT, the jumps are in .plt.sec and .plt only pushes */
	snprintf(source, sizeof(source), "%s.c", stripped);
	if ((f = fopen(source, "w"))) {
		fputs("#include <stdio.h>\n#include <stdlib.h>\n"
		      "int main(int c, char **v) { printf(\"%d\", atoi(v[0])); return puts(\"\"); }\n", f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "cc -fcf-protection=full -Wl,-z,ibtplt -o '%s' '%s'", stripped, source);
	if (system(cmd) == 0 && (e = elfsym__load(stripped, NULL))) {
		check_plt(e, stripped, "with IBT, the entries of .plt.sec are named");
		elfsym__free(e);
	} else {
		ok(0, "build a program with -fcf-protection=full -z ibtplt");
	}
	unlink(source);
	unlink(stripped);
	snprintf(work, sizeof(work), "/tmp/lp-test-elfsym-debug.%d", (int)getpid());
	if (mkdir(work, 0700) == 0) {
		check_debug_files(work);
		run("rm -rf '%s'", work);
	} else {
		ok(0, "make a folder to work in");
	}
	elfsym__free(NULL);
	return tap_done();
}
