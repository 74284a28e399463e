# fuzz/: libFuzzer targets (clang -fsanitize=fuzzer,address,undefined).
#   make fuzz                  runs every target for FUZZ_SECONDS (60) each
#   make fuzz FUZZ_SECONDS=600
# New corpus entries go to $(B)/fuzz/corpus-*/ (the seed corpora under
# fuzz/corpus/ stay untouched); findings are written to $(B)/fuzz/NAME-* --
# copy them to the target's fuzz-regress directory (for the profile reader
# tests/data/profile/fuzz-regress/) and fix the reader.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang

# $(call fuzz_run,NAME,ARGUMENTS): runs $(B)/fuzz/fuzz_NAME for FUZZ_SECONDS
# with the libFuzzer ARGUMENTS (limits, dictionary, corpus directories), its
# output in $(B)/fuzz/NAME.log and its findings as $(B)/fuzz/NAME-crash-*
# (leak-*, timeout-*, oom-*), and prints one line per target:
#   fuzz NAME: E executions, R/s, F findings (log ...)
# A finding also shows the end of the log; copy the input to the target's
# fuzz-regress directory and fix the reader.
define fuzz_run
@rm -f $(B)/fuzz/$(1)-crash-* $(B)/fuzz/$(1)-leak-* $(B)/fuzz/$(1)-timeout-* $(B)/fuzz/$(1)-oom-*
@$(B)/fuzz/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
    -artifact_prefix=$(B)/fuzz/$(1)- $(2) >$(B)/fuzz/$(1).log 2>&1; st=$$?; \
  execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(B)/fuzz/$(1).log); \
  rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(B)/fuzz/$(1).log); \
  found=$$(ls $(B)/fuzz/$(1)-crash-* $(B)/fuzz/$(1)-leak-* $(B)/fuzz/$(1)-timeout-* \
           $(B)/fuzz/$(1)-oom-* 2>/dev/null | wc -l); \
  echo "fuzz $(1): $${execs:-0} executions, $${rate:-0}/s, $$found findings (log $(B)/fuzz/$(1).log)"; \
  [ $$st = 0 ] || { tail -25 $(B)/fuzz/$(1).log; echo "fuzz $(1): keep the input as a regression test and fix the reader"; }
