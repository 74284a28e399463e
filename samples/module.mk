# samples/module.mk -- builds the sample MPI programs (samples/*.c, plain MPI
# C, no instrumentation of their own) into $(B)/samples/<name>, and defines
# `make samples` and `make demo`.
#
# They are compiled with $(CC) plus the MPI flags found by mk/config.sh
# (MPI_CFLAGS / MPI_LIBS in $(B)/config.mk), not with the tool's flags:
# they stand for a user's application.  samples/Makefile builds the same
# programs standalone (make -C samples CC=mpicc).

SAMPLE_NAMES := balanced imbalance hotspot cache io comm master_worker serial_io rotating
SAMPLE_BINS  := $(addprefix $(B)/samples/,$(SAMPLE_NAMES))
SAMPLE_CFLAGS := -std=c11 -Wall -Wextra -Werror -O2 -g

# How the demo (and anyone else) starts a sample on this machine.  The root
# and oversubscription settings are harmless for ordinary users.
SAMPLES_MPIRUN ?= OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
    mpirun --oversubscribe

$(B)/samples/%: samples/%.c $(B)/config.mk
	@mkdir -p $(@D)
	$(CC) $(SAMPLE_CFLAGS) $(MPI_CFLAGS) -o $@ $< $(MPI_LIBS)

ALL_TARGETS += $(SAMPLE_BINS)
CLEAN_EXTRA += $(addprefix samples/,$(SAMPLE_NAMES) $(SAMPLE_NAMES:=.o))

samples: $(SAMPLE_BINS)

# The whole loop on one sample: build samples/imbalance.c with the
# instrumenting wrapper, run it on 4 ranks under `autoanalyzer run` (collect,
# analyse, store in a Program Space under $(B)/demo, write the HTML report)
# and print where the report is.  (Recipe owned by the report/loop engineer.)
DEMO_DIR = $(abspath $(B))/demo
demo: all
	@echo "== make demo: instrument samples/imbalance.c, run it on 4 MPI ranks, analyse, report =="
	@mkdir -p $(DEMO_DIR)
	$(abspath $(B))/bin/autoanalyzer cc mpicc -O2 -o $(DEMO_DIR)/imbalance samples/imbalance.c
	cd $(DEMO_DIR) && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	    OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
	    $(abspath $(B))/bin/autoanalyzer run --np 4 --name demo-imbalance \
	    --db $(DEMO_DIR)/demo-space.db --out $(DEMO_DIR)/run-$$(date +%Y%m%d-%H%M%S) -- ./imbalance
	@echo "== open the report printed above (report: ...) in a browser; it needs no network =="

.PHONY: samples demo

# The Fortran sample (samples/fsolver.f: fixed-form F77, COMMON blocks,
# labelled loops, INCLUDE 'mpif.h'), built with the MPI Fortran compiler.
$(B)/samples/fsolver: samples/fsolver.f $(B)/config.mk
	@mkdir -p $(@D)
	mpif90 -O2 -g -o $@ $<
ALL_TARGETS += $(B)/samples/fsolver
