# panalyze/: autoanalyzer-analyze-mpi, the analysis as an MPI job (the
# collectives of analyze/parallel.c over MPI).  A separate program so that
# the `autoanalyzer` command needs no MPI library.
EXTRA_CFLAGS_panalyze = $(MPI_CFLAGS)
AA_PANALYZE := $(B)/bin/autoanalyzer-analyze-mpi
$(AA_PANALYZE): $(call aa_objs,panalyze/main.c cli/analysis_opts.c) $(TOOL_LIBS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(call aa_objs,panalyze/main.c cli/analysis_opts.c) \
	    -Wl,--start-group $(TOOL_LIBS) -Wl,--end-group $(EXT_LIBS) $(MPI_LIBS)
ALL_TARGETS += $(AA_PANALYZE)

# `make bench-analyze-mpi`: bench/analyze_mpi.sh (up to 131,072 processes).
bench-analyze-mpi: $(AA_PANALYZE)
	sh bench/analyze_mpi.sh $(B)
.PHONY: bench-analyze-mpi
