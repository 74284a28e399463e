# wrap/: the compiler wrapper's engine (argument model, response files, MPI
# detection, instrumentation in a forked child, runtime link flags); the
# `cc` subcommand and the one-word autoanalyzer-mpicc ... links use it.
WRAP_SRCS := $(wildcard wrap/*.c)
$(eval $(call aa_tool_lib,wrap,$(WRAP_SRCS)))

# One-word wrapper commands next to the command (build/bin/autoanalyzer-mpicc
# -> autoanalyzer), so that `make CC=autoanalyzer-mpicc` and `which $(CC)`
# work from the build directory; `make install` creates the same links.
WRAP_COMPILERS := mpicc cc gcc clang mpicxx mpic++ c++ g++ mpif90 mpif77 mpifort gfortran
WRAP_LINKS := $(addprefix $(B)/bin/autoanalyzer-,$(WRAP_COMPILERS))
$(WRAP_LINKS):
	@mkdir -p $(@D)
	ln -sf autoanalyzer $@
ALL_TARGETS += $(WRAP_LINKS)
