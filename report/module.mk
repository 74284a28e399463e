# report/: the self-contained HTML report and the run-to-run comparison.
REPORT_SRCS := $(wildcard report/*.c)
$(eval $(call aa_tool_lib,report,$(REPORT_SRCS)))