endef
FUZZ_PROFILE_SRCS := fuzz/fuzz_profile.c $(wildcard profile/*.c) $(wildcard common/*.c)

$(B)/fuzz/fuzz_profile: $(FUZZ_PROFILE_SRCS) profile/aa_profile.h common/aa_common.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $(XML2_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $@ $(FUZZ_PROFILE_SRCS) $(XML2_LIBS) -lz -lm

fuzz: fuzz-profile
fuzz-profile: $(B)/fuzz/fuzz_profile
	@mkdir -p $(B)/fuzz/corpus-profile
	$(call fuzz_run,profile,-max_len=16384 -timeout=10 -rss_limit_mb=2048 -dict=fuzz/profile.dict \
	    $(B)/fuzz/corpus-profile fuzz/corpus/profile tests/data/profile/fuzz-regress)
.PHONY: fuzz-profile

# -- fuzz-elf: the embedded region map reader (profile/regionmap_elf.c).
# Seeds: fuzz/corpus/elf/ (small objects carrying maps); findings go to
# tests/data/elf/fuzz-regress/ (replayed by test_regionmap_elf).
FUZZ_ELF_SRCS := fuzz/fuzz_elf.c $(wildcard profile/*.c) $(wildcard common/*.c)

$(B)/fuzz/fuzz_elf: $(FUZZ_ELF_SRCS) profile/aa_profile.h common/aa_common.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $(XML2_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $@ $(FUZZ_ELF_SRCS) $(XML2_LIBS) -lz -lm

fuzz: fuzz-elf
fuzz-elf: $(B)/fuzz/fuzz_elf
	@mkdir -p $(B)/fuzz/corpus-elf
	$(call fuzz_run,elf,-max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	    $(B)/fuzz/corpus-elf fuzz/corpus/elf tests/data/elf/fuzz-regress)
.PHONY: fuzz-elf

# The instrumenter: generated and mutated C through aa_instrument_file (the
# seed corpus is the torture suite; crashes go to
# tests/data/instrument/fuzz-regress/, which instrument_fuzz_regress.t runs).
FUZZ_INSTRUMENT_SRCS := fuzz/fuzz_instrument.c $(wildcard instrument/*.c) $(wildcard profile/*.c) \
                        $(wildcard common/*.c)

$(B)/fuzz/fuzz_instrument: $(FUZZ_INSTRUMENT_SRCS) $(wildcard instrument/*.h) common/aa_common.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $(CLANG_CFLAGS) $(XML2_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $@ $(FUZZ_INSTRUMENT_SRCS) $(CLANG_LIBS) $(XML2_LIBS) -lz -lm

fuzz: fuzz-instrument
fuzz-instrument: $(B)/fuzz/fuzz_instrument
	@mkdir -p $(B)/fuzz/corpus-instrument
	$(call fuzz_run,instrument,-max_len=8192 -timeout=20 -rss_limit_mb=4096 \
	    -dict=fuzz/instrument.dict $(B)/fuzz/corpus-instrument fuzz/corpus/instrument \
	    tests/instrument/torture tests/data/instrument/fuzz-regress)
.PHONY: fuzz-instrument

# Regression replay of the instrumenter's fuzz inputs without libFuzzer: a
# TAP program among the unit tests (release and sanitizer builds).
FUZZ_REGRESS_LIBS = $(B)/lib/libaa_instrument.a $(B)/lib/libaa_profile.a $(B)/lib/libaa_common.a
$(B)/tests/fuzz_instrument_regress: $(call aa_objs,fuzz/fuzz_instrument.c fuzz/fuzz_replay.c) \
                                    $(FUZZ_REGRESS_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) -Wl,--start-group $(FUZZ_REGRESS_LIBS) \
	    -Wl,--end-group $(EXT_LIBS)
UNIT_TESTS += $(B)/tests/fuzz_instrument_regress

# ---- the other readers of the command line ------------------------------
# One template per target: the libFuzzer binary ($(B)/fuzz/fuzz_NAME, clang)
# and a replay of its seed corpus fuzz/corpus/NAME/ and kept crash inputs
# tests/data/NAME/fuzz-regress/ without libFuzzer (fuzz/fuzz_replay.c), a
# TAP program among the unit tests, so every crash found stays a test.
#   nightly    the nightly configuration (cli/nightly_cfg.c)
#   plan       filter, plan and refine files (instrument/filter.c)
#   pack       the runtime's binary profile of the MPI gather (runtime/pack.c)
#   cc_args    the argument handling of `autoanalyzer cc` (wrap/args.c)
#   regionmap  region maps as collect reads and merges them
#   binary     binary experiments (profile/binary.c), checksums fixed up too
#   mpip       mpiP reports (report/import_mpip.c, `import --format mpip`)
# `make fuzz` runs each for FUZZ_SECONDS and prints one line per target:
# executions, executions per second and findings (crash-*/leak-*/timeout-*
# files written under $(B)/fuzz/).
FUZZ_SRCS_nightly   := cli/nightly_cfg.c $(wildcard common/*.c)
FUZZ_SRCS_plan      := instrument/filter.c instrument/pfilter.c $(wildcard profile/*.c) \
                       $(wildcard common/*.c)
FUZZ_SRCS_pack      := runtime/pack.c $(wildcard profile/*.c) $(wildcard common/*.c)
FUZZ_SRCS_cc_args   := wrap/args.c wrap/mpi.c $(wildcard common/*.c)
FUZZ_SRCS_regionmap := $(wildcard collect/*.c) $(wildcard profile/*.c) $(wildcard common/*.c)
FUZZ_SRCS_binary    := $(wildcard profile/*.c) $(wildcard common/*.c)
FUZZ_SRCS_mpip      := report/import_mpip.c report/import_tau.c $(wildcard profile/*.c) $(wildcard common/*.c)
FUZZ_OBJS_nightly   := $(B)/obj/cli/nightly_cfg.o
FUZZ_OBJS_pack      := $(B)/obj/runtime/pack.o
FUZZ_NEW_TARGETS    := nightly plan pack cc_args regionmap binary
FUZZ_NEW_TARGETS    += mpip

define fuzz_target
$(B)/fuzz/fuzz_$(1): fuzz/fuzz_$(1).c fuzz/fuzz_file.h $$(FUZZ_SRCS_$(1)) $(B)/config.mk
	@mkdir -p $$(@D)
	$$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $$(XML2_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $$@ fuzz/fuzz_$(1).c $$(FUZZ_SRCS_$(1)) $$(XML2_LIBS) -lz -lm

fuzz: fuzz-$(1)
fuzz-$(1): $(B)/fuzz/fuzz_$(1)
	@mkdir -p $(B)/fuzz/corpus-$(1)
	$$(call fuzz_run,$(1),-max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	    $(B)/fuzz/corpus-$(1) fuzz/corpus/$(1) tests/data/$(1)/fuzz-regress)
.PHONY: fuzz-$(1)

$(B)/tests/fuzz_$(1)_regress: $(call aa_objs,fuzz/fuzz_$(1).c fuzz/fuzz_replay.c) $$(FUZZ_OBJS_$(1)) \
                              $(B)/bin/autoanalyzer
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS_ALL) -o $$@ $$(filter %.o,$$^) -Wl,--start-group $$(TOOL_LIBS) \
	    -Wl,--end-group $$(EXT_LIBS)
UNIT_TESTS += $(B)/tests/fuzz_$(1)_regress
endef
$(foreach t,$(FUZZ_NEW_TARGETS),$(eval $(call fuzz_target,$(t))))
