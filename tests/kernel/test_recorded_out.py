"""Issue 26 item 1: a run remembers where its outputs are. The output URI is recorded
with the run when it is planned, on every state store; ``status``, ``verify``,
``resume``, ``report``, ``export``, ``card``, ``delete``, ``run`` and ``work`` default to
it, refuse another ``--out`` in one line unless ``--out-moved`` says the outputs were
copied there, and a run planned before URIs were recorded keeps the old behaviour.
Everything goes through the real ``docfleet`` CLI in its own process."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from docfleet.blob import open_blob_store
from docfleet.core.errors import ConfigError
from docfleet.core.outputs import canonical_out, choose_out, same_out
from docfleet.state import open_state_store
from support.fleet import cli, start_worker, worker_env


def _work(state: str, out: str, run_id: str, log: Path, total: int = 6, **env: str) -> int:
    proc = start_worker(worker_env(state, out, run_id, total, unit_size=3, **env), log)
    return proc.wait(180)


def _one_line_refusal(result: object, recorded: str) -> None:
    """Exit 2 with one line naming the recorded URI and the override flag."""
    assert result.returncode == 2, (result.stdout, result.stderr)  # type: ignore[attr-defined]
    err = result.stderr.strip()  # type: ignore[attr-defined]
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "keeps its outputs at" in err and "--out-moved" in err, err
    assert recorded.split("?")[0] in err, err


def _state_of(state: str, run_id: str) -> str:
    store = open_state_store(state, create=False)
    try:
        run = store.get_run(run_id)
        assert run is not None
        return run.state.value
    finally:
        store.close()


def test_every_store_records_the_output_uri_and_status_resume_default_to_it(
    tmp_path: Path, state_uri: str, run_id: str, moto_emulator: object
) -> None:
    """The issue's case on every state store: a run made with an S3 ``--out``; then
    ``status`` and ``resume`` without ``--out`` read it there (COMPLETED, nothing
    reopened) instead of the default ``file://./out``."""
    from support import emulators

    out = emulators.make_s3_bucket(moto_emulator, f"rec-{run_id}")  # type: ignore[arg-type]
    assert _work(state_uri, out, run_id, tmp_path / "w.log") == 0, (tmp_path / "w.log").read_text()
    store = open_state_store(state_uri, create=False)
    run = store.get_run(run_id)
    store.close()
    assert run is not None and run.spec.out == canonical_out(out)

    status = cli("status", run_id, "--state", state_uri, "--json", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    info = json.loads(status.stdout)
    assert info["state"] == "COMPLETED" and info["out_recorded"] == canonical_out(out)
    assert "resume" not in status.stderr
    resumed = cli("resume", run_id, "--state", state_uri)
    assert resumed.returncode == 0, resumed.stderr
    assert "0 damaged unit(s) reopened" in resumed.stdout, resumed.stdout
    assert _state_of(state_uri, run_id) == "COMPLETED"

    elsewhere = f"file://{tmp_path}/elsewhere"
    _one_line_refusal(cli("status", run_id, "--state", state_uri, "--out", elsewhere), out)
    _one_line_refusal(cli("resume", run_id, "--state", state_uri, "--out", elsewhere), out)
    assert _state_of(state_uri, run_id) == "COMPLETED"


def test_every_command_defaults_to_the_recorded_uri_and_refuses_another(
    tmp_path: Path, run_id: str, moto_emulator: object
) -> None:
    """SQLite state, S3 outputs: each command without ``--out`` reads the recorded
    URI; each with another ``--out`` is refused in one line and changes nothing; with
    ``--out-moved`` a copy elsewhere is read; ``delete`` without ``--out`` removes the
    recorded outputs."""
    from support import emulators

    state = f"sqlite:///{tmp_path}/state.db"
    out = emulators.make_s3_bucket(moto_emulator, f"all-{run_id}")  # type: ignore[arg-type]
    assert _work(state, out, run_id, tmp_path / "w.log") == 0, (tmp_path / "w.log").read_text()
    other = f"file://{tmp_path}/other"
    st = ("--state", state)

    assert cli("verify", run_id, *st).returncode == 0
    assert cli("verify", run_id, cwd=tmp_path).returncode != 0  # the default store: no run
    lone = cli("status", run_id, *st, "--out-moved")
    assert lone.returncode == 2 and "--out-moved needs --out" in lone.stderr, lone.stderr
    report = cli("report", run_id, *st, "--output", str(tmp_path / "r.html"))
    assert report.returncode == 0, report.stderr
    exported = cli("export", run_id, *st, "--to", f"parquet://{tmp_path}/pq")
    assert exported.returncode == 0, exported.stderr
    card = cli("card", run_id, *st)
    assert card.returncode == 0 and run_id in card.stdout, card.stderr

    for args in (("status", run_id, *st, "--out", other),
                 ("verify", run_id, *st, "--out", other),
                 ("resume", run_id, *st, "--out", other),
                 ("report", run_id, *st, "--out", other),
                 ("export", run_id, *st, "--out", other, "--to", f"parquet://{tmp_path}/x"),
                 ("card", run_id, *st, "--out", other),
                 ("delete", run_id, *st, "--out", other, "--yes")):
        refused = cli(*args)
        _one_line_refusal(refused, out)
    refused = cli("status", run_id, *st, env={"DOCFLEET_OUT": other})  # the variable too
    _one_line_refusal(refused, out)
    # a task with another --out writes nothing and says why
    assert _work(state, other, run_id, tmp_path / "w2.log") == 2
    assert "keeps its outputs at" in (tmp_path / "w2.log").read_text()
    assert not (tmp_path / "other" / run_id).exists()
    assert _state_of(state, run_id) == "COMPLETED"

    # the outputs copied elsewhere: read there with --out-moved
    blob, copy = open_blob_store(out), open_blob_store(other)
    for key in blob.list(f"{run_id}/"):
        copy.put(key, blob.get(key))
    moved = cli("status", run_id, *st, "--out", other, "--out-moved", "--json")
    assert moved.returncode == 0 and json.loads(moved.stdout)["state"] == "COMPLETED"
    assert cli("verify", run_id, *st, "--out", other, "--out-moved").returncode == 0
    # the copy damaged, then repaired in place: resume and a fleet with --out-moved
    (tmp_path / "other" / run_id / "manifest.json").unlink()
    (tmp_path / "other" / run_id / "manifest" / "unit-000000.json").unlink()
    resumed = cli("resume", run_id, *st, "--out", other, "--out-moved")
    assert "1 damaged unit(s) reopened" in resumed.stdout, (resumed.stdout, resumed.stderr)
    assert "--out-moved" in resumed.stdout  # the workers need it too, and are told so
    fleet = cli("run", "--run-id", run_id, "--tasks", "1", *st, "--out", other,
                "--out-moved", "--log-dir", str(tmp_path / "logs"), cwd=tmp_path)
    assert fleet.returncode == 0, fleet.stderr
    assert cli("verify", run_id, *st, "--out", other, "--out-moved").returncode == 0
    assert cli("verify", run_id, *st).returncode == 0  # the recorded outputs untouched
    # a copy that is not there: INCOMPLETE, and the advice says where to look first
    empty = cli("status", run_id, *st, "--out", f"file://{tmp_path}/empty", "--out-moved")
    assert "none of its outputs is there" in empty.stderr, empty.stderr
    assert "--out-moved" in empty.stderr

    deleted = cli("delete", run_id, *st, "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert list(blob.list(f"{run_id}/")) == []


def test_relative_out_is_recorded_absolute_and_repairs_where_it_was_written(
    tmp_path: Path, run_id: str
) -> None:
    """``file://./out`` is recorded as an absolute path: from another directory,
    ``status``, ``resume`` and ``run`` without ``--out`` find, repair and finish the run
    where it was written (nothing appears under the new directory's ./out)."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    state = f"sqlite:///{tmp_path}/state.db"
    done = cli("run", "--run-id", run_id, "--total", "6", "--unit-size", "3", "--pack",
               "bench", "--tasks", "1", "--state", state, "--out", "file://./out",
               cwd=first)
    assert done.returncode == 0, done.stderr
    part = first / "out" / run_id / "manifest" / "unit-000001.json"
    part.unlink()  # damage one unit, and the root with it
    (first / "out" / run_id / "manifest.json").unlink()
    status = cli("status", run_id, "--state", state, cwd=second)
    assert status.returncode == 0 and "INCOMPLETE" in status.stdout
    assert f"docfleet resume {run_id}'" in status.stderr, status.stderr
    resumed = cli("resume", run_id, "--state", state, cwd=second)
    assert "1 damaged unit(s) reopened" in resumed.stdout, resumed.stdout
    again = cli("run", "--run-id", run_id, "--tasks", "1", "--state", state, cwd=second)
    assert again.returncode == 0, again.stderr
    assert part.exists() and not (second / "out").exists()
    assert cli("verify", run_id, "--state", state, cwd=second).returncode == 0


def test_a_run_without_a_recorded_uri_keeps_todays_behaviour(
    tmp_path: Path, run_id: str
) -> None:
    """A run planned before URIs were recorded (its stored parameters have no ``out``):
    every ``--out`` is taken as given, none refused."""
    state_file = tmp_path / "state.db"
    out = f"file://{tmp_path}/out"
    assert _work(f"sqlite:///{state_file}", out, run_id, tmp_path / "w.log") == 0
    with sqlite3.connect(state_file) as conn:
        (params,) = conn.execute("SELECT params FROM runs WHERE run_id = ?",
                                 (run_id,)).fetchone()
        old = json.loads(params)
        del old["out"]
        conn.execute("UPDATE runs SET params = ? WHERE run_id = ?",
                     (json.dumps(old, sort_keys=True), run_id))
    state = f"sqlite:///{state_file}"
    status = cli("status", run_id, "--state", state, "--out", out, "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["out_recorded"] is None
    assert json.loads(status.stdout)["state"] == "COMPLETED"
    other = cli("status", run_id, "--state", state, "--out", f"file://{tmp_path}/o", "--json")
    assert other.returncode == 0 and json.loads(other.stdout)["state"] == "INCOMPLETE"
    assert _work(state, out, run_id, tmp_path / "w2.log") == 0  # a worker joins as before


def test_the_rule_in_one_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`choose_out` and :func:`canonical_out`, the one rule the commands share."""
    monkeypatch.chdir(tmp_path)
    assert canonical_out("file://./out") == f"file://{tmp_path}/out"
    assert same_out("s3://b/p/?region=x", "s3://b/p?region=x")
    assert not same_out("s3://b/p", "s3://b/q")
    rec = "s3://b/p"
    assert choose_out("r", rec, None, "file://./out") == rec
    assert choose_out("r", rec, "s3://b/p/", "file://./out") == "s3://b/p/"
    assert choose_out("r", rec, "file:///x", "file://./out", moved=True) == "file:///x"
    assert choose_out("r", None, None, "file://./out") == "file://./out"  # an older run
    assert choose_out("r", None, "file:///x", "file://./out") == "file:///x"
    with pytest.raises(ConfigError, match="keeps its outputs at s3://b/p"):
        choose_out("r", rec, "file:///x", "file://./out")
    with pytest.raises(ConfigError, match="--out-moved needs --out"):
        choose_out("r", rec, None, "file://./out", moved=True)
