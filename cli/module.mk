# cli/: the autoanalyzer command (one file per subcommand).
CLI_SRCS += $(wildcard cli/*.c)
