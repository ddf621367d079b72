"""URIs as docfleet prints them: the path before the query, the ``//`` of an empty host
kept, a relative root never read as a host, a DuckDB target that reopens as itself."""

from __future__ import annotations

from pathlib import Path

from docfleet.blob import open_blob_store
from docfleet.core.uris import redact
from docfleet.dataset.manifest import RunFiles
from docfleet.export import sink_path
from docfleet.telemetry import db_attributes
from support.fleet import cli


def test_span_attributes_keep_the_empty_host() -> None:
    assert redact("sqlite:///.docfleet/state.db") == "sqlite:///.docfleet/state.db"
    assert redact("sqlite:////abs/state.db") == "sqlite:////abs/state.db"
    assert redact("s3://b/out?endpoint=http://127.0.0.1:1&region=x") == "s3://b/out"
    assert redact("postgresql://user:secret@db:5432/x") == "postgresql://db:5432/x"
    assert db_attributes("sqlite:///.docfleet/state.db")["db.namespace"] == \
        "sqlite:///.docfleet/state.db"


def test_a_relative_output_root_prints_as_file_dot(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    blob = open_blob_store("file://./out")
    assert blob.uri == "file://./out"
    assert RunFiles(blob, "r1").uri("manifest.json") == "file://./out/r1/manifest.json"
    assert open_blob_store(blob.uri).uri == blob.uri  # reopens as itself
    assert open_blob_store(f"file://{tmp_path}/o").uri == f"file://{tmp_path}/o"


def test_an_absolute_duckdb_target_prints_as_it_reopens(tmp_path: Path) -> None:
    state, out = f"sqlite:///{tmp_path}/s.db", f"file://{tmp_path}/out"
    assert cli("work", "--run-id", "u1", "--total", "4", "--pack", "bench", "--state", state,
               "--out", out).returncode == 0
    target = f"duckdb:///{tmp_path}/x.duckdb"  # duckdb:////abs…
    result = cli("export", "u1", "--to", target, "--out", out)
    assert result.returncode == 0, result.stderr
    assert f"to duckdb:///{tmp_path}/x.duckdb:" in result.stdout
    printed = result.stdout.split(" to ", 1)[1].split(": ", 1)[0]
    assert sink_path(printed) == ("duckdb", tmp_path / "x.duckdb")
