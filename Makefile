# srt: one GNU Makefile for the whole suite.
#   make                 every program in $(BUILD)/bin
#   make check           unit tests, then the bats suites; last line "N passed, N failed[, N skipped]"
#   make check SAN=1     the same under ASan and UBSan (built in build/san)
#   make fuzz            libFuzzer targets, each run for FUZZ_SECONDS
#   make bench           benchmarks (ratios against a baseline measured in the same run)
#   make install         PREFIX (default /usr/local) and DESTDIR honoured

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
CC      ?= cc
SAN     ?= 0
ifeq ($(SAN),1)
BUILD   ?= build/san
else
BUILD   ?= build
endif

PKGS    := libcjson libcares libseccomp libcap libnl-3.0
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN    := -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wcast-qual \
           -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -fstack-protector-strong -Ilib $(PKG_CFLAGS) -MMD -MP
ifeq ($(SAN),1)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
else
CFLAGS  += -D_FORTIFY_SOURCE=2
endif
LDLIBS  += -Wl,--as-needed $(PKG_LIBS)

# Programs are discovered: every srt-*/ directory with a main in srt-X/srt-X.c.
PROGS   := $(patsubst %/,%,$(filter-out srt-win/,$(wildcard srt-*/)))
LIB_SRC := $(wildcard lib/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIBSRT  := $(BUILD)/libsrt.a
BINS    := $(PROGS:%=$(BUILD)/bin/%)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/tests/%)

all: $(BINS) $(if $(filter srt-launch,$(PROGS)),$(BUILD)/bin/srt)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIBSRT): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

.SECONDEXPANSION:
# In a pattern rule every % is replaced by the stem before secondary expansion, so the
# objects are derived from $$* with subst/addprefix, which use no %.
$(BUILD)/bin/%: $$(addprefix $(BUILD)/obj/,$$(subst .c,.o,$$(wildcard $$*/*.c))) $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBSRT) $(LDLIBS)

# srt-seccomp runs at every launch, inside the sandbox, just before the command. Linked
# statically it starts without the dynamic loader: about a third fewer page faults and
# 2 ms less per launch on a virtual machine where faults are dear (bench/launch.sh).
# Sanitizer builds stay dynamic (ASan needs its runtime library).
ifneq ($(SAN),1)
$(BUILD)/bin/srt-seccomp: LDFLAGS += -static
$(BUILD)/bin/srt-seccomp: LDLIBS := $(shell pkg-config --static --libs libseccomp libcap 2>/dev/null)
endif

# srt-launch (srt) links libnl statically: only the few objects of libnl's core it uses
# (one RTM_NEWLINK to bring the sandbox's loopback up) are pulled in, and it starts without
# loading another shared library (bench/launch.sh). It stays dynamic for libc (NSS) and
# cJSON.
ifneq ($(SAN),1)
$(BUILD)/bin/srt-launch: LDLIBS := -Wl,--as-needed $(shell pkg-config --libs libcjson 2>/dev/null) \
    -Wl,-Bstatic $(shell pkg-config --static --libs libnl-3.0 2>/dev/null | sed 's/-lpthread//g') \
    -Wl,-Bdynamic -lpthread
endif

# srt is srt-launch under another name (it takes the reference CLI's flags).
$(BUILD)/bin/srt: $(BUILD)/bin/srt-launch
	ln -sf srt-launch $@

$(BUILD)/tests/%: tests/unit/%.c $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIBSRT) $(LDLIBS)

# Small helper programs used by the bats suites (probes, stub servers).
$(BUILD)/tests/%: tests/helpers/%.c $(LIBSRT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBSRT) $(LDLIBS)

# check installs what it needs first (scripts/deps, as root), then builds and tests in a
# second make so that pkg-config sees the freshly installed libraries.
check:
	@scripts/deps
	@$(MAKE) --no-print-directory check-run

check-run: all $(UNIT_BIN) $(HELPER_BIN)
	SRT_BUILD=$(abspath $(BUILD)) tests/run $(UNIT_BIN) $(sort $(wildcard tests/*.bats)) \
	    $(sort $(wildcard tests/security/*.bats))

# Load and fault tests (about 10 minutes on 2 cores; not part of check).
check-load: all $(HELPER_BIN)
	SRT_BUILD=$(abspath $(BUILD)) tests/run $(sort $(wildcard tests/load/*.bats))

# --- fuzzing (clang, libFuzzer) -------------------------------------------
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 10
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 -Ilib $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined

build/fuzz/%: tests/fuzz/%.c $(LIB_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(PKG_LIBS)

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

MAN := $(wildcard man/*.[158])
install: all
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)
	$(if $(filter srt-launch,$(PROGS)),ln -sf srt-launch $(DESTDIR)$(BINDIR)/srt)
	for m in $(MAN); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
	  install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s; done

lint-man:
	mandoc -Tlint -Wwarning $(MAN)

clean:
	rm -rf build

.SECONDARY:
.PHONY: all check check-run check-load fuzz fuzz-smoke bench install clean lint-man
-include $(LIB_OBJ:.o=.d) $(wildcard $(BUILD)/obj/srt-*/*.d)
