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
