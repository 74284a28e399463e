# profile/: the experiment data model and its XML reader/writer.
# zlib_dl.c is the runtime's (runtime/module.mk): the tools link zlib
PROFILE_SRCS := $(filter-out profile/zlib_dl.c,$(wildcard profile/*.c))
$(eval $(call aa_tool_lib,profile,$(PROFILE_SRCS)))

# `make bench`: writer/reader speed on a 1,024 x 500 x 18 experiment.
$(B)/bench/profile_io: $(B)/obj/bench/profile_io.o $(B)/lib/libaa_profile.a $(B)/lib/libaa_common.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(XML2_LIBS) -lz -lm
bench: bench-profile-io
bench-profile-io: $(B)/bench/profile_io
	$(B)/bench/profile_io
.PHONY: bench-profile-io

# `make bench-profile-format`: XML vs binary experiment size and read/write
# speed on a synthetic 16,384 x 500 x 18 experiment (bench/profile_format.c).
PROFILE_FORMAT_BENCH := $(B)/bench/profile_format
$(PROFILE_FORMAT_BENCH): $(B)/obj/bench/profile_format.o $(B)/bin/autoanalyzer
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)
bench-profile-format: $(PROFILE_FORMAT_BENCH)
	$(PROFILE_FORMAT_BENCH) $(BENCH_FORMAT_ARGS)
bench: bench-profile-format
.PHONY: bench-profile-format
