# srt: one GNU Makefile for the whole suite.
#   make                 every program in $(BUILD)/bin
#   make check           unit tests, then the bats suites of tests/LIST in its order; last
#                        line "N passed, N failed[, N skipped]"
#   make check SAN=1     the same under ASan and UBSan (built in build/san)
#   make check-list      fails when a suite under tests/ is not in tests/LIST
#   make fuzz            libFuzzer targets, each run for FUZZ_SECONDS
#   make bench           benchmarks (ratios against a baseline measured in the same run)
#   make win             build/win/srt-win.exe, the Windows helper, build/win/srt.exe and
#                        build/win/srt-socksd.exe and srt-httpd.exe (mingw-w64), with the
#                        Windows unit tests (tests/windows/proxies-wine.bats); srt.exe needs
#                        cJSON's source, which scripts/deps fetches
#   make install         PREFIX (default /usr/local), DESTDIR, BINDIR, LIBEXECDIR, MANDIR
#                        (SYSCONFDIR, default /etc: where the managed policy is read from)
#   make uninstall       removes what install put there
#   make deb             the Debian packages, in $(DEBDIR) (dpkg-buildpackage)

# The version every program prints with -V (one definition: SRT_VERSION in the sources).
VERSION := 0.1.0

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
# srt-seccomp, srt-httpd and srt-socksd: the installed launcher runs them from here, a
# path fixed at build time (lib/core/layout.c layout_helpers_dir), never found through PATH.
LIBEXECDIR ?= $(PREFIX)/libexec/srt
MANDIR  ?= $(PREFIX)/share/man
# The managed policy is SYSCONFDIR/srt/managed-settings.json, a path fixed at build time
# (lib/core/managed_path.c): an organisation's file, not the installation's, so not under PREFIX.
SYSCONFDIR ?= /etc
CC      ?= cc
PKG_CONFIG ?= pkg-config
SAN     ?= 0
ifeq ($(SAN),1)
BUILD   ?= build/san
else
BUILD   ?= build
endif
# One spelling of the build directory: relative when it is inside the tree. Objects are
# targets by name, and the dependency files name them as they were built; a make given
# BUILD=$PWD/build (as tests/package/install.bats's is) would otherwise not see the header
# dependencies a plain make wrote, nor a plain make those it wrote, and one of them
# would rebuild what the other had left out of date.
override BUILD := $(patsubst $(CURDIR)/%,%,$(abspath $(BUILD)))

# Every library's flags come from pkg-config (PKG_CONFIG, for a cross or other prefix),
# never from a path written here.
PKGS    := libcjson libcares libseccomp libcap libnl-3.0
# OpenSSL's headers only: the proxies load libssl with dlopen when a policy needs TLS
# (lib/tls/tls.h says why), so nothing links it.
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) openssl 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

