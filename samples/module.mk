# samples/module.mk -- builds the sample MPI programs (samples/*.c, plain MPI
# C, no instrumentation of their own) into $(B)/samples/<name>, and defines
# `make samples` and `make demo`.
#
# They are compiled with $(CC) plus the MPI flags found by mk/config.sh
# (MPI_CFLAGS / MPI_LIBS in $(B)/config.mk), not with the tool's flags:
# they stand for a user's application.  samples/Makefile builds the same
# programs standalone (make -C samples CC=mpicc).

SAMPLE_NAMES := balanced imbalance hotspot cache io comm master_worker
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

# Until the whole pipeline lands: build the samples and run the load
# imbalance sample on 4 ranks.
demo: $(SAMPLE_BINS)
	@echo "== make demo: $(B)/samples/imbalance on 4 MPI ranks =="
	$(SAMPLES_MPIRUN) -np 4 $(B)/samples/imbalance

.PHONY: samples demo
