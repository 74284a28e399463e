# runtime/module.mk -- the measurement runtime linked into user programs:
#   $(B)/lib/libautoanalyzer.{a,so}      probes, clocks, counters, I/O
#                                        interposition, profiles (no MPI)
#   $(B)/lib/libautoanalyzer-mpi.{a,so}  PMPI wrappers and MPI collection
# Link: MPI programs  -lautoanalyzer-mpi -lautoanalyzer <mpi libs>
#       others        -lautoanalyzer
# (static: add -lm; both .so files need no extra libraries).  The libraries
# carry what they need of common/ and profile/ (the XML writer and the
# binary experiment code, never the libxml2 reader); their copy of
# profile/binary.c reaches zlib through dlopen (profile/zlib_dl.h), so
# neither library links zlib.  The MPI wrappers are generated from
# runtime/mpi_prototypes.txt by runtime/mpi_gen.pl.  Test programs
# (tests/runtime/) and the benchmarks (bench/probe.c, bench/overhead.sh) are
# built here too.

EXTRA_CFLAGS_runtime = $(MPI_CFLAGS)

RT_CORE_SRCS := runtime/probe.c runtime/user.c runtime/counters.c runtime/io.c \
                runtime/output.c runtime/crash.c runtime/pack.c
RT_SHARED_SRCS := common/buf.c common/err.c common/file.c common/util.c \
                  profile/model.c profile/xml_write.c profile/zlib_dl.c
RT_BINARY_SRC := profile/binary.c
RT_CORE_OBJS := $(call aa_objs,$(RT_CORE_SRCS))
RT_SHARED_OBJS := $(call aa_objs,$(RT_SHARED_SRCS)) $(B)/obj/rt/profile/binary.o
RT_GEN := $(B)/gen/runtime/mpi_wrappers.c
RT_MPI_OBJS := $(call aa_objs,runtime/mpi.c) $(B)/obj/gen/runtime/mpi_wrappers.o
RT_LIBDIR := $(B)/lib
RT_LIBS := $(RT_LIBDIR)/libautoanalyzer.a $(RT_LIBDIR)/libautoanalyzer.so \
           $(RT_LIBDIR)/libautoanalyzer-mpi.a $(RT_LIBDIR)/libautoanalyzer-mpi.so

$(RT_GEN): runtime/mpi_prototypes.txt runtime/mpi_gen.pl
	@mkdir -p $(@D)
	perl runtime/mpi_gen.pl runtime/mpi_prototypes.txt > $@.tmp && mv $@.tmp $@

# the runtime's own object of the binary experiment code: zlib by dlopen
$(B)/obj/rt/profile/binary.o: $(RT_BINARY_SRC) $(B)/config.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -DAA_ZLIB_DLOPEN -MMD -MP -c $< -o $@

$(B)/obj/gen/runtime/mpi_wrappers.o: $(RT_GEN) runtime/rt_mpi.h runtime/rt_internal.h $(B)/config.mk
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(MPI_CFLAGS) -MMD -MP -c $< -o $@

