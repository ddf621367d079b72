"""The Python API for notebooks and pipelines: :func:`generate` runs a local fleet (the
same as ``docfleet run``) and :func:`open_run` reads a finished run's golden tables and
documents, every byte verified against the run's manifest (as ``docfleet export``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class GenerateResult:
    """What :func:`generate` returns. ``manifest`` is the root manifest (``None`` unless
    the run COMPLETED); ``failed_units`` as ``docfleet status --json`` gives them;
    ``exit_code`` as ``docfleet run`` exits (0 ok, 1 failed units, 2 bad setup, 4 store)."""

    run_id: str
    state: str
    exit_code: int
    manifest: dict[str, Any] | None
    failed_units: list[dict[str, Any]] = field(default_factory=list)
    state_uri: str = ""
    out_uri: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.manifest is not None

    def open(self) -> RunData:
        """The finished run's data (:func:`open_run`)."""
        return open_run(self.run_id, out=self.out_uri)


def generate(
    run_id: str, total: int | None = None, *, tasks: int = 2, pack: str | None = None,
    options: Mapping[str, Any] | None = None, state: str | None = None,
    out: str | None = None, unit_size: int | None = None, progress: bool = False,
    log_dir: str | Path | None = None,
) -> GenerateResult:
    """Run a local fleet of ``tasks`` worker processes for run ``run_id`` and wait for it;
    return its :class:`GenerateResult` (with the root manifest when it COMPLETED).
    Unset arguments come from ``DOCFLEET_*`` like the CLI's flags. Idempotent: calling it
    again for a COMPLETED run with the same parameters returns at once. Raises
    :class:`~docfleet.core.errors.DocfleetError` (one clear message) for bad settings, a run
    id reused with other parameters or a setup error (nothing is planned then); failed
    units do not raise: see ``result.failed_units``."""
    from rich.console import Console

    from docfleet.blob import open_blob_store  # lazy: start-up
    from docfleet.core.settings import load_settings  # lazy: start-up
    from docfleet.dataset.manifest import ROOT_KEY, RunFiles, parse_json  # lazy: start-up
    from docfleet.ops.fleet import prepare_fleet, run_fleet  # lazy: start-up
    from docfleet.ops.runstatus import failed_unit_rows  # lazy: start-up
    from docfleet.state import open_state_store  # lazy: start-up

    if tasks < 1:
        from docfleet.core.errors import ConfigError  # lazy: start-up

        raise ConfigError(f"tasks={tasks} is not a number of processes", "use tasks >= 1")
    settings = load_settings(run_id=run_id, total=total, pack=pack, state=state, out=out,
                             unit_size=unit_size,
                             options=dict(options) if options is not None else None)
    store = open_state_store(settings.state)
    try:
        blob = open_blob_store(settings.out)
        spec = prepare_fleet(settings, store, tasks, logging.getLogger("docfleet.api"))
        logs = Path(log_dir) if log_dir else Path(".docfleet/logs") / spec.run_id
        console = Console(stderr=True, quiet=not progress)
        code = run_fleet(settings, spec, store, tasks, logs, console)
        run = store.get_run(spec.run_id)
        files = RunFiles(blob, spec.run_id)
        manifest = (parse_json(files.get(ROOT_KEY), files.uri(ROOT_KEY))
                    if files.exists(ROOT_KEY) else None)
        return GenerateResult(spec.run_id, run.state.value if run else "?", code, manifest,
                              failed_unit_rows(store.units(spec.run_id)), settings.state,
                              settings.out)
    finally:
        store.close()


class RunData:
    """A finished run, read through its root manifest: every shard and document is
    checked against the sha256 its part recorded (``TamperedError`` otherwise)."""

    def __init__(self, run_id: str, out: str | None = None, *, partial: bool = False,
                 state: str | None = None) -> None:
        from docfleet.core.settings import load_settings  # lazy: start-up
        from docfleet.export import RunReader  # lazy: start-up

        settings = load_settings(out=out, state=state)
        self.run_id = run_id
        self._reader = RunReader(settings.out, run_id, partial=partial,
                                 state_uri=settings.state)
        self.manifest: dict[str, Any] | None = self._reader.root

    def tables(self) -> list[str]:
        """The golden tables of the run."""
        return self._reader.tables()

    def table(self, name: str) -> pa.Table:
        """Golden table ``name`` over every unit, in document order, as one Arrow table.
        Raises :class:`~docfleet.export.reader.ExportError` for a table the run lacks."""
        import pyarrow as pa

        from docfleet.export.reader import ExportError  # lazy: start-up

        if name not in self.tables():
            raise ExportError(f"run {self.run_id} has no table '{name}'",
                              f"its tables are: {', '.join(self.tables())}")
        shards = [shard for _, shard in self._reader.iter_table(name)]
        return pa.concat_tables(shards) if shards else pa.table({})

    def documents(self) -> Iterator[tuple[str, bytes]]:
        """``(name, bytes)`` of every rendered document, in unit order, each verified."""
        for part in self._reader.parts():
            for key in sorted(part.documents):
                name = key.removeprefix("documents/")
                yield name, self._reader.document(part, name)


def open_run(run_id: str, out: str | None = None, *, partial: bool = False,
             state: str | None = None) -> RunData:
    """Open run ``run_id`` under output URI ``out`` (default ``DOCFLEET_OUT``, else
    ``file://./out``). Raises :class:`~docfleet.export.reader.RunIncompleteError` for a
    run with no root manifest unless ``partial`` (then ``state`` names its store)."""
    return RunData(run_id, out, partial=partial, state=state)
