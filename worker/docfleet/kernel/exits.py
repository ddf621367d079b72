"""A task's exit codes (``docfleet work``; the README's table)."""

EXIT_OK = 0
EXIT_HOLES = 1  # failed units remain (or the root manifest refused a gap)
EXIT_CONFIG = 2  # bad input
EXIT_GONE = 3  # the run was deleted from the state store while this task worked
EXIT_STORE = 4  # a store stayed unreachable past its retry bound
EXIT_SIGINT = 130
EXIT_SIGTERM = 143
