# collect/: merges per-rank profiles and region maps of an output directory.
COLLECT_SRCS := $(wildcard collect/*.c)
$(eval $(call aa_tool_lib,collect,$(COLLECT_SRCS)))
