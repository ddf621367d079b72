"""A process tree read from ``/proc`` (Linux), shared by the benches: who is whose child,
every descendant of a process, and the CPU seconds a tree has spent."""

from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int | str) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name (raises OSError if gone)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children() -> dict[int, list[int]]:
    """Every live process's children, by parent pid (one pass over ``/proc``)."""
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                out.setdefault(int(_stat(entry)[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return out


def descendants(root: int) -> list[int]:
    """``root`` and every live process under it, ``root`` first."""
    tree, seen, todo = children(), [], [root]
    while todo:
        pid = todo.pop()
        seen.append(pid)
        todo.extend(tree.get(pid, []))
    return seen


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and of its reaped children (0 if it is gone)."""
    try:
        return sum(int(v) for v in _stat(pid)[11:15]) / TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def own_cpu(pid: int) -> float | None:
    """User + system CPU of ``pid`` itself, not its children (None if it is gone)."""
    try:
        return sum(int(v) for v in _stat(pid)[11:13]) / TICKS
    except (OSError, IndexError, ValueError):
        return None


def tree_cpu(root: int, include_root: bool = True) -> float:
    """CPU seconds of the tree under ``root`` (live processes and their reaped children);
    without ``root``'s own when ``include_root`` is false (a caller that counts its own
    with ``time.process_time``)."""
    return sum(cpu_seconds(p) for p in descendants(root) if include_root or p != root)
