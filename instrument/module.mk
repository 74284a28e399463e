# instrument/: the libclang source-to-source instrumenter (SPEC §3).
INSTRUMENT_SRCS := $(wildcard instrument/*.c)
$(eval $(call aa_tool_lib,instrument,$(INSTRUMENT_SRCS)))

# `make bench`: instrumenter time against clang -fsyntax-only (SPEC §8).
bench: bench-instrument
bench-instrument: $(B)/bin/autoanalyzer
	bash bench/instrument.sh
.PHONY: bench-instrument

# The Fortran parser bridge (instrument/fortran/aa_fparse.cpp, the only C++
# of the project): flang's parser (libFortranParser, flang-19) as a small
# tool, bin/aa-fparse beside the command, run by instrument/fortran.c.
AA_FPARSE := $(B)/bin/aa-fparse
FLANG_VERSION := $(patsubst llvm-%,%,$(notdir $(FLANG_DIR)))
$(B)/obj/instrument/fortran/aa_fparse.o: instrument/fortran/aa_fparse.cpp $(B)/config.mk
	@mkdir -p $(@D)
	@test -n "$(FLANG_DIR)" || { echo "autoanalyzer: flang's parser (libflang-19-dev, llvm-19-dev) is not installed" >&2; exit 1; }
	$(CXX) -std=c++20 -O1 -w -DFLANG_LITTLE_ENDIAN=1 -I$(FLANG_DIR)/include -c $< -o $@
$(AA_FPARSE): $(B)/obj/instrument/fortran/aa_fparse.o
	@mkdir -p $(@D)
	$(CXX) -o $@ $< $(FLANG_DIR)/lib/libFortranParser.a $(FLANG_DIR)/lib/libFortranCommon.a \
	    $(FLANG_DIR)/lib/libFortranDecimal.a -L$(FLANG_DIR)/lib -Wl,-rpath,$(FLANG_DIR)/lib -lLLVM-$(FLANG_VERSION)
ALL_TARGETS += $(AA_FPARSE)
