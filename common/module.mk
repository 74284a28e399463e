# common/: shared utilities (errors, buffers, atomic files, JSON, numbers).
COMMON_SRCS := $(wildcard common/*.c)
$(eval $(call aa_tool_lib,common,$(COMMON_SRCS)))
