# collect/: merges per-rank profiles and region maps of an output directory.
COLLECT_SRCS := $(wildcard collect/*.c)
$(eval $(call aa_tool_lib,collect,$(COLLECT_SRCS)))

# `make bench-collect-big`: collect of 16,384 x 500 binary rank files on one
# thread and on one per CPU (bench/collect_big.sh).
bench-collect-big: $(B)/bin/autoanalyzer $(B)/tests/aa_synth
	sh bench/collect_big.sh $(B)
.PHONY: bench-collect-big
