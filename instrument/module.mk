# instrument/: the libclang source-to-source instrumenter (SPEC §3).
INSTRUMENT_SRCS := $(wildcard instrument/*.c)
$(eval $(call aa_tool_lib,instrument,$(INSTRUMENT_SRCS)))
