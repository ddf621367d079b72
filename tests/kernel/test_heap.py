"""The task's collector policy (kernel/heap.py): start-up frozen, the young generation
collected less often, cycles still collected. In a fresh interpreter: the policy is
process-wide, and this test process keeps CPython's defaults."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc, weakref
from docfleet.kernel.heap import YOUNG_THRESHOLD, tune_collector

before = gc.get_threshold()
tune_collector()
frozen = gc.get_freeze_count()
tune_collector()  # idempotent: the same thresholds, what was frozen stays frozen
assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:]), gc.get_threshold()
assert frozen > 1000 and gc.get_freeze_count() >= frozen

class Node:
    pass

for _ in range(3 * YOUNG_THRESHOLD):  # cycles made after start-up are garbage again
    a, b = Node(), Node()
    a.other, b.other = b, a
probe = Node()
probe.me = probe
ref = weakref.ref(probe)
del probe, a, b
gc.collect()
assert ref() is None
assert len(gc.get_objects()) < 20_000, len(gc.get_objects())
print("ok")
"""


def test_the_task_collector_freezes_start_up_and_still_collects_cycles() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"
