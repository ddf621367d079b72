"""The task process's garbage-collector policy.

A task allocates some ten thousand small objects per document (the golden rows' dicts,
the ink truth's glyphs, the layout's boxes) and holds a unit's rows until its shards are
written. Under CPython's default thresholds (700, 10, 10) the collector runs every 700
allocations and, in its full passes, walks every object start-up left (modules, classes,
settings: never garbage) and every row still held: about a fifth of a clean invoice's
task CPU (41 -> 32 ms in an interleaved sitting). :func:`tune_collector` moves what
exists to the permanent generation (``gc.freeze``) and collects the young generation
every :data:`YOUNG_THRESHOLD` allocations instead. Cycles are still collected; the
task's memory stays flat (``bench/memory.py``: 1.011x over 6,000 documents).
"""

from __future__ import annotations

import gc

#: allocations (less deallocations) between two collections of the young generation
YOUNG_THRESHOLD = 20_000


def tune_collector() -> None:
    """Freeze the objects alive now and raise the young generation's threshold, for
    the rest of this process. Process-wide (call it from a task process's entry, not in
    a library); idempotent."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
