# cluster/: OPTICS, exact 1-D k-means, general k-means (SPEC §5.1, §5.2, §9).
# Also the cluster benchmark (`make bench`) and the CSV fuzz target
# (`make fuzz`), since the CSV reader exists for `cluster`/`roughset`.
CLUSTER_SRCS := $(wildcard cluster/*.c)
$(eval $(call aa_tool_lib,cluster,$(CLUSTER_SRCS)))

CLUSTER_BENCH := $(B)/bench/cluster_bench
$(CLUSTER_BENCH): $(B)/obj/bench/cluster_bench.o $(B)/lib/libaa_cluster.a $(B)/lib/libaa_common.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(B)/lib/libaa_cluster.a $(B)/lib/libaa_common.a $(EXT_LIBS)
bench-cluster: $(CLUSTER_BENCH)
	$(CLUSTER_BENCH)
bench: bench-cluster
.PHONY: bench-cluster

# CSV fuzz target (fuzz/module.mk defines FUZZ_CC and FUZZ_SECONDS).
FUZZ_CSV_SRCS := fuzz/fuzz_csv.c $(wildcard cluster/*.c) $(wildcard common/*.c)
$(B)/fuzz/fuzz_csv: $(FUZZ_CSV_SRCS) common/aa_csv.h cluster/aa_cluster.h $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -I. -g -O1 -fno-omit-frame-pointer \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $@ $(FUZZ_CSV_SRCS) $(GSL_LIBS) -lz -lm
fuzz: fuzz-csv
fuzz-csv: $(B)/fuzz/fuzz_csv
	@mkdir -p $(B)/fuzz/corpus-csv
	$(call fuzz_run,csv,-max_len=4096 -timeout=10 -rss_limit_mb=2048 \
	    $(B)/fuzz/corpus-csv fuzz/corpus/csv)
.PHONY: fuzz-csv
