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
