"""Issue 26 item 8: bad input to operator commands gets one clear line and a non-zero
exit through the real CLI, never a traceback, and nothing is created or left looking
complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.errors import assert_one_line_error
from support.fleet import cli


@pytest.fixture(scope="module")
def done_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A small COMPLETED bench run on SQLite + file:// (the flags under test are
    store-independent): (state URI, output root)."""
    tmp = tmp_path_factory.mktemp("done")
    state, out = f"sqlite:///{tmp}/s.db", tmp / "out"
    result = cli("work", "--run-id", "r1", "--total", "10", "--unit-size", "5", "--state",
                 state, "--out", f"file://{out}", "--pack", "bench", cwd=tmp)
    assert result.returncode == 0, result.stderr
    return state, out


def test_an_unwritable_trace_file_is_refused_up_front(tmp_path: Path) -> None:
    result = cli("work", "--run-id", "r1", "--total", "10", "--state",
                 f"sqlite:///{tmp_path}/s.db", "--out", f"file://{tmp_path}/out", "--pack",
                 "bench", "--trace", "file:/nonexistent/dir/x.jsonl", cwd=tmp_path)
    assert_one_line_error(result, "--trace file:/nonexistent/dir/x.jsonl",
                          "existing, writable directory", code=2)
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("target", ["duckdb:////proc/nope/x.duckdb", "parquet:///proc/nope"])
def test_an_unwritable_export_target_is_one_line(done_run: tuple[str, Path],
                                                 target: str) -> None:
    state, _ = done_run
    result = cli("export", "r1", "--state", state, "--to", target)
    assert_one_line_error(result, f"cannot write the export to {target}", code=2)
    assert not Path("/proc/nope").exists()


def test_verify_creates_no_missing_output_root(done_run: tuple[str, Path],
                                               tmp_path: Path) -> None:
    state, _ = done_run
    missing = tmp_path / "missing"
    result = cli("verify", "r1", "--state", state, "--out", f"file://{missing}", "--out-moved")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and f"no output root at file://{missing}" in lines[0], lines
    assert not missing.exists()


def test_a_link_leaving_a_file_root_is_not_written_through(tmp_path: Path) -> None:
    """file:// only: a symlink inside the output root that leads elsewhere is refused on
    write; nothing lands outside the root and the run is not complete."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "r1").symlink_to(elsewhere)
    state = f"sqlite:///{tmp_path}/s.db"
    result = cli("work", "--run-id", "r1", "--total", "10", "--unit-size", "5", "--state",
                 state, "--out", f"file://{out}", "--pack", "bench", cwd=tmp_path)
    assert_one_line_error(result, "is a link leading out of the output root", code=2)
    assert list(elsewhere.iterdir()) == []
    status = cli("status", "r1", "--state", state)
    assert "COMPLETED" not in status.stdout


def test_report_output_is_a_file_and_out_is_the_uri(done_run: tuple[str, Path],
                                                    tmp_path: Path) -> None:
    """``--output`` names the HTML file, ``--out`` the output URI (as everywhere); a URI
    given to --out is never taken for a file name."""
    state, out = done_run
    page = tmp_path / "r.html"
    made = cli("report", "r1", "--state", state, "--out", f"file://{out}", "--output",
               str(page), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert page.is_file() and "note:" not in made.stderr
    refused = cli("report", "r1", "--state", state, "--out", "file:///x", cwd=tmp_path)
    assert_one_line_error(refused, "keeps its outputs at", code=2)
    assert not (tmp_path / "file:").exists() and not Path("/x").exists()


@pytest.mark.parametrize("old", [["--out", "{dir}/old.html"], ["--out-uri", "{uri}"]])
def test_report_old_spellings_still_work_with_a_note(done_run: tuple[str, Path],
                                                     tmp_path: Path, old: list[str]) -> None:
    state, out = done_run
    args = [a.format(dir=tmp_path, uri=f"file://{out}") for a in old]
    if old[0] == "--out-uri":
        args += ["--output", str(tmp_path / "old.html")]
    made = cli("report", "r1", "--state", state, *args, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    notes = [ln for ln in made.stderr.splitlines() if ln.strip()]
    assert len(notes) == 1 and "deprecated" in notes[0], notes
    assert (tmp_path / "old.html").is_file()


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    """A COMPLETED two-invoice run (html format: fields without Chromium) on SQLite +
    file://, and predictions of its totals: (state URI, output root, predictions)."""
    import json

    import pyarrow.parquet as pq

    tmp = tmp_path_factory.mktemp("scored")
    state, out = f"sqlite:///{tmp}/s.db", tmp / "out"
    result = cli("work", "--run-id", "inv", "--total", "2", "--unit-size", "2", "--state",
                 state, "--out", f"file://{out}", "--pack", "invoice", "--option",
                 "format=html", cwd=tmp)
    assert result.returncode == 0, result.stderr
    rows = [r for shard in sorted((out / "inv" / "golden" / "fields").glob("*.parquet"))
            for r in pq.read_table(shard).to_pylist() if r["field"] == "total"]
    predictions = tmp / "p.jsonl"
    predictions.write_text("".join(json.dumps({"document": r["document"], "field": "total",
                                               "value": r["value"]}) + "\n" for r in rows))
    return state, out, predictions


def test_score_output_is_a_file_and_out_is_the_recorded_uri(
        scored_run: tuple[str, Path, Path], tmp_path: Path) -> None:
    """``score --output`` names the report files (JSON, or HTML by suffix; ``-`` is JSON
    on stdout); without ``--out`` the run's recorded output URI is read, another one is
    refused in one line (item 1 as for every reader)."""
    import json

    state, _, predictions = scored_run
    report, page = tmp_path / "s.json", tmp_path / "s.html"
    made = cli("score", "inv", "--state", state, "--predictions", str(predictions),
               "--output", str(report), "--output", str(page), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "note:" not in made.stderr and "overall" in made.stdout
    scored = json.loads(report.read_text())
    assert scored["fields"]["total"]["recall"] == 1.0 and scored["documents"] == 2
    assert page.read_text().count("<svg") > 0
    piped = cli("score", "inv", "--state", state, "--predictions", str(predictions),
                "--output", "-", cwd=tmp_path)
    assert piped.returncode == 0 and json.loads(piped.stdout) == scored, piped.stderr
    refused = cli("score", "inv", "--state", state, "--predictions", str(predictions),
                  "--out", f"file://{tmp_path}/elsewhere", cwd=tmp_path)
    assert_one_line_error(refused, "keeps its outputs at", "--out-moved", code=2)
    assert not (tmp_path / "elsewhere").exists()


def test_score_old_spellings_still_work_with_a_note(scored_run: tuple[str, Path, Path],
                                                    tmp_path: Path) -> None:
    state, out, predictions = scored_run
    made = cli("score", "inv", "--state", state, "--out", f"file://{out}", "--predictions",
               str(predictions), "--json", str(tmp_path / "old.json"), "--html",
               str(tmp_path / "old.html"), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    notes = [ln for ln in made.stderr.splitlines() if ln.strip()]
    assert len(notes) == 2 and all("deprecated" in n and "--output" in n for n in notes), notes
    assert (tmp_path / "old.json").is_file() and (tmp_path / "old.html").is_file()