# lib/ is one directory per role, each its own archive, $(BUILD)/libsrt-DIR.a, of every
# lib/DIR/*.c (ARCHITECTURE.md, "The source in one table"). Listed in link order: each
# uses only those after it, so a call against the layering is an undefined reference
# (compat, last, holds what another system lacks or spells differently).
LIB_DIRS := proxyd tls sandbox core compat
ifneq ($(sort $(LIB_DIRS)),$(sort $(patsubst lib/%/,%,$(wildcard lib/*/))))
$(error LIB_DIRS does not name every directory of lib/)
endif
LIB_INC := $(LIB_DIRS:%=-Ilib/%)

WARN    := -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wcast-qual \
           -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -DSRT_VERSION='"$(VERSION)"' $(WARN) -fstack-protector-strong \
           $(LIB_INC) -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP
ifeq ($(SAN),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
else ifeq ($(findstring _FORTIFY_SOURCE,$(CPPFLAGS) $(CFLAGS)),)
# (A distribution's own level, in CPPFLAGS from dpkg-buildflags say, wins: defined twice
# with two values it would be a warning, and warnings are errors.)
CFLAGS  += -D_FORTIFY_SOURCE=2
endif
CFLAGS  := $(CPPFLAGS) $(CFLAGS)
LDLIBS  += -Wl,--as-needed $(PKG_LIBS)

# Programs are discovered: every srt-*/ directory with a main in srt-X/srt-X.c.
PROGS   := $(patsubst %/,%,$(filter-out srt-win/,$(wildcard srt-*/)))
LIB_SRC := $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIBSRT  := $(LIB_DIRS:%=$(BUILD)/libsrt-%.a)
# The archives each program links, in LIB_DIRS's order (a program not named here links
# them all): the launcher and srt-policy make sandboxes and run no proxy, the proxies
# make none. tls is the OpenSSL loader and the CA: the launcher makes the CA that
# srt-httpd terminates TLS with.
LIBS_srt-launch  := sandbox tls core compat
LIBS_srt-policy  := sandbox core compat
LIBS_srt-seccomp := sandbox core compat
LIBS_srt-httpd   := proxyd tls core compat
LIBS_srt-socksd  := proxyd tls core compat
prog_libs = $(patsubst %,$(BUILD)/libsrt-%.a,$(or $(LIBS_$(1)),$(LIB_DIRS)))
BINS    := $(PROGS:%=$(BUILD)/bin/%)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/tests/%)
PRELOAD_SRC := $(wildcard tests/preload/*.c)
PRELOAD_SO := $(PRELOAD_SRC:tests/preload/%.c=$(BUILD)/tests/%.so)
# The Windows build is part of check wherever the cross compiler is (scripts/deps
# installs it; CI has it).
CHECK_WIN  := $(if $(shell command -v x86_64-w64-mingw32-gcc 2>/dev/null),win)

all: $(BINS) $(if $(filter srt-launch,$(PROGS)),$(BUILD)/bin/srt)

# Objects are built again when VERSION changes (they may print it): the file changes
# only then.
.SECONDEXPANSION:
VERSION_STAMP := $(BUILD)/version
$(VERSION_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@

$(BUILD)/obj/%.o: %.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# (No % in the prerequisites but the stem's: see the programs' rule below.) The directory
# is one: a file moved out of it changes its time, and the archive is made again without
# that file's object.
$(BUILD)/libsrt-%.a: $$(addprefix $(BUILD)/obj/,$$(subst .c,.o,$$(wildcard lib/$$*/*.c))) lib/$$*
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $(filter %.o,$^)

# srt-launch's sources, by the system they serve: linux/ (namespaces, bwrap, seccomp),
# macos/ (Seatbelt) and windows/ (srt-win), with common/ for what more than one of them
# compiles (the command line and the policy, the environment, the violations) and main
# in srt-launch.c. A program is its directory's *.c with common/*.c and LAUNCH_OS/*.c
# where it has them: srt-launch is linux/'s here and macos/'s on a Mac; windows/ goes
# into build/win/srt.exe only (make win). common/'s localproxy.c and winsys_posix.c, the
# proxies on the host's loopback and the POSIX side of winsys.h, serve the macOS and
# Windows paths: Linux leaves them out. Elsewhere the macOS and Windows paths are built
# for their tests (build/tests/macos-launch, test_macos_launch, build/tests/win-launch)
# and checked once more as the other system would see them (macos-compile; make win).
# The launcher's files include each other's headers by their path under srt-launch/.
ifeq ($(shell uname -s),Darwin)
LAUNCH_OS := macos
NOT_HERE_OBJ :=
else
LAUNCH_OS := linux
NOT_HERE_OBJ := $(addprefix $(BUILD)/obj/srt-launch/common/,winsys_posix.o localproxy.o)
endif
LOCAL_LAUNCH_OBJ := $(addprefix $(BUILD)/obj/srt-launch/,common/winsys_posix.o \
	common/localproxy.o common/env.o common/ca.o common/violations.o common/proxypipes.o)
MACOS_LAUNCH_OBJ := $(BUILD)/obj/srt-launch/macos/macos.o $(LOCAL_LAUNCH_OBJ)
WIN_LAUNCH_OBJ := $(BUILD)/obj/srt-launch/windows/winlaunch.o $(LOCAL_LAUNCH_OBJ)
$(BUILD)/obj/srt-launch/%.o: CFLAGS += -Isrt-launch
-include $(wildcard $(BUILD)/obj/srt-launch/*/*.d)

# In a pattern rule every % is replaced by the stem before secondary expansion, so the
# objects are derived from $$* with subst/addprefix, which use no %.
$(BUILD)/bin/%: $$(filter-out $(NOT_HERE_OBJ),$$(addprefix $(BUILD)/obj/,$$(subst .c,.o,$$(wildcard $$*/*.c $$*/common/*.c $$*/$(LAUNCH_OS)/*.c)))) $$(call prog_libs,$$*)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(LDLIBS)

# srt-seccomp runs at every launch, inside the sandbox, just before the command. Linked
# statically it starts without the dynamic loader, with fewer page faults at every launch
# (bench/launch.sh measures the launch).
# Sanitizer builds stay dynamic (ASan needs its runtime library).
#
# Its seccomp programs are built at build time: srt-seccomp-gen, the same sources linked
# with libseccomp, emits the sixteen of them (--allow-unix-sockets, --allow-nested-userns,
# --with-guard and --with-monitor, each on or off; the monitor's rules only come with the
# guard's) into seccomp_programs.h, which the installed
# srt-seccomp embeds (SRT_SECCOMP_PRECOMPILED) instead of building one at every launch.
SECCOMP_SRC := $(wildcard srt-seccomp/*.c)
SECCOMP_GEN := $(BUILD)/gen/srt-seccomp-gen
SECCOMP_HDR := $(BUILD)/gen/seccomp_programs.h

$(BUILD)/obj-gen/%.o: %.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(SECCOMP_GEN): $(SECCOMP_SRC:%.c=$(BUILD)/obj-gen/%.o) $(call prog_libs,srt-seccomp)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) \
	    -Wl,--as-needed $(shell $(PKG_CONFIG) --libs libseccomp libcap 2>/dev/null) -lpthread

$(SECCOMP_HDR): $(SECCOMP_GEN)
	@mkdir -p $(dir $@)
	@set -e; t=$$(mktemp -d); trap 'rm -rf "$$t"' EXIT; \
	{ echo '/* Generated by $(SECCOMP_GEN) (see srt-seccomp/filter.c): do not edit. */'; \
	  for u in 0 1; do for n in 0 1; do for g in 0 1; do for m in 0 1; do \
	    $(SECCOMP_GEN) --emit-bpf "$$t/p$$u$$n$$g$$m" \
	        $$( [ $$u = 1 ] && echo --allow-unix-sockets) \
	        $$( [ $$n = 1 ] && echo --allow-nested-userns) \
	        $$( [ $$g = 1 ] && echo --with-guard) \
	        $$( [ $$g$$m = 11 ] && echo --with-monitor); \
	    echo "static const unsigned char srt_seccomp_p$$u$$n$$g$$m[] = {"; \
	    od -An -v -tx1 "$$t/p$$u$$n$$g$$m" | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '};'; \
	  done; done; done; done; \
	  echo '/* [allow unix sockets][allow nested user namespaces][write guard][monitor] */'; \
	  echo 'static const unsigned char *const srt_seccomp_programs[2][2][2][2] = {'; \
	  for u in 0 1; do printf ' {'; for n in 0 1; do printf ' {'; for g in 0 1; do \
	    printf ' { srt_seccomp_p%s%s%s0, srt_seccomp_p%s%s%s1 },' $$u $$n $$g $$u $$n $$g; \
	  done; printf ' },'; done; echo ' },'; done; \
	  echo '};'; \
	  echo 'static const size_t srt_seccomp_program_len[2][2][2][2] = {'; \
	  for u in 0 1; do printf ' {'; for n in 0 1; do printf ' {'; for g in 0 1; do printf ' {'; \
	    for m in 0 1; do printf ' %s,' $$(wc -c < "$$t/p$$u$$n$$g$$m"); done; printf ' },'; \
	  done; printf ' },'; done; echo ' },'; done; \
	  echo '};'; } > $@.tmp; \
	mv $@.tmp $@

# (A recipe of its own: a target-specific CFLAGS would reach the generator's objects too,
# through the prerequisites.)
$(BUILD)/obj/srt-seccomp/filter.o: srt-seccomp/filter.c $(SECCOMP_HDR) $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DSRT_SECCOMP_PRECOMPILED -I$(BUILD)/gen -c -o $@ $<

ifneq ($(SAN),1)
$(BUILD)/bin/srt-seccomp: LDFLAGS += -static
$(BUILD)/bin/srt-seccomp: LDLIBS := $(shell $(PKG_CONFIG) --static --libs libcap 2>/dev/null)
else
$(BUILD)/bin/srt-seccomp: LDLIBS := -Wl,--as-needed $(shell $(PKG_CONFIG) --libs libcap 2>/dev/null)
endif

# srt-launch (srt) links libnl statically: only the few objects of libnl's core it uses
# (one RTM_NEWLINK to bring the sandbox's loopback up) are pulled in, and it starts without
# loading another shared library (bench/launch.sh). It stays dynamic for libc (NSS) and
# cJSON.
ifneq ($(SAN),1)
$(BUILD)/bin/srt-launch: LDLIBS := -Wl,--as-needed $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null) \
    -Wl,-Bstatic $(shell $(PKG_CONFIG) --static --libs libnl-3.0 2>/dev/null | sed 's/-lpthread//g') \
    -Wl,-Bdynamic -lpthread
