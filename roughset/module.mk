# roughset/: decision tables, discernibility, core, reducts, local reducts.
ROUGHSET_SRCS := $(wildcard roughset/*.c)
$(eval $(call aa_tool_lib,roughset,$(ROUGHSET_SRCS)))
