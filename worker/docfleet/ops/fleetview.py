"""The live view of a local fleet (``docfleet run``) on the terminal: a progress line in
documents (done/total, documents/s, ETA) that fits 80 columns, or periodic plain lines when
stderr is not a terminal; the fatal error of each task as soon as it exits with one. At
the end the failed units are listed as ``status`` lists them (:mod:`.runstatus`). Reads
only what the store's ``units()`` and the tasks' own log files already hold.

One of three views of a run, each with one job: :mod:`.runstatus` (one run's state, read
once: ``status``, and the pieces the other two share), this module (a fleet while it
works), :mod:`.report` (the HTML page of a run, for people)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from docfleet.core.models import RunSpec, Unit, UnitState
from docfleet.ops.runstatus import documents_done

#: Exit codes that are not a task's own fatal error (done, holes, stopped by a signal).
QUIET_EXITS = frozenset({0, 1, 130, 143})
#: Seconds between plain progress lines when stderr is not a terminal.
PLAIN_EVERY = 10.0


def clock_text(seconds: float | None) -> str:
    """``H:MM:SS`` (``--:--`` when unknown)."""
    if seconds is None or seconds < 0 or seconds != seconds:
        return "--:--"
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


@dataclass
class Snapshot:
    """Documents and units of a run at one poll."""

    documents_done: int
    documents_total: int
    units: dict[UnitState, int]
    alive: int
    elapsed: float

    @property
    def rate(self) -> float:
        return self.documents_done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        if self.rate <= 0:
            return None
        return (self.documents_total - self.documents_done) / self.rate

    def plain(self, run_id: str) -> str:
        done, total = self.units.get(UnitState.DONE, 0), sum(self.units.values())
        return (f"run {run_id}: {self.documents_done}/{self.documents_total} docs, "
                f"{self.rate:.1f} doc/s, ETA {clock_text(self.eta)}; units {done}/{total} "
                f"done, {self.units.get(UnitState.FAILED, 0)} failed; tasks {self.alive}")


def snapshot(units: list[Unit], spec: RunSpec, alive: int, elapsed: float) -> Snapshot:
    """The :class:`Snapshot` of ``units`` (the store's unit listing)."""
    counts: dict[UnitState, int] = {}
    for unit in units:
        counts[unit.state] = counts.get(unit.state, 0) + 1
    return Snapshot(documents_done(units), spec.total, counts, alive, elapsed)


def fatal_line(log: Path) -> str:
    """The line of a task's log that says why it stopped: its last ``error: …`` line
    (a :class:`DocfleetError`), else its last ERROR record, else its last line."""
    if not log.exists():
        return "(no log)"
    last_error = last_record = last_line = ""
    for raw in log.read_text(errors="replace").splitlines():
        line = raw.strip()
        if not line:
            continue
        last_line = line
        if line.startswith("error: "):
            last_error = line.removeprefix("error: ")
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("severity") in ("ERROR", "CRITICAL"):
            last_record = str(entry.get("message", ""))
    return last_error or last_record or last_line or "(empty log)"


@dataclass
class TaskWatch:
    """Reports each task's fatal exit once, as it happens; the same error of many tasks
    is shown once with a count."""

    console: Console
    logs: list[Path]
    reported: set[int] = field(default_factory=set)
    errors: dict[str, list[int]] = field(default_factory=dict)

    def check(self, codes: list[int | None]) -> None:
        for index, code in enumerate(codes):
            if code is None or code in QUIET_EXITS or index in self.reported:
                continue
            self.reported.add(index)
            message = fatal_line(self.logs[index])
            seen = self.errors.setdefault(message, [])
            seen.append(index)
            if len(seen) == 1:
                self.console.print(f"task {index} exited {code}: {message}", markup=False,
                                   highlight=False, soft_wrap=True)

    def summary(self, tasks: int) -> str | None:
        """One line when every task died of the same error, else ``None``."""
        if len(self.errors) == 1:
            (message, indexes), = self.errors.items()
            if len(indexes) == tasks and tasks > 1:
                return f"all {tasks} tasks stopped with: {message}"
        return None


class FleetDisplay:
    """A progress bar on a terminal, plain lines every :data:`PLAIN_EVERY` s elsewhere."""

    def __init__(self, console: Console, run_id: str, plain_every: float = PLAIN_EVERY):
        self.console = console
        self.run_id = run_id
        self.plain_every = plain_every
        self._bar: Progress | None = None
        self._task: Any = None
        self._last_plain = 0.0
        self._last_text = ""

    def __enter__(self) -> FleetDisplay:
        if self.console.is_terminal:
            label = self.run_id if len(self.run_id) <= 14 else self.run_id[:13] + "…"
            self._bar = Progress(
                TextColumn(f"[bold]{label}[/]"), BarColumn(bar_width=14),
                TextColumn("{task.completed}/{task.total} docs"),
                TextColumn("{task.fields[rate]}"), TextColumn("ETA {task.fields[eta]}"),
                TextColumn("{task.fields[detail]}"),
                console=self.console, transient=False, refresh_per_second=4,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("docs", total=None, rate="", eta="--:--",
                                            detail="")
        return self

    def update(self, snap: Snapshot) -> None:
        if self._bar is not None:
            failed = snap.units.get(UnitState.FAILED, 0)
            self._bar.update(self._task, completed=snap.documents_done,
                             total=snap.documents_total, rate=f"{snap.rate:.1f} doc/s",
                             eta=clock_text(snap.eta),
                             detail=f"[red]✗{failed}[/]" if failed else "")
            return
        text = snap.plain(self.run_id)
        now = time.monotonic()
        if text != self._last_text and now - self._last_plain >= self.plain_every:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)
            self._last_plain, self._last_text = now, text

    def final(self, snap: Snapshot) -> None:
        """The last state, shown even if a plain line was printed a moment ago."""
        if self._bar is None and snap.plain(self.run_id) != self._last_text:
            self._last_plain = 0.0
        self.update(snap)

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