endif

# srt is srt-launch under another name (it takes the reference CLI's flags).
$(BUILD)/bin/srt: $(BUILD)/bin/srt-launch
	ln -sf srt-launch $@

# Where the installed launcher finds its helpers is compiled in (lib/core/layout.c), and where
# the managed policy is (managed_path.c). The header is rewritten only when BINDIR,
# LIBEXECDIR or SYSCONFDIR change, so that a `make install` with another PREFIX than the
# build's rebuilds the objects that use them.
PATHS_H := $(BUILD)/gen/paths.h
$(PATHS_H): FORCE
	@mkdir -p $(dir $@)
	@case '$(BINDIR)' in /*) ;; *) echo 'BINDIR must be an absolute path' >&2; exit 1;; esac
	@case '$(LIBEXECDIR)' in /*) ;; *) echo 'LIBEXECDIR must be an absolute path' >&2; exit 1;; esac
	@case '$(SYSCONFDIR)' in /*) ;; *) echo 'SYSCONFDIR must be an absolute path' >&2; exit 1;; esac
	@case '$(BINDIR)$(LIBEXECDIR)$(SYSCONFDIR)' in *'"'*|*'\'*) echo 'BINDIR, LIBEXECDIR, SYSCONFDIR: no " or \\' >&2; exit 1;; esac
	@printf '%s\n' '/* Generated by the Makefile: do not edit. */' \
	    '#define SRT_BINDIR "$(BINDIR)"' '#define SRT_LIBEXECDIR "$(LIBEXECDIR)"' \
	    '#define SRT_SYSCONFDIR "$(SYSCONFDIR)"' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/obj/lib/core/layout.o $(BUILD)/obj/lib/core/managed_path.o: $(PATHS_H)

$(BUILD)/tests/%: tests/unit/%.c $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBSRT) $(LDLIBS)

# Small helper programs used by the bats suites (probes, stub servers).
$(BUILD)/tests/%: tests/helpers/%.c $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBSRT) $(LDLIBS)

# Libraries the bats suites preload into our programs (tests/preload/). Without the
# sanitizers: theirs want their runtime first among the libraries loaded.
$(BUILD)/tests/%.so: tests/preload/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=c11 -D_GNU_SOURCE $(WARN) -shared -fPIC -o $@ $< -ldl

