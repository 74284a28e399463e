# profile/: the experiment data model and its XML reader/writer.
PROFILE_SRCS := $(wildcard profile/*.c)
$(eval $(call aa_tool_lib,profile,$(PROFILE_SRCS)))
