"""Compiled templates kept on disk, so a task does not compile Jinja again.

Compiling the templates is a fixed cost of every task (about 0.6 s of CPU for the
invoice pack's first documents, measured with cProfile): Jinja turns each template into
Python source and compiles it. This cache stores the compiled code per template under
``DOCFLEET_TEMPLATE_CACHE`` (default ``$XDG_CACHE_HOME/docfleet/templates``, else
``~/.cache/docfleet/templates``; ``off`` disables it). An entry is keyed by the
template's name and path and checked against its source's checksum and the Python
version, so an edited template or another interpreter never uses a stale entry. The
image warms it at build time for every installed pack: ``python -m
docfleet.packs.template_cache``.

A cache never fails a render: a missing, read-only or unwritable directory and a
corrupt entry all fall back to compiling (an entry that does not load is ignored;
entries are written to a temporary file and renamed, so readers never see half a file).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jinja2 import BytecodeCache, Environment
    from jinja2.bccache import Bucket

ENV_VAR = "DOCFLEET_TEMPLATE_CACHE"


def cache_dir() -> Path | None:
    """Where compiled templates live, or ``None`` when the cache is off. Read from the
    environment (``Settings.template_cache`` documents and validates the same variable):
    the Jinja environment is built once per process, before any settings object."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured.lower() in ("off", "none", "0", "false"):
        return None
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "docfleet" / "templates"


def bytecode_cache() -> BytecodeCache | None:
    """A Jinja bytecode cache over :func:`cache_dir` that never raises, or ``None``."""
    from jinja2 import FileSystemBytecodeCache

    directory = cache_dir()
    if directory is None:
        return None

    class QuietCache(FileSystemBytecodeCache):
        """Loads and stores like Jinja's, but a failure only means a compile."""

        def load_bytecode(self, bucket: Bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:  # a torn or foreign entry (pickle, marshal, I/O)
                bucket.reset()

        def dump_bytecode(self, bucket: Bucket) -> None:
            try:
                Path(self.directory).mkdir(parents=True, exist_ok=True)
                super().dump_bytecode(bucket)
            except OSError:
                pass

    return QuietCache(str(directory), "%s.jinja")


def warm(environment: Environment) -> int:
    """Compile every template ``environment`` can list into the cache; returns how many.
    Idempotent (an entry already there is only checked)."""
    names = environment.list_templates(extensions=["j2", "html"])
    for name in names:
        environment.get_template(name)
    return len(names)

