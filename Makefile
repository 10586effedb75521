# SPDX-License-Identifier: GPL-2.0-or-later
# lp: one GNU Make build for everything. `make V=1` shows the commands.
.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
INCLUDEDIR = $(PREFIX)/include
DATADIR = $(PREFIX)/share/lp

CC ?= cc
# The architecture built for: another than this machine's is a cross build
# (e.g. make ARCH=aarch64 CC=aarch64-linux-gnu-gcc O=build/aarch64), whose
# libraries come from Debian's multiarch packages (libelf-dev:arm64, ...).
HOST_ARCH := $(shell uname -m)
ARCH ?= $(HOST_ARCH)
PKG_CONFIG ?= pkg-config
ifneq ($(ARCH),$(HOST_ARCH))
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(ARCH)-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
endif
CFLAGS ?= -O2 -g
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

ifeq ($(V),1)
Q =
else
Q = @
endif

# Debian package that provides each pkg-config module, for the error message.
PKG_libpcre2-8 = libpcre2-dev
PKG_zlib = zlib1g-dev
PKG_libelf = libelf-dev
PKG_libdw = libdw-dev
PKG_python3-embed = libpython3-dev
PKG_libbpf = libbpf-dev
PKG_libtraceevent = libtraceevent-dev
PKG_libprotobuf-c = libprotobuf-c-dev
PKGS = libpcre2-8 zlib libelf libdw libbpf libtraceevent libprotobuf-c
CHECK_PKGS = $(PKGS) python3-embed

