"""docfleet: synthetic document datasets with exact ground truth, built by a leaderless fleet.

Python API (imported lazily, so ``import docfleet`` stays cheap)::

    import docfleet
    result = docfleet.generate("demo", total=200, tasks=2)
    run = docfleet.open_run("demo")
    run.table("invoices")  # a pyarrow.Table
"""

from __future__ import annotations

from docfleet.core.version import __version__ as __version__

__all__ = ["DocfleetError", "GenerateResult", "RunData", "generate", "open_run"]


def __getattr__(name: str) -> object:
    if name == "DocfleetError":
        from docfleet.core.errors import DocfleetError  # lazy: start-up

        return DocfleetError
    if name in __all__:
        from docfleet import api  # lazy: start-up

        return getattr(api, name)
    raise AttributeError(f"module 'docfleet' has no attribute {name!r}")
