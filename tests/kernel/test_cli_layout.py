"""The CLI is a thin package: every command module imports the shared options, never the
package that lists the commands (no import cycle), each command is loaded only when used,
a task process (``docfleet work``) loads no rich, no pandas and none of the launcher's,
export's or score's code, and the launcher (``docfleet run``) none of a task's rendering
or table libraries."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import click

from docfleet.cli import COMMANDS, main

CLI = Path(__file__).resolve().parents[2] / "worker" / "docfleet" / "cli"
#: what a task never loads (the launcher's views, the export and score paths)
NOT_IN_A_TASK = ("rich", "docfleet.export", "docfleet.scoring", "docfleet.ops.fleet",
                 "docfleet.ops.fleetview", "docfleet.ops.launch", "docfleet.ops.report",
                 *(f"docfleet.cli.{m}" for m in ("export", "score", "launch", "report",
                                                  "runs", "catalogue", "store")),
                 "pandas")  # pyarrow's probes for it are answered before they import it
#: what the launcher of a local fleet never loads: its tasks render and write the tables
NOT_IN_A_LAUNCHER = ("pyarrow", "numpy", "pandas", "playwright", "pypdfium2", "pikepdf",
                     "PIL", "faker", "jinja2", "docfleet.kernel.executor")


def test_command_modules_import_the_options_not_the_package() -> None:
    for path in sorted(CLI.glob("*.py")):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            assert "docfleet.cli" not in names, f"{path.name} imports docfleet.cli"


def test_every_listed_command_resolves() -> None:
    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        command = main.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name


def _loaded(argv: list[str], unwanted: tuple[str, ...], cwd: Path) -> list[str]:
    """Run the ``docfleet`` command ``argv`` in a fresh interpreter (its :func:`finish`
    reporting instead of ending the process): the modules it loaded that start with one of
    ``unwanted``; asserts the command succeeded."""
    probe = (
        "import json, sys\n"
        f"sys.argv = {['docfleet', *argv]!r}\n"
        "import docfleet.cli as cli\n"
        "def finish(code):  # report after the command instead of its os._exit\n"
        "    raise SystemExit(code)\n"
        "cli.finish = finish\n"
        "from docfleet.cli import entrypoint\n"
        "try:\n    entrypoint()\nexcept SystemExit as exc:\n    code = exc.code\n"
        f"bad = sorted(m for m in sys.modules if m.startswith({unwanted!r}))\n"
        "print(json.dumps({'code': code, 'loaded': bad}))\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=120, cwd=cwd)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return report["loaded"]


def test_a_task_loads_only_what_it_uses(tmp_path: Path) -> None:
    state, out = f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"
    loaded = _loaded(["work", "--run-id", "r1", "--total", "2", "--pack", "bench",
                      "--state", state, "--out", out], NOT_IN_A_TASK, tmp_path)
    assert loaded == [], "a task loaded modules it never uses"


def test_the_launcher_loads_none_of_a_tasks_libraries(tmp_path: Path) -> None:
    """``docfleet run`` of the default (invoice) pack: its options are parsed and its
    tasks started and awaited without pyarrow, the browser driver, the PDF libraries or
    Faker (a task's ~0.2-0.4 s of imports, paid once more by the launcher before)."""
    state, out = f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"
    loaded = _loaded(["run", "--run-id", "r2", "--total", "2", "--tasks", "1",
                      "--option", "format=html", "--state", state, "--out", out],
                     NOT_IN_A_LAUNCHER, tmp_path)
    assert loaded == [], "the launcher loaded a task's libraries"
    assert (tmp_path / "out" / "r2" / "manifest.json").is_file()


def test_a_task_answers_pyarrows_pandas_probes_without_pandas() -> None:
    """Where pandas is installed (the dev venv: ``datasets`` brings it), a task's first
    compute call with a Python number, array conversion or Parquet write still loads no
    pandas: :func:`~docfleet.dataset.shards.skip_pandas_probe` answers both of pyarrow's
    looks (its Python shim's and its C++ converter's) first."""
    import importlib.util

    assert importlib.util.find_spec("pandas") is not None, "the dev venv has pandas"
    probe = (
        "import sys, io\n"
        "from docfleet.dataset.shards import skip_pandas_probe, shard_bytes\n"
        "skip_pandas_probe()\n"
        "import pyarrow as pa, pyarrow.compute as pc\n"
        "pc.multiply(pa.array([1.5, 2.5]), 1000.0)\n"
        "pa.scalar(3.5)\n"
        "shard_bytes(pa.schema([('a', pa.float64()), ('b', pa.list_(pa.float64()))]),"
        " [{'a': 1.0, 'b': [1.0, 2.0]}])\n"
        "print('pandas' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["False"], "pyarrow imported pandas in a task"