NO_DEPS_GOALS = deps clean help
ifneq ($(filter-out $(NO_DEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
$(foreach p,$(CHECK_PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,\
  $(error pkg-config cannot find $(p): install the Debian package $(PKG_$(p)) (or run 'make deps' as root))))
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
# libpfm4 (named PMU events: its headers here, the library loaded when used, lib/record/pfmload.c) and
# libnuma (the NUMA check) have no pkg-config file here
$(if $(wildcard /usr/include/perfmon/pfmlib_perf_event.h),,\
  $(error libpfm4 is missing: install the Debian package libpfm4-dev (or run 'make deps' as root)))
$(if $(wildcard /usr/include/numa.h),,\
  $(error libnuma is missing: install the Debian package libnuma-dev (or run 'make deps' as root)))
$(if $(shell command -v protoc-c),,\
  $(error protoc-c is missing: install the Debian package protobuf-c-compiler (or run 'make deps' as root)))
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS)) -lnuma -lm -lpthread
endif

# The version every program says (--version) and every stream carries (#lp.version):
# a release tarball's VERSION file (make dist), else git describe in a checkout.
VERSION_BASE = 0.1.0
LP_VERSION := $(or $(shell cat VERSION 2>/dev/null),$(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null | sed 's/^v//'),$(addprefix $(VERSION_BASE)-g,$(shell git rev-parse --short HEAD 2>/dev/null)),$(VERSION_BASE))

ALL_CFLAGS = -std=gnu11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wformat-security -Werror -D_GNU_SOURCE $(CPPFLAGS) $(LIB_INCLUDES) -I$(O)/gen $(PKG_CFLAGS) $(TARGET_CFLAGS) $(CFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS)

PROGRAMS = lp lp-collapse lp-svg lp-record lp-offcpu lp-stat lp-filter lp-export lp-lines lp-roofline
# lib/ by part (stream, record, symbols, picture...): share/doc/DESIGN.md
# carm/: the roofline micro-benchmarks, part of the library lp-roofline uses
LIB_SRCS = $(wildcard lib/*/*.c) $(wildcard carm/*.c)
# lib's headers by folder ("record/recorder.h"); the folders it shares with other
# builds, bpf/ and carm/, by their path from the top ("bpf/offcpu.h")
LIB_INCLUDES = -Ilib -I.
LIB_OBJS = $(LIB_SRCS:%.c=$(O)/%.o) $(O)/gen/pprof.pb-c.o
CMD_UTIL_OBJS = $(O)/cmd/cmdutil.o $(O)/cmd/inputs.o
UNIT_SRCS = $(wildcard tests/unit/test-*.c)
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/%)
BINS = $(PROGRAMS:%=$(O)/bin/%)
MAN_PAGES = $(wildcard share/man/man*/*.[0-9])

# lp-count, the QEMU TCG plugin of lp-roofline record --emulate: beside the
# programs, in ../lib/lp/ (the build tree and an installation alike)
PLUGIN = $(O)/lib/lp/lp-count.so

.PHONY: all check check-layers lint unit-check asan-check fuzz bench deps demo install dist deb clean help FORCE
all: $(BINS) $(PLUGIN)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/liblp.a: $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# rewritten only when the version changes, so that a commit rebuilds one file
$(O)/gen/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define LP_VERSION "$(LP_VERSION)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

# made before any program is compiled; only the files that include it are rebuilt when it changes
$(patsubst %.c,$(O)/%.o,$(wildcard cmd/*.c)): | $(O)/gen/version.h

$(O)/bin/%: $(O)/cmd/%.o $(CMD_UTIL_OBJS) $(O)/liblp.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(PKG_LIBS)

$(O)/tests/%: $(O)/tests/unit/%.o $(O)/liblp.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

# never with the sanitizers of CFLAGS: QEMU, which loads it, has none
PLUGIN_SRCS = qemu/lp-count.c qemu/learn.c qemu/plugin-regions.c lib/roofline/fpclass.c lib/symbols/sdt.c lib/base/numparse.c \
	lib/base/htab.c lib/base/hugemem.c
$(PLUGIN): $(PLUGIN_SRCS) $(wildcard qemu/*.h) lib/roofline/fpclass.h lib/symbols/sdt.h lib/base/numparse.h \
		lib/base/htab.h lib/base/hash.h lib/base/hugemem.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  PLUGIN  $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC -shared -fvisibility=hidden \
		-Ilib $(LDFLAGS) -o $@ $(PLUGIN_SRCS) -lelf -lpthread

# The flame graph's and the timeline's scripts and styles, embedded in lp-svg;
# both pictures rename frames with share/rename.js.
$(O)/gen/%-all.js: share/rename.js share/%.js
	@mkdir -p $(dir $@)
	$(Q)cat $^ > $@

$(O)/gen/assets.c: $(O)/gen/flamegraph-all.js share/flamegraph.css $(O)/gen/timeline-all.js share/timeline.css \
		share/roofline.js share/roofline.css tools/embed
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  EMBED   $@")
	$(Q)tools/embed flamegraph_js=$(O)/gen/flamegraph-all.js flamegraph_css=share/flamegraph.css \
		timeline_js=$(O)/gen/timeline-all.js timeline_css=share/timeline.css \
		roofline_js=share/roofline.js roofline_css=share/roofline.css > $@

$(O)/gen/assets.o: $(O)/gen/assets.c
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(O)/bin/lp-svg: $(O)/gen/assets.o

# lp-roofline's record (counters, or emulation under QEMU) is a file of its own
$(O)/bin/lp-roofline: $(O)/cmd/roofline-record.o

# pprof's message types, from lib/export/pprof.proto (protoc-c, Debian's protobuf-c-compiler)
PROTOC_C ?= protoc-c
$(O)/gen/pprof.pb-c.c $(O)/gen/pprof.pb-c.h &: lib/export/pprof.proto
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  PROTOC  $@")
	$(Q)$(PROTOC_C) --proto_path=lib/export --c_out=$(O)/gen $<

$(O)/gen/pprof.pb-c.o: $(O)/gen/pprof.pb-c.c
	$(Q)$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(O)/lib/export/export-pprof.o: $(O)/gen/pprof.pb-c.h

# The off-CPU BPF program: CO-RE against this kernel's BTF, built with clang
# (never with the sanitizers of CFLAGS), and its skeleton for lib/record/offcpu-sampler.c.
BPFTOOL ?= $(firstword $(wildcard /usr/sbin/bpftool /usr/bin/bpftool) bpftool)
BPF_ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(patsubst riscv64,riscv,$(ARCH))))
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

$(O)/gen/vmlinux.h:
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)test -r $(VMLINUX_BTF) || { echo "$(VMLINUX_BTF) is missing: the kernel has no BTF" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(O)/bpf/%.bpf.o: bpf/%.bpf.c bpf/%.h bpf/offcpu-arch.h $(O)/gen/vmlinux.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  BPF     $@")
	$(Q)clang -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror -I$(O)/gen -c -o $@ $<

$(O)/gen/%.skel.h: $(O)/bpf/%.bpf.o
	@$(if $(Q),echo "  SKEL    $@")
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(O)/lib/record/offcpu-sampler.o: $(O)/gen/offcpu.skel.h

# lp-record and lp-offcpu share their main; demangling comes from libiberty
$(O)/bin/lp-record $(O)/bin/lp-offcpu: $(O)/cmd/recordcmd.o
$(O)/bin/lp-record $(O)/bin/lp-offcpu $(O)/bin/lp-stat: $(O)/cmd/eventargs.o
$(O)/bin/lp-record $(O)/bin/lp-offcpu $(O)/bin/lp-roofline $(O)/tests/test-demangle $(O)/tests/test-symbolizer $(O)/tests/test-symload $(O)/tests/test-chunkrelease $(O)/tests/test-recordwrite $(O)/tests/test-emucounts: PKG_LIBS += -liberty -ldl

# only lp-filter embeds Python
PYTHON_CFLAGS := $(shell $(PKG_CONFIG) --cflags python3-embed 2>/dev/null)
PYTHON_LIBS := $(shell $(PKG_CONFIG) --libs python3-embed 2>/dev/null)
$(O)/lib/filter/pyfilter.o: TARGET_CFLAGS += $(PYTHON_CFLAGS)
$(O)/bin/lp-filter: PKG_LIBS += $(PYTHON_LIBS)

# Workloads the tests record: frame pointers kept, as lp-record asks of users.
WORKLOAD_SRCS = $(wildcard tests/workloads/*.c)
WORKLOADS = $(WORKLOAD_SRCS:tests/workloads/%.c=$(O)/workloads/%) $(O)/workloads/demo-nofp \
	$(O)/workloads/cxx $(O)/workloads/libregions.so
WORKLOAD_CFLAGS = -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread

$(O)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -Wall -Wextra -o $@ $<

# Stack pages left untouched: no probing of a big frame's pages as it is made.
$(O)/workloads/freshstack: WORKLOAD_CFLAGS += -fno-stack-clash-protection

# Code regions (lp/region.h, USDT probes: systemtap-sdt-dev), one in a library loaded with dlopen.
$(O)/workloads/regions: tests/workloads/regions.c include/lp/region.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -Iinclude -Wall -Wextra -o $@ $< -ldl

$(O)/workloads/libregions.so: tests/workloads/regions/libregions.c include/lp/region.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -Iinclude -fPIC -shared -Wall -Wextra -o $@ $<

$(O)/workloads/cxx: tests/workloads/cxx.cc
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $@")
	$(Q)$(CXX) -O2 -g -fno-omit-frame-pointer -Wall -Wextra -o $@ $<

# The demo as too many programs are built: without frame pointers; and frames
# bigger than the stack snapshot, as bzip2's.
$(O)/workloads/bigframe: tests/workloads/bigframe.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -o $@ $<

# An MPI job for the mpirun test, where Open MPI's mpicc is installed.
MPICC ?= mpicc
ifneq ($(shell command -v $(MPICC) 2> /dev/null),)
WORKLOADS += $(O)/workloads/mpi-ranks
endif
$(O)/workloads/mpi-ranks: tests/workloads/mpi/ranks.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MPICC   $@")
	$(Q)$(MPICC) $(WORKLOAD_CFLAGS) -Wall -Wextra -o $@ $<

$(O)/workloads/demo-nofp: tests/workloads/demo.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -pthread -Wall -Wextra -o $@ $<

# The tests: C unit tests of lib/ and bats tests of the programs, as one TAP
# summary ending in "N passed, N failed".
check: $(BINS) $(UNIT_BINS) $(WORKLOADS)
	$(Q)LP_BUILD=$(abspath $(O)) tests/run

# lib/'s folders as layers (share/doc/DESIGN.md); also a test of make check
check-layers:
	$(Q)tools/check-layers

# what the project relies on beyond the compiler's warnings (tools/lint, CONTRIBUTING.md)
lint: $(O)/liblp.a
	$(Q)tools/lint $(O)/liblp.a

unit-check: $(UNIT_BINS)
	$(Q)for t in $(UNIT_BINS); do $$t || exit 1; done

# The whole suite again with AddressSanitizer and UndefinedBehaviorSanitizer.
asan-check:
	$(Q)LP_NO_CHROMIUM="Chromium's scenarios run in make check; this run checks the C under the sanitizers" \
		$(MAKE) --no-print-directory O=$(O)/asan CFLAGS="$(SAN_FLAGS)" check

# libFuzzer targets of each parser, each run for FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz-*.c))
fuzz:
	$(Q)$(MAKE) --no-print-directory O=$(O)/fuzz CC=clang \
		CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
		$(O)/fuzz/liblp.a
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(O)/fuzz/corpus/$$t && \
		clang -std=gnu11 -D_GNU_SOURCE -Wall -Werror $(LIB_INCLUDES) -O1 -g -fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=all -o $(O)/fuzz/$$t tests/fuzz/$$t.c \
			$(O)/fuzz/liblp.a $(PKG_LIBS) -liberty || exit 1; \
		echo "  FUZZ    $$t ($(FUZZ_SECONDS) s)"; \
		$(O)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
			-print_final_stats=1 -artifact_prefix=$(O)/fuzz/$$t- $(O)/fuzz/corpus/$$t tests/fuzz/seeds/$$t \
			2>$(O)/fuzz/$$t.log || { tail -40 $(O)/fuzz/$$t.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|Done' $(O)/fuzz/$$t.log | tail -1; \
	done

bench: all
	bench/all.sh

deps:
	tools/install-deps

demo: all $(WORKLOADS)
	O=$(O) tools/demo

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)
	install -d $(DESTDIR)$(PREFIX)/lib/lp
	install -m 644 $(PLUGIN) $(DESTDIR)$(PREFIX)/lib/lp
	install -d $(DESTDIR)$(INCLUDEDIR)/lp
	install -m 644 include/lp/region.h $(DESTDIR)$(INCLUDEDIR)/lp
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man5
	install -m 644 $(filter %.7,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man7
	cp -R filters $(DESTDIR)$(DATADIR)/
	# the pipelines beside the programs they run (lp report runs lp-report)
	install -m 755 pipelines/lp-report pipelines/lp-job-report pipelines/lp-roofline-svg $(DESTDIR)$(BINDIR)
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 share/bash-completion/lp $(DESTDIR)$(PREFIX)/share/bash-completion/completions/lp
	for p in $(filter-out lp,$(PROGRAMS)); do ln -sf lp $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$p; done

# A release tarball: the tree at HEAD and a VERSION file saying what it is.
dist:
	@mkdir -p $(O)
	git archive --format=tar --prefix=lp-$(LP_VERSION)/ HEAD > $(O)/lp-$(LP_VERSION).tar
	@mkdir -p $(O)/dist/lp-$(LP_VERSION) && echo '$(LP_VERSION)' > $(O)/dist/lp-$(LP_VERSION)/VERSION
	tar -rf $(O)/lp-$(LP_VERSION).tar -C $(O)/dist lp-$(LP_VERSION)/VERSION
	gzip -f $(O)/lp-$(LP_VERSION).tar
	@rm -rf $(O)/dist
	@echo "  DIST    $(O)/lp-$(LP_VERSION).tar.gz"

# A Debian package of what make install installs, under /usr (debian/, debhelper):
# $(O)/lp_VERSION_ARCH.deb, VERSION debian/changelog's.
deb:
	dpkg-buildpackage -b -us -uc
	@mkdir -p $(O)
	mv ../lp_$$(dpkg-parsechangelog -S Version)_$$(dpkg-architecture -qDEB_HOST_ARCH).deb $(O)/
	rm -f ../lp_$$(dpkg-parsechangelog -S Version)_*.buildinfo ../lp_$$(dpkg-parsechangelog -S Version)_*.changes \
		../lp-dbgsym_$$(dpkg-parsechangelog -S Version)_*.deb
	@echo "  DEB     $(O)/lp_$$(dpkg-parsechangelog -S Version)_$$(dpkg-architecture -qDEB_HOST_ARCH).deb"

clean:
	rm -rf $(O)

help:
	@echo "make [all|check|asan-check|fuzz|bench|demo|install|deps|clean] [V=1] [O=dir]"

-include $(LIB_OBJS:.o=.d) $(O)/cmd/*.d $(O)/tests/unit/*.d
FORCE:
