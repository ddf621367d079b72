"""docfleet: synthetic document datasets with exact ground truth, built by a leaderless fleet.

Python API (imported lazily, so ``import docfleet`` stays cheap)::

    import docfleet
    result = docfleet.generate("demo", total=200, tasks=2)
    run = docfleet.open_run("demo")
    run.table("invoices")  # a pyarrow.Table
"""

from __future__ import annotations

import os

from docfleet.core.version import __version__ as __version__

# docfleet forks only to exec (Chromium, fleet tasks, tools). gRPC's fork handlers (on by
# default in grpcio's core) restart its poller thread in the child, where the close of
# inherited descriptors before exec races it: "epoll_wait error: Bad file descriptor" and
# SIGABRT in a child that never ran. Set before any Google client loads gRPC; an operator's
# own value wins.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

__all__ = ["DocfleetError", "GenerateResult", "RunData", "generate", "open_run"]


def __getattr__(name: str) -> object:
    if name == "DocfleetError":
        from docfleet.core.errors import DocfleetError  # lazy: start-up

        return DocfleetError
    if name in __all__:
        from docfleet import api  # lazy: start-up

        return getattr(api, name)
    raise AttributeError(f"module 'docfleet' has no attribute {name!r}")