# The macOS launch path, run here with stub programs for sandbox-exec and log.
$(BUILD)/tests/macos-launch: tests/helpers/macos-launch.c $(MACOS_LAUNCH_OBJ) $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrt-launch $(LDFLAGS) -o $@ $< $(MACOS_LAUNCH_OBJ) $(LIBSRT) $(LDLIBS)

# The Windows launch path, run here with winsys_posix.c and srt-win-fake as srt-win.
$(BUILD)/tests/win-launch: tests/helpers/win-launch.c $(WIN_LAUNCH_OBJ) $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrt-launch $(LDFLAGS) -o $@ $< $(WIN_LAUNCH_OBJ) $(LIBSRT) $(LDLIBS)

$(BUILD)/tests/test_macos_launch: tests/unit/test_macos_launch.c $(MACOS_LAUNCH_OBJ) $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -Isrt-launch $(LDFLAGS) -o $@ $< $(MACOS_LAUNCH_OBJ) \
	    $(LIBSRT) $(LDLIBS)

# The code of the macOS path compiled as a Mac compiles it: __APPLE__ defined, POSIX
# declarations only (no _GNU_SOURCE, so a Linux-only call is an error here), and the one
# Apple declaration it needs from tests/shim/apple. A syntax check: the objects for a Mac
# are made on a Mac. (lib/ as a whole still uses a few calls beyond POSIX, and the
# Linux launcher and proxies epoll, splice and namespaces: see macos.h.)
MACOS_SRC := $(addprefix srt-launch/,macos/macos.c macos/macos_apple.c common/winsys_posix.c \
	common/localproxy.c common/env.c common/ca.c common/violations.c common/proxypipes.c) \
	$(addprefix lib/sandbox/,plan_macos.c plan_macos_paths.c plan_macos_rules.c sbpl.c globre.c)
macos-compile:
	$(CC) -std=c11 -U_GNU_SOURCE -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 \
	    -D__APPLE__ $(WARN) $(LIB_INC) -Isrt-launch -Itests/shim/apple $(PKG_CFLAGS) \
	    -fsyntax-only $(MACOS_SRC)

