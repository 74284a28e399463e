# engine/: the measure-analyse-store-compare-report loop behind `run`,
# `report`, `nightly`, `analyze --from-space` and `space add`.
ENGINE_SRCS := $(wildcard engine/*.c)
$(eval $(call aa_tool_lib,engine,$(ENGINE_SRCS)))
