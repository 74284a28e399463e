# AutoAnalyzer top-level build.
#
# One static library per component (libaa_<component>.a), the runtime that is
# linked into measured programs (libautoanalyzer-rt.a/.so), and the
# `autoanalyzer` command.  Each component directory has a module.mk that
# declares its sources with the helpers below; tests live in tests/.
#
#   make               build everything (installs missing packages as root)
#   make check         unit tests, sanitizer build of the unit tests, e2e tests
#   make demo          run the main job on a sample
#   make install PREFIX=/usr/local
#   make bench | fuzz  long-running benchmarks / fuzzing (not part of check)
#   make bench-diagnosis [QUICK=1]   the diagnosis validation suite
#   make bench-probes  the hand-written edge probes (bench/edge_probes.sh)

.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:

B       ?= build
SAN     ?=
PREFIX  ?= /usr/local
VERSION := 0.1.0

include $(B)/config.mk
$(B)/config.mk: mk/deps.sh mk/config.sh
	@mkdir -p $(@D)
	@sh mk/deps.sh
	@sh mk/config.sh > $@.tmp && mv $@.tmp $@

CC      ?= cc
ifeq ($(origin CC),default)
CC      := gcc
endif
OPT     ?= -O2
WARN    := -Wall -Wextra -Werror
CFLAGS_ALL = -std=c11 $(WARN) $(OPT) -g -fPIC -D_GNU_SOURCE \
             -DAA_VERSION='"$(VERSION)"' -I. $(XML2_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(LDFLAGS)
ifeq ($(SAN),1)
CFLAGS_ALL  += -fsanitize=address,undefined -fno-omit-frame-pointer \
               -fno-sanitize-recover=undefined
LDFLAGS_ALL += -fsanitize=address,undefined
OPT := -O1
endif

# Libraries every tool-side program links with (the runtime is separate).
EXT_LIBS = $(CLANG_LIBS) $(GSL_LIBS) $(SQLITE_LIBS) $(PQ_LIBS) $(XML2_LIBS) \
           -lz -lpthread -lm

TOOL_LIBS :=
CLI_SRCS  :=
ALL_TARGETS :=
UNIT_TESTS :=
E2E_TESTS :=
CLEAN_EXTRA :=

# $(call aa_objs,SOURCES) -> object paths
aa_objs = $(patsubst %.c,$(B)/obj/%.o,$(1))

# $(call aa_tool_lib,NAME,SOURCES): libaa_NAME.a from SOURCES, linked into
# the command and every unit test.
define aa_tool_lib
$(B)/lib/libaa_$(1).a: $(call aa_objs,$(2))
	@mkdir -p $$(@D)
	@rm -f $$@
	$$(AR) rcs $$@ $$^
TOOL_LIBS += $(B)/lib/libaa_$(1).a
$(1): $(B)/lib/libaa_$(1).a
.PHONY: $(1)
endef

$(B)/obj/%.o: %.c $(B)/config.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(EXTRA_CFLAGS_$(firstword $(subst /, ,$<))) -MMD -MP -c $< -o $@

# Per-directory extra flags: EXTRA_CFLAGS_<dir> (set in module.mk files).
EXTRA_CFLAGS_instrument = $(CLANG_CFLAGS)
EXTRA_CFLAGS_space = $(PQ_CFLAGS)

MODULES := $(filter-out tests/module.mk,$(sort $(wildcard */module.mk)))
include $(MODULES)

AA_BIN := $(B)/bin/autoanalyzer
$(AA_BIN): $(call aa_objs,$(CLI_SRCS)) $(TOOL_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(call aa_objs,$(CLI_SRCS)) \
	    -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)

all: $(AA_BIN) $(ALL_TARGETS)

# Tests come last: they link against every library declared above.
include tests/module.mk
include tests/diagnosis/diagnosis.mk
.PHONY: all check unit-tests check-unit check-san check-e2e demo install clean bench fuzz
include mk/install.mk

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

clean:
	rm -rf build build-san $(CLEAN_EXTRA)
