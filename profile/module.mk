# profile/: the experiment data model and its XML reader/writer.
PROFILE_SRCS := $(wildcard profile/*.c)
$(eval $(call aa_tool_lib,profile,$(PROFILE_SRCS)))

# `make bench`: writer/reader speed on a 1,024 x 500 x 18 experiment.
$(B)/bench/profile_io: $(B)/obj/bench/profile_io.o $(B)/lib/libaa_profile.a $(B)/lib/libaa_common.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(XML2_LIBS) -lz -lm
bench: bench-profile-io
bench-profile-io: $(B)/bench/profile_io
	$(B)/bench/profile_io
.PHONY: bench-profile-io