# --- srt-win: the Windows helper --------------------------------------------------------
# `make win` cross-compiles it with mingw-w64: every source but the fake, warnings as
# errors. Natively, every source but the Win32 layer builds against the recording fake
# (srt-win/winapi_fake.c): the program as build/tests/srt-win-fake for the bats suite, and
# the logic linked into the unit test. Both link lib/'s archives (srt-win.exe those of
# sandbox, core and compat: WINLIBS_srtwin) for the allocator, buffer, string list, fatal
# errors and the plan entries (lib/sandbox/plan_ace.c).
WIN_CC      ?= x86_64-w64-mingw32-gcc
WIN_AR      ?= x86_64-w64-mingw32-ar
# The Win32 layer (winapi_win32*.c) sees winapi.h and the core, never srt-win.h: srt-win's
# logic calls it, never the other way round.
WIN_SRC     := $(filter-out srt-win/winapi_fake.c,$(wildcard srt-win/*.c))
WIN_OBJ     := $(WIN_SRC:%.c=build/win/obj/%.o)
WIN_CFLAGS  := -std=c11 -O2 $(WARN) -DSRT_VERSION='"$(VERSION)"' \
               -D__USE_MINGW_ANSI_STDIO=1 -D_WIN32_WINNT=0x0A00 \
               -DUNICODE -D_UNICODE -municode $(LIB_INC) -MMD -MP
WIN_LDLIBS  := -municode -static -ladvapi32 -lnetapi32 -lfwpuclnt -lshell32 -lole32 \
               -lcrypt32 -lws2_32 -lbcrypt
SWN_SRC     := $(filter-out srt-win/winapi_win32%.c,$(wildcard srt-win/*.c))
SWN_OBJ     := $(SWN_SRC:%.c=$(BUILD)/obj/%.o)

# The parts of libsrt that build for Windows (lib/core/sys.h, the WSAPoll event loop, the
# getaddrinfo resolver, the JSON reader and the plan srt-win reads and applies:
# lib/core/json_tree.c, lib/sandbox/plan_ace.c, plan_windows_read.c), and
# unit tests of them as Windows programs, which tests/windows/proxies-wine.bats runs under Wine.
# One archive per role, as on Linux: build/win/libsrt-DIR.a of WINLIB_SRC's files of lib/DIR,
# linked in LIB_DIRS's order (proxyd sandbox core compat: tls has no Windows build), each
# calling only those after it, and compat (the shims lib/core/sys.h declares) nothing in
# lib/ (tests/package/symbols.bats checks both builds; ARCHITECTURE.md, "The layers of
# lib/"). A program links the archives of its role (WINLIBS_*), in that order.
WINLIB_CFLAGS := $(filter-out -municode -DUNICODE -D_UNICODE,$(WIN_CFLAGS)) -D_GNU_SOURCE \
               -D_POSIX_THREAD_SAFE_FUNCTIONS
WINLIB_SRC  := $(addprefix lib/core/,util.c log.c addr.c policy.c settings_core.c \
                   settings_schema.c domain.c upstream.c http_parse.c buf.c utf8.c \
                   decision.c proxy_fd.c proxy_listen.c cred.c sha256.c util_time.c \
                   json_strict.c json_tree.c) \
               $(addprefix lib/proxyd/,evloop.c evloop_wsapoll.c socks5.c ssh_refusal.c \
                   guard.c proxy.c proxy_dial.c proxy_relay.c decider_names.c sigv4.c \
                   resolver.c resolver_query.c resolver_win.c relay.c relay_copy.c \
                   guard_local_win.c proxy_win.c) \
               lib/sandbox/plan_ace.c lib/sandbox/plan_windows_read.c \
               $(addprefix lib/compat/,sys_win.c wincmdline.c)
WINLIB_OBJ  := $(WINLIB_SRC:%.c=build/win/obj/%.o)
WIN_LIB_DIRS := $(filter-out tls,$(LIB_DIRS))
win_libs     = $(patsubst %,build/win/libsrt-%.a,$(1))
# The objects of lib/DIR ($(1)) in a list $(2) (a function: a % in a pattern rule's
# prerequisites would be the stem).
win_dir_objs = $(filter build/win/obj/lib/$(1)/%,$(2))
WINLIB       := $(call win_libs,$(WIN_LIB_DIRS))
WINLIBS_proxy  := $(call win_libs,proxyd core compat)
WINLIBS_srtwin := $(call win_libs,sandbox core compat)
# (clock_gettime is winpthreads'.)
WINLIB_LIBS := -static -lws2_32 -liphlpapi -lbcrypt -lpthread
WIN_UNIT    := build/win/tests/unit/test_evloop.exe build/win/tests/unit/test_resolver.exe \
               build/win/tests/unit/test_socks5.exe build/win/tests/unit/test_upstream.exe \
               build/win/tests/unit/test_guard_local.exe build/win/tests/unit/test_relay.exe \
               build/win/tests/unit/test_decision_format.exe \
               build/win/tests/policy-decide.exe

win: build/win/srt-win.exe build/win/tests/winprobe.exe $(WIN_UNIT) build/win/srt-socksd.exe \
    build/win/srt-httpd.exe build/win/tests/winsys-drive.exe build/win/srt.exe \
    build/win/srt-nomanaged.exe

build/win/obj/lib/%.o: lib/%.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WINLIB_CFLAGS) -c -o $@ $<

$(WINLIB): build/win/libsrt-%.a: $$(call win_dir_objs,$$*,$$(WINLIB_OBJ))
	rm -f $@
	$(WIN_AR) rcs $@ $^

build/win/tests/unit/%.exe: tests/unit/%.c $(WINLIB)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WINLIB_CFLAGS) -Itests/unit -o $@ $< $(WINLIB) $(WINLIB_LIBS)

# The proxies for Windows (lib/proxyd/proxy_win.c: what they refuse there), with the
# stand-ins for the Linux-only modules those refusals keep them from
# (lib/proxyd/proxy_absent_win.c): an object on their link lines alone, in no archive, so
# that no other program (srt.exe has the real managed.c and policy_source.c) has two
# definitions of a name to choose from by link order.
WINABSENT_OBJ := build/win/obj/lib/proxyd/proxy_absent_win.o
build/win/srt-socksd.exe: $(addprefix build/win/obj/,$(patsubst %.c,%.o,$(wildcard srt-socksd/*.c))) \
    $(WINABSENT_OBJ) $(WINLIBS_proxy)
	$(WIN_CC) -o $@ $(filter %.o,$^) $(WINLIBS_proxy) $(WINLIB_LIBS)

build/win/obj/srt-socksd/%.o: srt-socksd/%.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WINLIB_CFLAGS) -c -o $@ $<

build/win/srt-httpd.exe: $(addprefix build/win/obj/,$(patsubst %.c,%.o,$(wildcard srt-httpd/*.c))) \
    $(WINABSENT_OBJ) $(WINLIBS_proxy)
	$(WIN_CC) -o $@ $(filter %.o,$^) $(WINLIBS_proxy) $(WINLIB_LIBS)

build/win/obj/srt-httpd/%.o: srt-httpd/%.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WINLIB_CFLAGS) -Isrt-httpd -c -o $@ $<

build/win/tests/policy-decide.exe: tests/helpers/policy-decide.c $(WINLIB)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WINLIB_CFLAGS) -o $@ $< $(WINLIB) $(WINLIB_LIBS)

build/win/obj/%.o: %.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WIN_CFLAGS) -c -o $@ $<

build/win/srt-win.exe: $(WIN_OBJ) $(WINLIBS_srtwin)
	$(WIN_CC) -o $@ $(WIN_OBJ) $(WINLIBS_srtwin) $(WIN_LDLIBS)

# A console program the Wine tests run under srt-win (tests/windows/srt-win-wine.bats).
build/win/tests/%.exe: tests/helpers-win/%.c
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=c11 -O2 $(WARN) -o $@ $< -lws2_32 -ladvapi32

# srt's Windows launch path (srt-launch/winlaunch.h): its system layer winsys_win32.c is
# also run under Wine by a driver of its own, which links the Windows part of libsrt
# (WINLIB, every shared Windows archive) for the log and util code:
# tests/windows/srt-win-wine.bats with a probe as its child, tests/windows/proxies-wine.bats
# starting the real srt-socksd.exe and srt-httpd.exe as winlaunch.c does.
WINSYS_OBJ := build/win/obj/srt-launch/windows/winsys_win32.o
$(WINSYS_OBJ): WIN_CFLAGS += -Isrt-launch
-include $(wildcard build/win/obj/srt-launch/*/*.d)
build/win/tests/winsys-drive.exe: tests/helpers-win/winsys-drive.c $(WINSYS_OBJ) $(WINLIB)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(filter-out -municode -MMD -MP,$(WIN_CFLAGS)) -Isrt-launch -o $@ $< \
	    $(WINSYS_OBJ) $(WINLIB) -ladvapi32 $(WINLIB_LIBS)

# srt.exe: srt-launch's Windows entry (winmain.c) on the command line and policy code
# every build shares (cli.c), the Windows path (winlaunch.c, localproxy.c, winsys_win32.c)
# and the parts of srt-launch it uses (the violations, git's variables in env.c). Beside
# WINLIB it needs the settings reader and what it calls (WINSRT_LIB_SRC, compiled for it
# alone, with UTF-8 names, into archives of their own by role, build/win/srt/libsrt-DIR.a,
# each linked just before WINLIB's archive of the same role; the proxies do not link them:
# WINABSENT_OBJ stands in for some of them there), with
# cJSON, which Debian packages for Linux only: its Debian source, which scripts/deps
# fetches and checks into CJSON_DIR, compiled here.
CJSON_DIR   := build/cjson-src
CJSON_SRC   := $(CJSON_DIR)/cjson/cJSON.c
WINSRT_LIB_SRC := $(addprefix lib/core/,settings.c settings_json.c managed.c managed_path.c managed_acl.c \
                   policy_source.c jsregex.c path.c path_win.c path_sep.c glob.c violation.c \
                   violation_read.c decision_read.c lines.c managed_win.c cred_rx_win.c \
                   path_home_win.c) \
               $(addprefix lib/sandbox/,plan_windows.c wguard_names.c)
WINSRT_LIB_OBJ := $(WINSRT_LIB_SRC:%.c=build/win/obj/%.o)
WINSRT_LIB  := build/win/srt/libsrt-sandbox.a build/win/srt/libsrt-core.a
WINLIBS_srt := $(foreach d,sandbox core,build/win/srt/libsrt-$(d).a build/win/libsrt-$(d).a) \
               build/win/libsrt-compat.a
WINSRT_SRC  := $(addprefix srt-launch/,windows/winmain.c common/cli.c windows/winlaunch.c \
               common/localproxy.c common/env.c common/violations.c)
WINSRT_OBJ  := $(WINSRT_SRC:%.c=build/win/obj/%.o) $(WINSYS_OBJ)

$(CJSON_SRC) $(CJSON_DIR)/cjson/cJSON.h:
	@echo "make win: no cJSON source in $(CJSON_DIR) (srt.exe compiles Debian's): run scripts/deps" >&2
	@exit 1

# cJSON's own code with its own warnings: not ours to hold to -Werror.
build/win/obj/cjson/cJSON.o: $(CJSON_SRC)
	@mkdir -p $(dir $@)
	$(WIN_CC) -std=c99 -O2 -c -o $@ $<

$(WINSRT_LIB_SRC:%.c=build/win/obj/%.o) $(WINSRT_SRC:%.c=build/win/obj/%.o): $(CJSON_DIR)/cjson/cJSON.h

# cJSON with the settings reader, its one user.
$(WINSRT_LIB): build/win/srt/libsrt-%.a: $$(call win_dir_objs,$$*,$$(WINSRT_LIB_OBJ)) \
    $$(if $$(filter core,$$*),build/win/obj/cjson/cJSON.o)
	@mkdir -p $(dir $@)
	rm -f $@
	$(WIN_AR) rcs $@ $^

# srt.exe's names are UTF-8 (lib/core/sys_file.h): open and stat take them so.
$(WINSRT_LIB_SRC:%.c=build/win/obj/%.o): WINLIB_CFLAGS += -I$(CJSON_DIR) -DSRT_UTF8_NAMES

$(WINSRT_SRC:%.c=build/win/obj/%.o): build/win/obj/%.o: %.c $(VERSION_STAMP)
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WINLIB_CFLAGS) -DSRT_UTF8_NAMES -I$(CJSON_DIR) -Isrt-launch -c -o $@ $<

