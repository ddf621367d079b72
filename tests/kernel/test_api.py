"""The Python API (``docfleet.generate`` / ``docfleet.open_run``) in a real Python process,
as a notebook would use it: a local fleet of real worker processes, then the golden
tables and documents read back verified."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path


def _python(code: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    env["DOCFLEET_POLL_SECONDS"] = "0.2"
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_import_docfleet_stays_cheap(tmp_path: Path) -> None:
    result = _python("""
        import sys, docfleet
        heavy = [m for m in ("pyarrow", "rich", "click", "pydantic", "docfleet.api")
                 if m in sys.modules]
        print(heavy, callable(docfleet.generate), "docfleet.api" in sys.modules)
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "True", "True"]


def test_generate_then_open_run(tmp_path: Path, run_id: str) -> None:
    result = _python(f"""
        import json, docfleet
        r = docfleet.generate({run_id!r}, total=12, tasks=2, pack="bench", unit_size=4,
                              state="sqlite:///{tmp_path}/s.db", out="file://{tmp_path}/out")
        again = docfleet.generate({run_id!r}, total=12, tasks=2, pack="bench", unit_size=4,
                                  state="sqlite:///{tmp_path}/s.db",
                                  out="file://{tmp_path}/out")
        run = docfleet.open_run({run_id!r}, out="file://{tmp_path}/out")
        table = run.table("items")
        docs = list(run.documents())
        print(json.dumps({{
            "ok": r.ok, "state": r.state, "code": r.exit_code,
            "root_documents": r.manifest["parameters"]["total"],
            "files": r.manifest["files"], "again": again.ok,
            "tables": run.tables(), "rows": table.num_rows,
            "columns": table.column_names, "first": table.column("document")[0].as_py(),
            "docs": [name for name, _ in docs], "bytes": all(len(b) > 0 for _, b in docs),
        }}))
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["ok"] and out["again"] and out["state"] == "COMPLETED" and out["code"] == 0
    assert out["root_documents"] == 12 and out["files"] == 12
    assert out["tables"] == ["items"] and out["rows"] == 12 and out["first"] == 0
    assert out["columns"] == ["document", "value", "label"]
    assert out["docs"] == [f"{i:06d}.json" for i in range(12)] and out["bytes"]


def test_generate_reports_failed_units_and_refuses_bad_setup(tmp_path: Path, run_id: str
                                                             ) -> None:
    result = _python(f"""
        import json, os, docfleet
        from docfleet.core.errors import ConfigError
        os.environ["DOCFLEET_BENCH_FAIL_INDEXES"] = "5"
        os.environ["DOCFLEET_MAX_ATTEMPTS"] = "1"
        r = docfleet.generate({run_id!r}, total=8, tasks=1, pack="bench", unit_size=4,
                              state="sqlite:///{tmp_path}/s.db", out="file://{tmp_path}/out")
        try:
            docfleet.generate("other", total=8, state="sqlite:///{tmp_path}/s.db",
                              out="file://{tmp_path}/out",
                              options={{"catalogue": "file://{tmp_path}/none/cat"}})
            refused = None
        except ConfigError as exc:
            refused = str(exc)
        try:
            docfleet.open_run("other", out="file://{tmp_path}/out")
            missing = None
        except Exception as exc:
            missing = type(exc).__name__
        print(json.dumps({{"ok": r.ok, "code": r.exit_code, "manifest": r.manifest,
                          "failed": r.failed_units, "refused": refused,
                          "missing": missing}}))
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert not out["ok"] and out["code"] == 1 and out["manifest"] is None
    assert [u["index"] for u in out["failed"]] == [1]
    assert "injected failure at document 5" in out["failed"][0]["error"]
    assert "has no root manifest" in out["refused"]
    assert out["missing"] == "RunIncompleteError"
