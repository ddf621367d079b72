"""Shared runs for the export and scoring tests: real fleets started through the CLI
(``docfleet run --tasks 2``), built once per test session and copied when a test needs
to damage one."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from docfleet.cli import main
from support.fleet import cli
from support.needs import require

CHROMIUM = os.environ.get("DOCFLEET_CHROMIUM_PATH") or shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)

_RUNS: dict[str, Run] = {}
_FAILED: dict[str, str] = {}


@dataclass(frozen=True)
class Run:
    """A finished run: its id, state and output URIs and local output directory."""

    run_id: str
    state: str
    out: str
    root: Path  # <out>/<run_id>

    @property
    def manifest(self) -> dict[str, Any]:
        return json.loads((self.root / "manifest.json").read_text())

    def shards(self, table: str) -> pa.Table:
        """The union of the run's shards of ``table``, read directly, in unit order."""
        files = sorted((self.root / "golden" / table).glob("unit-*.parquet"))
        return pa.concat_tables(pq.read_table(f) for f in files)

    def copy(self, dest: Path) -> Run:
        """A copy of the outputs and the state store under ``dest``, the copied run's
        recorded output URI pointing at the copied outputs (a run of its own there)."""
        out_dir = dest / "out"
        shutil.copytree(self.root, out_dir / self.run_id)
        state_file = Path(self.state.removeprefix("sqlite:///"))
        shutil.copy(state_file, dest / "state.db")
        with sqlite3.connect(dest / "state.db") as conn:
            (params,) = conn.execute("SELECT params FROM runs WHERE run_id = ?",
                                     (self.run_id,)).fetchone()
            conn.execute("UPDATE runs SET params = ? WHERE run_id = ?",
                         (json.dumps({**json.loads(params), "out": f"file://{out_dir}"},
                                     sort_keys=True), self.run_id))
        return Run(self.run_id, f"sqlite:///{dest / 'state.db'}", f"file://{out_dir}",
                   out_dir / self.run_id)


def invoke(*args: str) -> SimpleNamespace:
    """The ``docfleet`` CLI in this process (as :func:`fleet.cli` returns it, without the
    interpreter start-up a subprocess costs on a loaded machine)."""
    result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return SimpleNamespace(returncode=result.exit_code, stdout=result.stdout,
                           stderr=result.stderr)


def fleet_run(base: Path, run_id: str, total: int, unit_size: int, pack: str,
              env: dict[str, str] | None = None, expect: int = 0, *extra: str) -> Run:
    base.mkdir(parents=True, exist_ok=True)
    state, out = f"sqlite:///{base / 'state.db'}", f"file://{base / 'out'}"
    done = cli("run", "--run-id", run_id, "--total", str(total), "--unit-size", str(unit_size),
               "--tasks", "2", "--pack", pack, "--state", state, "--out", out,
               "--log-dir", str(base / "logs"), *extra, env=env, timeout=300)
    assert done.returncode == expect, f"{done.stdout}\n{done.stderr}"
    return Run(run_id, state, out, base / "out" / run_id)


def bench_run(factory: pytest.TempPathFactory) -> Run:
    """60 bench documents in 12 units of 5, by 2 tasks."""
    if "bench" not in _RUNS:
        _RUNS["bench"] = fleet_run(factory.mktemp("bench-run"), "bench-x", 60, 5, "bench")
    return _RUNS["bench"]


def pack_run(factory: pytest.TempPathFactory, pack: str, total: int = 4) -> Run:
    """``total`` rendered PDF documents of ``pack`` (its newest content version) in
    units of 2, by 2 tasks with a real Chromium, two locales: small, for the exports of
    every pack."""
    require(CHROMIUM is not None, "Chromium (/usr/bin/chromium)")
    key = f"pack-{pack}-{total}"
    if key not in _RUNS:
        _RUNS[key] = fleet_run(factory.mktemp(key), f"{pack.replace('_', '-')}-x", total, 2,
                               pack, None, 0, "--option", "locales=en-US,de-DE")
    return _RUNS[key]


def invoice_run(factory: pytest.TempPathFactory) -> Run:
    """24 rendered invoices (every archetype, locale and condition) in 6 units of 4, by
    2 tasks with a real Chromium."""
    require(CHROMIUM is not None, "Chromium (/usr/bin/chromium)")
    if "invoice" not in _RUNS:
        if "invoice" in _FAILED:
            pytest.fail(f"the shared invoice run failed: {_FAILED['invoice']}")
        try:
            _RUNS["invoice"] = fleet_run(factory.mktemp("invoice-run"), "inv-a", 24, 4,
                                         "invoice")
        except AssertionError as exc:
            _FAILED["invoice"] = str(exc).strip().splitlines()[-1]
            raise
    return _RUNS["invoice"]


def read_funsd(path: Path) -> dict[str, Any]:
    """A FUNSD reader (as FUNSD loaders do): tokens, boxes, BIO tags per page and the
    entity links; raises AssertionError on anything FUNSD would not allow."""
    page = json.loads(path.read_text())
    form = page["form"]
    entities = {e["id"]: e for e in form}
    assert len(entities) == len(form)
    tokens, boxes, tags = [], [], []
    for e in form:
        assert e["label"] in {"question", "answer", "header", "other"}
        for k, w in enumerate(e["words"]):
            assert w["text"] and len(w["box"]) == 4
            tokens.append(w["text"])
            boxes.append(w["box"])
            tags.append("O" if e["label"] == "other" else
                        f"{'B' if k == 0 else 'I'}-{e['label'].upper()}")
    links = set()
    for e in form:
        for pair in e["linking"]:
            a, b = pair
            assert e["id"] in pair and a in entities and b in entities
            assert pair in entities[b if e["id"] == a else a]["linking"]  # on both ends
            assert entities[a]["label"] == "question" and entities[b]["label"] == "answer"
            links.add((a, b))
    return {"tokens": tokens, "boxes": boxes, "tags": tags, "links": links, "page": page}
