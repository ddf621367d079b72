"""The backend registry (``docfleet.core.backends``) is the only list of state backends:
URI parsing, settings, telemetry, the tests and the benches all read it, and no other file
spells out a list of backend schemes."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from docfleet import telemetry
from docfleet.core import backends as registry
from docfleet.core import uris
from docfleet.core.errors import ConfigError
from docfleet.core.settings import load_settings
from docfleet.state import open_state_store
from support import backends, emulator_fixtures, emulators

ROOT = Path(__file__).resolve().parents[2]
SCHEMES = set(registry.schemes())
#: The registry itself, and the tests' URI makers (checked against it at import).
SOURCES_OF_TRUTH = {ROOT / "worker/docfleet/core/backends.py", ROOT / "tests/support/backends.py"}
#: Per-backend data that is not a list of backends: a backend missing here has no price.
ALLOWED: dict[Path, str] = {}  # file -> why it may list backends (none needed today)


def test_every_entry_names_an_opener_a_db_system_and_a_test_server_that_exist() -> None:
    for entry in registry.BACKENDS:
        for hook in ("opener", "init", "instrument"):
            module, _, function = getattr(entry, hook).partition(":")
            # every hook lives in the backend's own folder, docfleet/state/<backend>/
            assert module.startswith("docfleet.state.") and module.count(".") == 3, entry
            assert callable(getattr(importlib.import_module(module), function)), entry
            assert callable(entry.hook(hook)), entry
        assert entry.db_system and entry.example.startswith(entry.scheme + "://")
        if entry.test_server is not None:
            assert hasattr(emulator_fixtures, entry.test_server), entry  # the fixture
            assert entry.test_server in emulators.STARTERS, entry  # and the bench starter
    assert set(backends.STATE_URI_MAKERS) == SCHEMES == set(backends.STATE_BACKENDS)


def test_uris_settings_and_telemetry_read_the_registry() -> None:
    assert registry.schemes() == uris.STATE_SCHEMES
    assert "postgresql" in SCHEMES
    with pytest.raises(ConfigError, match="postgresql://"):
        open_state_store("nosuch://x")
    with pytest.raises(Exception, match="postgresql://"):
        load_settings(run_id="r", state="nosuch://x")
    attrs = telemetry.db_attributes("postgresql://u:secret@127.0.0.1:5432/db?schema=s")
    assert attrs["db.system.name"] == "postgresql"
    assert "secret" not in attrs["db.namespace"]
    assert telemetry.db_attributes("dynamodb://t?region=r")["db.system.name"] == "aws.dynamodb"


def _python_files() -> list[Path]:
    return [p for d in ("worker", "tests", "bench") for p in (ROOT / d).rglob("*.py")
            if ".venv" not in p.parts]


def _in_parametrize(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "parametrize":
            return True
    return False


def violations(source: str, name: str, in_worker: bool) -> list[str]:
    """Second lists of backends in ``source``: a tuple, list, set or dict naming two or
    more state schemes (outside a ``parametrize`` over specific backends, which is a test
    about those), and, in the worker outside ``state/``, a branch on a scheme."""
    tree = ast.parse(source, name)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            named = {i.value for i in items if isinstance(i, ast.Constant) and i.value in SCHEMES}
            if len(named) >= 2 and not _in_parametrize(node, parents):
                found.append(f"{name}:{node.lineno} lists {sorted(named)}")
        if in_worker and isinstance(node, ast.Compare):
            named = {c.value for c in [node.left, *node.comparators]
                     if isinstance(c, ast.Constant) and c.value in SCHEMES}
            if named:
                found.append(f"{name}:{node.lineno} branches on {sorted(named)}")
    return found


def test_no_other_file_lists_the_backends() -> None:
    problems = []
    for path in _python_files():
        if path not in SOURCES_OF_TRUTH and path not in ALLOWED:
            in_worker = "worker" in path.parts and "state" not in path.parts
            problems += violations(path.read_text(), str(path.relative_to(ROOT)), in_worker)
    assert not problems, "read docfleet.core.backends instead:\n" + "\n".join(problems)


def test_the_scan_finds_the_lists_it_forbids() -> None:
    """Not vacuous: the old ``_DB_SYSTEMS`` dict, ``STATE_SCHEMES`` tuple and if-chain are
    caught; a parametrize over two backends is not."""
    old = ('_DB = {"sqlite": "sqlite", "firestore": "gcp.firestore"}\n'
           'STATE_SCHEMES = ("sqlite", "firestore", "dynamodb")\n'
           'if scheme == "firestore":\n    pass\n')
    assert len(violations(old, "old.py", in_worker=True)) == 3
    ok = '@pytest.mark.parametrize("kind", ["dynamodb", "firestore"])\ndef t(kind): ...\n'
    assert violations(ok, "ok.py", in_worker=False) == []
