# analyze/: the offline analysis (SPEC §5), its renderings, and the
# synthetic experiment generator used by tests and benchmarks.
ANALYZE_SRCS := $(wildcard analyze/*.c)
$(eval $(call aa_tool_lib,analyze,$(ANALYZE_SRCS)))

# Test helper: writes synthetic experiments (used by tests/e2e/analyze*.t).
# It depends on the command so every tool library exists before it links.
AA_SYNTH := $(B)/tests/aa_synth
$(AA_SYNTH): $(B)/obj/tests/tools/aa_synth.o $(B)/lib/libaa_analyze.a $(B)/bin/autoanalyzer
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)
ALL_TARGETS += $(AA_SYNTH)

# `make bench`: analysis time for P x R up to 16,384 x 500 (bench/analyze_bench.c).
ANALYZE_BENCH := $(B)/bench/analyze_bench
$(ANALYZE_BENCH): $(B)/obj/bench/analyze_bench.o $(B)/lib/libaa_analyze.a $(B)/bin/autoanalyzer
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)
bench-analyze: $(ANALYZE_BENCH)
	$(ANALYZE_BENCH) --read
bench: bench-analyze
.PHONY: bench-analyze