build/win/srt.exe: $(WINSRT_OBJ) $(WINLIBS_srt)
	$(WIN_CC) -municode -o $@ $(WINSRT_OBJ) $(WINLIBS_srt) -ladvapi32 -lshell32 \
	    -lole32 $(WINLIB_LIBS)

# srt.exe with a managed layer that reads nothing (tests/helpers-win/managed_none.c, linked
# ahead of the archive that holds managed_win.o), for the Wine tests of what comes after
# it: Wine owns every file by the Wine user, so srt.exe itself refuses to run there. Beside
# srt.exe, where it finds the proxies; never installed.
build/win/obj/tests/helpers-win/managed_none.o: tests/helpers-win/managed_none.c \
    $(CJSON_DIR)/cjson/cJSON.h
	@mkdir -p $(dir $@)
	$(WIN_CC) $(WINLIB_CFLAGS) -I$(CJSON_DIR) -c -o $@ $<

build/win/srt-nomanaged.exe: build/win/obj/tests/helpers-win/managed_none.o \
    $(WINSRT_OBJ) $(WINLIBS_srt)
	$(WIN_CC) -municode -o $@ $< $(WINSRT_OBJ) $(WINLIBS_srt) -ladvapi32 \
	    -lshell32 -lole32 $(WINLIB_LIBS)

