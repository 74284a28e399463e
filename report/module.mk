# report/: the self-contained HTML report and the run-to-run comparison.
REPORT_SRCS := $(wildcard report/*.c)
$(eval $(call aa_tool_lib,report,$(REPORT_SRCS)))

# `make bench-report`: size and load time of the report of 10,000 ranks x
# 2,000 regions (bench/report_bench.c, bench/report_bench.sh).
REPORT_BENCH := $(B)/bench/report_bench
$(REPORT_BENCH): $(B)/obj/bench/report_bench.o $(TOOL_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)
bench-report: $(REPORT_BENCH)
	bench/report_bench.sh $(B)
.PHONY: bench-report

# `make bench-report-scale`: `autoanalyzer report` end to end on a 16,384 x
# 500-region experiment: CPU, wall, peak memory, page size, Chromium load
# time (bench/report_scale.sh; bench/report_scale.md).
bench-report-scale: all
	bench/report_scale.sh $(B)
.PHONY: bench-report-scale
