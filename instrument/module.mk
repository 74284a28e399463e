# instrument/: the libclang source-to-source instrumenter (SPEC §3).
INSTRUMENT_SRCS := $(wildcard instrument/*.c)
$(eval $(call aa_tool_lib,instrument,$(INSTRUMENT_SRCS)))

# `make bench`: instrumenter time against clang -fsyntax-only (SPEC §8).
bench: bench-instrument
bench-instrument: $(B)/bin/autoanalyzer
	bash bench/instrument.sh
.PHONY: bench-instrument
