# Tests.  Unit tests are tests/unit/test_*.c, each a TAP program linked
# against every tool library; components with special needs (the runtime,
# MPI programs) add their own programs to CHECK_PROGS.  End-to-end tests are
# executable TAP shell scripts tests/e2e/*.t that run the real command.
# `make check` runs all of them, plus an ASan+UBSan build of the unit tests
# and of the command (e2e tests use it through $AA_SAN_BUILD), in one
# `prove` run so CI sees a single summary.

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_TESTS += $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
E2E_TESTS  += $(sort $(wildcard tests/e2e/*.t))
PROVE_JOBS ?= 2

$(B)/tests/test_%: $(B)/obj/tests/unit/test_%.o $(TOOL_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS)

unit-tests: $(UNIT_TESTS)

check-unit: all unit-tests $(CHECK_PROGS)
	AA_BUILD=$(B) prove --exec '' $(UNIT_TESTS) $(CHECK_PROGS)

check-san:
	$(MAKE) B=build-san SAN=1 unit-tests
	AA_BUILD=build-san prove --exec '' $(patsubst $(B)/%,build-san/%,$(UNIT_TESTS))

check-e2e: all
	AA_BUILD=$(B) prove --exec '' $(E2E_TESTS)

# One prove run over everything.  The sanitizer build is made first.
check: all unit-tests $(CHECK_PROGS)
	$(MAKE) B=build-san SAN=1 unit-tests build-san/bin/autoanalyzer
	AA_BUILD=$(B) AA_SAN_BUILD=build-san prove -j$(PROVE_JOBS) --exec '' \
	    $(UNIT_TESTS) $(CHECK_PROGS) \
	    $(patsubst $(B)/%,build-san/%,$(UNIT_TESTS)) $(E2E_TESTS)
