# tests/diagnosis/diagnosis.mk -- make targets of the diagnosis validation
# suite (bench/diagnosis.md): `make bench-diagnosis` runs the full case list
# (tests/diagnosis/cases.txt, long; not part of `make check`),
# `make bench-diagnosis QUICK=1` the QUICK subset (tests/diagnosis/quick.txt).
# REPS (default 3) and DIAG_OUT (results directory) pass through.
# `make bench-probes` runs the hand-written edge probes (bench/edge_probes.sh;
# REPS default 1, PROBES_OUT the work directory).
# Included from the top-level Makefile (`include tests/diagnosis/diagnosis.mk`).

DIAG_OUT ?= $(B)/diagnosis
bench-diagnosis: all
	AA_BUILD=$(B) REPS=$(or $(REPS),3) python3 tests/diagnosis/run.py \
	    $(if $(QUICK),--quick) --out $(DIAG_OUT)$(if $(QUICK),-quick)

PROBES_OUT ?= $(B)/edge-probes
bench-probes: all
	AA_BUILD=$(B) AA_WORK=$(PROBES_OUT) REPS=$(or $(REPS),1) bash bench/edge_probes.sh
.PHONY: bench-diagnosis bench-probes