$(BUILD)/tests/srt-win-fake: $(SWN_OBJ) $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/tests/test_srtwin: tests/unit/test_srtwin.c $(filter-out %/srt-win.o,$(SWN_OBJ)) $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -Isrt-win $(LDFLAGS) -o $@ $^

# check installs what it needs first (scripts/deps, as root), then builds and tests in a
# second make so that pkg-config sees the freshly installed libraries.
check:
	@scripts/deps
	@$(MAKE) --no-print-directory check-run

# The bats suites, in the order tests/LIST gives (comments and blank lines left out).
SUITES := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' tests/LIST)

check-run: check-list all $(UNIT_BIN) $(HELPER_BIN) $(PRELOAD_SO) macos-compile \
    $(BUILD)/tests/srt-win-fake $(CHECK_WIN)
	SRT_BUILD=$(abspath $(BUILD)) tests/run $(UNIT_BIN) $(SUITES)

# Every suite under tests/ (but the load suites, which check-load runs by their
# directory) is in tests/LIST once, and every line of it names a suite: a suite left out
# of the list would never run.
check-list:
	@mkdir -p $(BUILD)
	@find tests -name '*.bats' ! -path 'tests/load/*' | sort >$(BUILD)/suites.found
	@printf '%s\n' $(SUITES) | sort >$(BUILD)/suites.listed
	@dup=$$(uniq -d $(BUILD)/suites.listed); \
	 out=$$(comm -23 $(BUILD)/suites.found $(BUILD)/suites.listed); \
	 gone=$$(uniq $(BUILD)/suites.listed | comm -13 $(BUILD)/suites.found -); \
	 for f in $$out; do echo "tests/LIST: $$f is not listed (make check would not run it)"; done; \
	 for f in $$gone; do echo "tests/LIST: $$f names no suite"; done; \
	 for f in $$dup; do echo "tests/LIST: $$f is listed twice"; done; \
	 [ -z "$$out$$gone$$dup" ]