$(RT_LIBDIR)/libautoanalyzer.a: $(RT_CORE_OBJS) $(RT_SHARED_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(RT_LIBDIR)/libautoanalyzer.so: $(RT_CORE_OBJS) $(RT_SHARED_OBJS) runtime/exports.map
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -shared -Wl,-soname,libautoanalyzer.so \
	    -Wl,--version-script=runtime/exports.map -o $@ $(RT_CORE_OBJS) $(RT_SHARED_OBJS) \
	    -ldl -lpthread -lm

$(RT_LIBDIR)/libautoanalyzer-mpi.a: $(RT_MPI_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(RT_LIBDIR)/libautoanalyzer-mpi.so: $(RT_MPI_OBJS) $(RT_SHARED_OBJS) $(RT_LIBDIR)/libautoanalyzer.so runtime/exports-mpi.map
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -shared -Wl,-soname,libautoanalyzer-mpi.so \
	    -Wl,--version-script=runtime/exports-mpi.map -o $@ $(RT_MPI_OBJS) $(RT_SHARED_OBJS) \
	    -L$(RT_LIBDIR) -Wl,-rpath,'$$ORIGIN' -lautoanalyzer $(MPI_LIBS) -ldl -lpthread -lm

runtime: $(RT_LIBS)
.PHONY: runtime
ALL_TARGETS += $(RT_LIBS)

# ---- test programs (tests/runtime/), run by tests/e2e/runtime*.t ------------
RT_TEST_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -I.
RT_RPATH := -Wl,-rpath,'$$ORIGIN/../lib'
RT_MPI_TESTS := rt_mpi rt_crash rt_throttle
RT_TESTS := rt_serial rt_pthread rt_stdio rt_settings rt_sigterm rt_load rt_gate
RT_TEST_BINS := $(addprefix $(B)/tests/,$(RT_MPI_TESTS) $(RT_TESTS) rt_serial_static rt_pthread_tsan runtime_dump)

$(addprefix $(B)/tests/,$(RT_MPI_TESTS)): $(B)/tests/%: tests/runtime/%.c tests/runtime/rt_common.h runtime/aa_probe.h runtime/aa_runtime.h runtime/aa_user.h $(RT_LIBS)
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) $(MPI_CFLAGS) -o $@ $< -L$(RT_LIBDIR) $(RT_RPATH) \
	    -lautoanalyzer-mpi -lautoanalyzer $(MPI_LIBS) -lm

$(addprefix $(B)/tests/,$(RT_TESTS)): $(B)/tests/%: tests/runtime/%.c tests/runtime/rt_common.h runtime/aa_probe.h runtime/aa_runtime.h runtime/aa_user.h $(RT_LIBS)
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -fopenmp -o $@ $< -L$(RT_LIBDIR) $(RT_RPATH) -lautoanalyzer -lpthread -lm

$(B)/tests/rt_serial_static: tests/runtime/rt_serial.c tests/runtime/rt_common.h $(RT_LIBDIR)/libautoanalyzer.a
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -fopenmp -o $@ $< $(RT_LIBDIR)/libautoanalyzer.a -lpthread -lm

# ThreadSanitizer: the runtime sources compiled into the test program.
$(B)/tests/rt_pthread_tsan: tests/runtime/rt_pthread.c tests/runtime/rt_common.h $(RT_CORE_SRCS) $(RT_SHARED_SRCS) $(RT_BINARY_SRC) runtime/rt_internal.h
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -fsanitize=thread -DAA_VERSION='"$(VERSION)"' -DAA_ZLIB_DLOPEN -o $@ \
	    tests/runtime/rt_pthread.c $(RT_CORE_SRCS) $(RT_SHARED_SRCS) $(RT_BINARY_SRC) -ldl -lpthread -lm

# the runtime's binary writer without zlib (profile/zlib_dl.c loading a
# library that does not exist)
RT_TEST_BINS += $(B)/tests/rt_nozlib
$(B)/tests/rt_nozlib: tests/runtime/rt_nozlib.c tests/unit/test_profile_util.h $(RT_SHARED_SRCS) $(RT_BINARY_SRC)
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -DAA_ZLIB_DLOPEN -DAA_ZDL_LIB='"libautoanalyzer-no-such-zlib.so.1"' \
	    -o $@ tests/runtime/rt_nozlib.c $(RT_SHARED_SRCS) $(RT_BINARY_SRC) -ldl -lpthread -lm

$(B)/tests/runtime_dump: tests/runtime/runtime_dump.c $(B)/lib/libaa_profile.a $(B)/lib/libaa_common.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(B)/lib/libaa_profile.a $(B)/lib/libaa_common.a $(XML2_LIBS) -lz -lm

# Fortran MPI test program, when an MPI Fortran compiler is installed.
RT_MPIFORT := $(shell command -v mpifort 2>/dev/null)
ifneq ($(RT_MPIFORT),)
RT_TEST_BINS += $(B)/tests/rt_fortran
$(B)/tests/rt_fortran: tests/runtime/rt_fortran.f90 $(RT_LIBS)
	@mkdir -p $(@D)
	mpifort -O2 -fallow-argument-mismatch -J $(@D) -o $@ $< -L$(RT_LIBDIR) $(RT_RPATH) -lautoanalyzer-mpi -lautoanalyzer
# the same through `use mpi_f08` (the generated mpi_*_f08_ bindings)
RT_TEST_BINS += $(B)/tests/rt_fortran08
$(B)/tests/rt_fortran08: tests/runtime/rt_fortran08.f90 $(RT_LIBS)
	@mkdir -p $(@D)
	mpifort -O2 -J $(@D) -o $@ $< -L$(RT_LIBDIR) $(RT_RPATH) -lautoanalyzer-mpi -lautoanalyzer
endif

runtime-test-progs: $(RT_TEST_BINS)
.PHONY: runtime-test-progs
check check-e2e: runtime-test-progs

# ---- benchmarks ----------------------------------------------------------------
$(B)/bench/probe: bench/probe.c $(RT_LIBDIR)/libautoanalyzer.so
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -o $@ $< -L$(RT_LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lautoanalyzer -lm

# the probe pair against rdtsc, clock_gettime and (CALIPER_DIR=...) Caliper
CALIPER_FLAGS = -DHAVE_CALIPER -I$(CALIPER_DIR)/include -L$(CALIPER_DIR)/lib \
                -Wl,-rpath,$(CALIPER_DIR)/lib -lcaliper
$(B)/bench/probe_compare: bench/probe_compare.c $(RT_LIBDIR)/libautoanalyzer.so
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -o $@ $< -L$(RT_LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lautoanalyzer -lpthread $(if $(CALIPER_DIR),$(CALIPER_FLAGS))

bench-probe: $(B)/bench/probe $(B)/bench/probe_compare
	AUTOANALYZER_OUTPUT=$(B)/bench/probe-out AUTOANALYZER_COUNTERS=none $(B)/bench/probe_compare
	AUTOANALYZER_OUTPUT=$(B)/bench/probe-out AUTOANALYZER_COUNTERS=none $(B)/bench/probe timing
	AUTOANALYZER_OUTPUT=$(B)/bench/probe-out AUTOANALYZER_COUNTERS=fake $(B)/bench/probe fake
	AUTOANALYZER_OUTPUT=$(B)/bench/probe-out $(B)/bench/probe papi

$(B)/bench/overhead_plain: bench/overhead.c
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -o $@ $<

$(B)/bench/overhead_inst: bench/overhead.c $(RT_LIBDIR)/libautoanalyzer.so
	@mkdir -p $(@D)
	$(CC) $(RT_TEST_CFLAGS) -DAA_PROBES -o $@ $< -L$(RT_LIBDIR) -Wl,-rpath,'$$ORIGIN/../lib' -lautoanalyzer

bench-overhead: $(B)/bench/overhead_plain $(B)/bench/overhead_inst $(RT_LIBS) $(AA_BIN)
	sh bench/overhead.sh $(B)

# real applications (AA_APPS_DIR, see bench/real_builds.md), interleaved
bench-real-overhead: $(RT_LIBS) $(AA_BIN)
	AA_BUILD=$(B) bash bench/real_overhead.sh

bench: bench-probe bench-overhead
.PHONY: bench-probe bench-overhead bench-real-overhead

# rank 0's merge and write at MPI_Finalize for P ranks, XML vs binary, all
# packs at once vs batches (bench/rt_collect.c, bench/rt_collect.sh)
$(B)/bench/rt_collect: $(B)/obj/bench/rt_collect.o $(B)/obj/runtime/pack.o $(B)/bin/autoanalyzer
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(B)/obj/bench/rt_collect.o $(B)/obj/runtime/pack.o \
	    -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)
bench-rt-collect: $(B)/bench/rt_collect
	sh bench/rt_collect.sh $(B)
.PHONY: bench-rt-collect
