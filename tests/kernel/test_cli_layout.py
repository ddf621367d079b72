"""The CLI is a thin package: every command module imports the shared options, never the
package that lists the commands (no import cycle), each command is loaded only when used,
and a task process (``docfleet work``) loads no rich and none of the launcher's, export's
or score's code."""

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
                                                  "runs", "catalogue", "store")))


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


def test_a_task_loads_only_what_it_uses(tmp_path: Path) -> None:
    state, out = f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"
    probe = (
        "import json, sys\n"
        "sys.argv = ['docfleet', 'work', '--run-id', 'r1', '--total', '2', '--pack', 'bench',"
        f" '--state', {state!r}, '--out', {out!r}]\n"
        "import docfleet.cli as cli\n"
        "def finish(code):  # report after the command instead of its os._exit\n"
        "    raise SystemExit(code)\n"
        "cli.finish = finish\n"
        "from docfleet.cli import entrypoint\n"
        "try:\n    entrypoint()\nexcept SystemExit as exc:\n    code = exc.code\n"
        f"bad = sorted(m for m in sys.modules if m.startswith({NOT_IN_A_TASK!r}))\n"
        "print(json.dumps({'code': code, 'loaded': bad}))\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, result.stdout[-2000:]
    assert report["loaded"] == [], "a task loaded modules it never uses"
