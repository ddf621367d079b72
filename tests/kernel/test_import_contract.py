"""The import contract (``[tool.importlinter]`` in pyproject.toml, run by ``scripts/test``
before pytest) holds, and is not vacuous: on a copy of the package with one upward import,
one cycle, one backend importing another, or one pack importing a store, ``lint-imports``
fails and names the import. Every import inside a function is marked ``# lazy: why`` (the
contract sees those edges too; the mark says why the import waits)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "worker" / "docfleet"
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` over the package under ``root`` with the project's contracts."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([str(LINT), "--no-cache"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_package_keeps_the_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package and the project's contracts, to break one import at a time."""
    root = tmp_path_factory.mktemp("contract")
    shutil.copytree(PACKAGE, root / "docfleet", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.parametrize(("module", "line", "broken", "named"), [
    # upward: a state store reaching into the kernel (what firestore.py once did for pacing)
    ("state/rules.py", "from docfleet.kernel import pacing", "dependencies point down only",
     "docfleet.state.rules -> docfleet.kernel.pacing"),
    # upward and lazy: core reading the state registry inside a function (old core/uris.py)
    ("core/uris.py", "def _schemes():\n    from docfleet.state import base\n",
     "dependencies point down only", "docfleet.core.uris -> docfleet.state.base"),
    # a cycle inside one layer (old render/html.py <-> render/template_cache.py)
    ("render/template_cache.py", "from docfleet.render import html",
     "no import cycles", ".template_cache -> .html"),
    # one backend importing another
    ("state/firestore/client.py", "from docfleet.state.sqlite import client as _sqlite",
     "state backends do not import each other", "docfleet.state.sqlite"),
    # a pack reaching the blob store directly
    ("packs/bench.py", "from docfleet.blob import base as _blob", "packs reach the kernel",
     "docfleet.packs.bench -> docfleet.blob.base"),
])
def test_the_contract_catches_a_violation(copy: Path, module: str, line: str, broken: str,
                                          named: str) -> None:
    target = copy / "docfleet" / module
    original = target.read_text()
    target.write_text(original + "\n" + line + "\n")
    try:
        result = _lint(copy)
    finally:
        target.write_text(original)
    assert result.returncode != 0, result.stdout
    out = " ".join(result.stdout.split())
    assert f"{broken}" in out and "BROKEN" in out, out
    assert named in out, out


def lazy_imports_unmarked(source: str, name: str) -> list[str]:
    """Imports of docfleet inside a function (not under ``if TYPE_CHECKING``) whose line
    does not carry ``# lazy: <why>``."""
    tree = ast.parse(source, name)
    lines = source.splitlines()
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.ImportFrom):
                internal = node.level > 0 or (node.module or "").startswith("docfleet")
            elif isinstance(node, ast.Import):
                internal = any(a.name.startswith("docfleet") for a in node.names)
            else:
                continue
            marked = any("# lazy:" in lines[i - 1] for i in range(node.lineno,
                                                                   (node.end_lineno or 0) + 1))
            if internal and not marked:
                found.append(f"{name}:{node.lineno}")
    return found


def test_every_function_level_import_says_why_it_waits() -> None:
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        problems += lazy_imports_unmarked(path.read_text(), str(path.relative_to(ROOT)))
    assert not problems, ("an import inside a function hides an edge: move it to the top "
                          "or mark it '# lazy: <why>'\n" + "\n".join(problems))


def test_the_mark_check_finds_an_unmarked_import() -> None:
    unmarked = "def f():\n    from docfleet.core import clock\n"
    marked = "def f():\n    from docfleet.core import clock  # lazy: start-up cost\n"
    assert lazy_imports_unmarked(unmarked, "x.py") == ["x.py:2"]
    assert lazy_imports_unmarked(marked, "x.py") == []
