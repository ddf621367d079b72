"""The browser driver's compiled code kept on disk, so a task does not compile it again.

Starting Playwright's driver (its bundled Node.js running ``playwright-core``, about 12
MB of JavaScript) is the largest single part of a rendering task's fixed CPU after the
task's own imports: ~0.5 s per task, of which V8 compiling the driver's modules is ~0.1 s
(``bench/documents.py``'s by-process table of a one-document run). Node keeps that
compiled code in the directory ``NODE_COMPILE_CACHE`` names and checks each entry against
its source and its own version, so an upgraded driver never uses a stale entry.

:func:`use_driver_cache` points that variable at ``DOCFLEET_DRIVER_CACHE`` (default
``$XDG_CACHE_HOME/docfleet/driver``, else ``~/.cache/docfleet/driver``; ``off`` disables
it) unless ``NODE_COMPILE_CACHE`` is set already (an operator's own choice wins). The
image warms it at build time (its smoke render). A cache never fails a render: Node
creates a missing directory and silently skips one it cannot read or write. Tasks may
share it: Node writes each entry to a temporary file and renames it, and checks an
entry's checksums before using it. Entries are private to the user who wrote them
(0600): a task running as another user than the one that warmed the cache compiles as
before.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

ENV_VAR = "DOCFLEET_DRIVER_CACHE"
#: Node's own variable (Node >= 22.1), read by the driver process at start
NODE_VAR = "NODE_COMPILE_CACHE"


def cache_dir(environ: MutableMapping[str, str] = os.environ) -> Path | None:
    """Where the driver's compiled code lives, or ``None`` when the cache is off (read
    from the environment; ``Settings.driver_cache`` documents the same variable)."""
    configured = environ.get(ENV_VAR, "").strip()
    if configured.lower() in ("off", "none", "0", "false"):
        return None
    if configured:
        return Path(configured).expanduser()
    base = environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "docfleet" / "driver"


def use_driver_cache(environ: MutableMapping[str, str] = os.environ) -> str | None:
    """Set ``NODE_COMPILE_CACHE`` in ``environ`` to :func:`cache_dir` unless it is set
    already or the cache is off; returns the value the driver will see (``None``: no
    cache). Writes the process environment: call it before any thread starts (the CLI's
    entry point does). Idempotent; touches no file."""
    if environ.get(NODE_VAR):
        return environ[NODE_VAR]
    directory = cache_dir(environ)
    if directory is None:
        return None
    environ[NODE_VAR] = str(directory)
    return environ[NODE_VAR]
