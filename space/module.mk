# space/: the Program Space (SQLite and PostgreSQL backends, operators).
SPACE_SRCS := $(wildcard space/*.c)
$(eval $(call aa_tool_lib,space,$(SPACE_SRCS)))

# Test helper: writes the hand-built experiments of tests/space/fixture.h.
SPACE_MKEXP := $(B)/tests/space_mkexp
$(SPACE_MKEXP): $(B)/obj/tests/space/mkexp.o $(B)/lib/libaa_space.a $(B)/lib/libaa_profile.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)
ALL_TARGETS += $(SPACE_MKEXP)

# Benchmark: import of a 1,024 x 500 experiment and a perfdiff, both backends.
SPACE_BENCH := $(B)/bench/space_bench
$(SPACE_BENCH): $(B)/obj/bench/space_bench.o $(B)/lib/libaa_space.a $(B)/lib/libaa_profile.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)

bench-space: $(SPACE_BENCH)
	sh bench/space_bench.sh $(SPACE_BENCH)
bench: bench-space
.PHONY: bench-space

# Fuzz target for the export-format reader (fuzz/module.mk defines FUZZ_CC
# and FUZZ_SECONDS).
FUZZ_SPACE_SRCS := tests/space/fuzz_space.c $(SPACE_SRCS) $(wildcard profile/*.c) \
                   $(wildcard common/*.c)
$(B)/fuzz/fuzz_space: $(FUZZ_SPACE_SRCS) space/aa_space.h space/sp_internal.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $(XML2_CFLAGS) $(PQ_CFLAGS) -g -O1 \
	    -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined -o $@ $(FUZZ_SPACE_SRCS) \
	    $(SQLITE_LIBS) $(PQ_LIBS) $(XML2_LIBS) -lz -lm
fuzz: fuzz-space
fuzz-space: $(B)/fuzz/fuzz_space
	@mkdir -p $(B)/fuzz/corpus-space
	$(call fuzz_run,space,-max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	    $(B)/fuzz/corpus-space tests/data/space/fuzz-corpus)
.PHONY: fuzz-space

# `make bench-space-big`: the Program Space with two 16,384 x 500 runs (bench/space_big.sh).
bench-space-big: $(B)/bin/autoanalyzer $(B)/tests/aa_synth
	sh bench/space_big.sh $(B)
.PHONY: bench-space-big
