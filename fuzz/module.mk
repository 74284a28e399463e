# fuzz/: libFuzzer targets (clang -fsanitize=fuzzer,address,undefined).
#   make fuzz                  runs every target for FUZZ_SECONDS (60) each
#   make fuzz FUZZ_SECONDS=600
# New corpus entries go to $(B)/fuzz/corpus-*/ (the seed corpora under
# fuzz/corpus/ stay untouched); crashes are written to $(B)/fuzz/ -- copy
# them to tests/data/profile/fuzz-regress/ and fix the reader.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_PROFILE_SRCS := fuzz/fuzz_profile.c $(wildcard profile/*.c) $(wildcard common/*.c)

$(B)/fuzz/fuzz_profile: $(FUZZ_PROFILE_SRCS) profile/aa_profile.h common/aa_common.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $(XML2_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $@ $(FUZZ_PROFILE_SRCS) $(XML2_LIBS) -lz -lm

fuzz: fuzz-profile
fuzz-profile: $(B)/fuzz/fuzz_profile
	@mkdir -p $(B)/fuzz/corpus-profile
	$(B)/fuzz/fuzz_profile -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
	    -rss_limit_mb=2048 -dict=fuzz/profile.dict -artifact_prefix=$(B)/fuzz/ \
	    $(B)/fuzz/corpus-profile fuzz/corpus/profile tests/data/profile/fuzz-regress
.PHONY: fuzz-profile

# -- fuzz-elf: the embedded region map reader (profile/regionmap_elf.c).
# Seeds: fuzz/corpus/elf/ (small objects carrying maps); findings go to
# tests/data/elf/fuzz-regress/ (replayed by test_regionmap_elf).
FUZZ_ELF_SRCS := fuzz/fuzz_elf.c $(wildcard profile/*.c) $(wildcard common/*.c)

$(B)/fuzz/fuzz_elf: $(FUZZ_ELF_SRCS) profile/aa_profile.h common/aa_common.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $(XML2_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $@ $(FUZZ_ELF_SRCS) $(XML2_LIBS) -lz -lm

fuzz: fuzz-elf
fuzz-elf: $(B)/fuzz/fuzz_elf
	@mkdir -p $(B)/fuzz/corpus-elf
	$(B)/fuzz/fuzz_elf -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(B)/fuzz/ \
	    $(B)/fuzz/corpus-elf fuzz/corpus/elf tests/data/elf/fuzz-regress
.PHONY: fuzz-elf

# The instrumenter: generated and mutated C through aa_instrument_file (the
# seed corpus is the torture suite; crashes go to
# tests/data/instrument/fuzz-regress/, which instrument_fuzz_regress.t runs).
FUZZ_INSTRUMENT_SRCS := fuzz/fuzz_instrument.c $(wildcard instrument/*.c) $(wildcard profile/*.c) \
                        $(wildcard common/*.c)

$(B)/fuzz/fuzz_instrument: $(FUZZ_INSTRUMENT_SRCS) $(wildcard instrument/*.h) common/aa_common.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. $(CLANG_CFLAGS) $(XML2_CFLAGS) -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $@ $(FUZZ_INSTRUMENT_SRCS) $(CLANG_LIBS) $(XML2_LIBS) -lz -lm

fuzz: fuzz-instrument
fuzz-instrument: $(B)/fuzz/fuzz_instrument
	@mkdir -p $(B)/fuzz/corpus-instrument
	$(B)/fuzz/fuzz_instrument -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=20 \
	    -rss_limit_mb=4096 -dict=fuzz/instrument.dict -artifact_prefix=$(B)/fuzz/instrument- \
	    $(B)/fuzz/corpus-instrument fuzz/corpus/instrument tests/instrument/torture \
	    tests/data/instrument/fuzz-regress
.PHONY: fuzz-instrument

# Regression replay of the instrumenter's fuzz inputs without libFuzzer: a
# TAP program among the unit tests (release and sanitizer builds).
FUZZ_REGRESS_LIBS = $(B)/lib/libaa_instrument.a $(B)/lib/libaa_profile.a $(B)/lib/libaa_common.a
$(B)/tests/fuzz_instrument_regress: $(call aa_objs,fuzz/fuzz_instrument.c fuzz/fuzz_instrument_regress.c) \
                                    $(FUZZ_REGRESS_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) -Wl,--start-group $(FUZZ_REGRESS_LIBS) \
	    -Wl,--end-group $(EXT_LIBS)
UNIT_TESTS += $(B)/tests/fuzz_instrument_regress