# Load and fault tests (about 10 minutes on 2 cores; not part of check).
check-load: all $(HELPER_BIN)
	SRT_BUILD=$(abspath $(BUILD)) tests/run $(sort $(wildcard tests/load/*.bats))

# --- fuzzing (clang, libFuzzer) -------------------------------------------
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 10
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -DSRT_VERSION='"$(VERSION)"' -g -O1 $(LIB_INC) -I$(BUILD)/gen $(PKG_CFLAGS) \
                -fsanitize=fuzzer,address,undefined
# libsrt instrumented for the fuzzers, compiled once for all of them (each target used to
# compile every lib/*/*.c again: most of CI's fuzz-smoke time).
FUZZ_LIB_CFLAGS := $(filter-out -fsanitize=%,$(FUZZ_CFLAGS)) -fsanitize=fuzzer-no-link,address,undefined
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=build/fuzz/obj/%.o)
FUZZ_LIB     := build/fuzz/libsrt.a

build/fuzz/obj/%.o: %.c $(PATHS_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_LIB_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(FUZZ_LIB_OBJ)

-include $(FUZZ_LIB_OBJ:.o=.d)

build/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB) $(PATHS_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB) $(PKG_LIBS)

# srt-win's plan reader: its own sources (with the fake) on the instrumented libsrt, whose
# JSON and plan readers it calls.
FUZZ_WIN_SRC := $(addprefix srt-win/,ace.c path.c util.c state.c winapi_fake.c \
                winapi_error.c winapi_dacl.c)
build/fuzz/fuzz_winplan: tests/fuzz/fuzz_winplan.c $(FUZZ_WIN_SRC) $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrt-win -o $@ $< $(FUZZ_WIN_SRC) $(FUZZ_LIB) $(PKG_LIBS)

fuzz: $(FUZZ_BIN)
	@set -e; for f in $(FUZZ_BIN); do \
	  n=$${f##*/}; mkdir -p build/fuzz/corpus-$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build/fuzz/corpus-$$n tests/fuzz/$${n#fuzz_} 2>build/fuzz/$$n.log \
	    || { tail -40 build/fuzz/$$n.log; exit 1; }; \
	  grep -E 'stat::number_of_executed_units' build/fuzz/$$n.log || true; \
	done

# A few seconds of each fuzzer, as TAP (CI runs this after the two checks).
fuzz-smoke: $(FUZZ_BIN)
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run tests/fuzz/smoke

bench: all
	@for b in bench/*.sh; do [ -x "$$b" ] && SRT_BUILD=$(abspath $(BUILD)) "$$b"; done; true

# The helpers go to LIBEXECDIR, where the installed launcher runs them from; the rest,
# with srt, to BINDIR. srt-httpd and srt-socksd also run on their own (section 8: proxies
# an administrator may run as services), so SBINDIR holds links to those same files:
# one program, found by name there, and the launcher never looks there.
SBINDIR ?= $(PREFIX)/sbin
HELPERS := srt-seccomp srt-httpd srt-socksd
DAEMONS := srt-httpd srt-socksd
USERPROGS := $(filter-out $(HELPERS),$(PROGS))
MAN := $(filter-out man/srt-win.1,$(wildcard man/*.[158]))
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(SBINDIR)
	install -m 755 $(USERPROGS:%=$(BUILD)/bin/%) $(DESTDIR)$(BINDIR)
	install -m 755 $(HELPERS:%=$(BUILD)/bin/%) $(DESTDIR)$(LIBEXECDIR)
	ln -sf srt-launch $(DESTDIR)$(BINDIR)/srt
	for d in $(DAEMONS); do \
	  ln -sfr $(DESTDIR)$(LIBEXECDIR)/$$d $(DESTDIR)$(SBINDIR)/$$d || exit 1; done
	for m in $(MAN); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
	  install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s || exit 1; done

uninstall:
	rm -f $(USERPROGS:%=$(DESTDIR)$(BINDIR)/%) $(DESTDIR)$(BINDIR)/srt
	rm -f $(HELPERS:%=$(DESTDIR)$(LIBEXECDIR)/%) $(DAEMONS:%=$(DESTDIR)$(SBINDIR)/%)
	for m in $(MAN); do rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; done
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null

# The Windows programs are installed as data, to be copied to a Windows machine (as
# Debian's win32-loader keeps its .exe): srt.exe with srt-win.exe and the two proxies
# beside it, where it looks for them, and srt-win's man page (srt's come with install).
# srt.exe needs cJSON's source (scripts/deps): without it install-win stops at make
# win's "run scripts/deps" before installing anything, never with a part of the set.
# install-srt-win installs srt-win.exe alone: the Debian package srt-win ships that,
# as debian/rules builds offline, without cJSON's source.
WINDIR    ?= $(PREFIX)/share/srt-win
WIN_PROGS := srt-win.exe srt.exe srt-httpd.exe srt-socksd.exe
install-win: $(WIN_PROGS:%=build/win/%)
	install -d $(DESTDIR)$(WINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(WIN_PROGS:%=build/win/%) $(DESTDIR)$(WINDIR)
	install -m 644 man/srt-win.1 $(DESTDIR)$(MANDIR)/man1

install-srt-win: build/win/srt-win.exe
	install -d $(DESTDIR)$(WINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 644 build/win/srt-win.exe $(DESTDIR)$(WINDIR)
	install -m 644 man/srt-win.1 $(DESTDIR)$(MANDIR)/man1

uninstall-win:
	rm -f $(WIN_PROGS:%=$(DESTDIR)$(WINDIR)/%) $(DESTDIR)$(MANDIR)/man1/srt-win.1
	-rmdir $(DESTDIR)$(WINDIR) 2>/dev/null

# --- Debian packages --------------------------------------------------------------------
# dpkg-buildpackage on a copy of the sources in $(DEBDIR)/srt, so that it leaves this tree
# and its build/ alone (the package is built for PREFIX=/usr, this tree for PREFIX); the
# .deb, .buildinfo and .changes files land in $(DEBDIR). DEB_FLAGS adds options (-B: srt
# alone, without srt-win); SRT_APPARMOR=yes or no decides the AppArmor profile
# (debian/rules). The make running this must not hand its jobserver to the package build.
DEBDIR    ?= build/deb
DEB_SRC   := Makefile README.md debian examples lib man $(wildcard srt-*)
DEB_FLAGS ?=
deb:
	rm -rf $(DEBDIR)/srt $(DEBDIR)/*.deb $(DEBDIR)/*.ddeb $(DEBDIR)/*.buildinfo \
	    $(DEBDIR)/*.changes
	mkdir -p $(DEBDIR)/srt
	cp -Rp $(DEB_SRC) $(DEBDIR)/srt/
	cd $(DEBDIR)/srt && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	    dpkg-buildpackage -us -uc -b -Jauto $(DEB_FLAGS)

# The C sources' layout is .clang-format's, as clang-format 14 (Debian 12's; another
# version lays some lines out otherwise) writes it: format rewrites every tracked C
# file so, check-format lists the ones that differ and fails (tests/package/format.bats).
CLANG_FORMAT ?= clang-format-14
FORMAT_SRC    = $(shell git ls-files -- '*.c' '*.h')

format:
	$(CLANG_FORMAT) -i $(FORMAT_SRC)

check-format:
	@command -v $(CLANG_FORMAT) >/dev/null || \
	    { echo "check-format: no $(CLANG_FORMAT) (scripts/deps installs it)" >&2; exit 1; }
	@bad=$$($(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SRC) 2>&1 | \
	    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u); \
	 for f in $$bad; do echo "$$f: not laid out as make format does"; done; [ -z "$$bad" ]

lint-man:
	mandoc -Tlint -Wwarning $(wildcard man/*.[158])

version:
	@echo $(VERSION)

clean:
	rm -rf build

FORCE:
.SECONDARY:
.PHONY: all check check-run check-list check-load fuzz fuzz-smoke bench install uninstall clean \
	lint-man format check-format version macos-compile win install-win install-srt-win uninstall-win deb FORCE
-include $(LIB_OBJ:.o=.d) $(wildcard $(BUILD)/obj/srt-*/*.d) $(wildcard $(BUILD)/obj-gen/srt-*/*.d) \
    $(wildcard build/win/obj/*/*.d build/win/obj/lib/*/*.d)
