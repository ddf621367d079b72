"""The cloud SDK helpers live in ``docfleet/cloud/`` (``aws``, ``gcp``): the blob stores and
the state stores both import them there, no state store imports a blob module, and none of
it loads an SDK until a cloud store is opened (the local path never imports boto3 or
google-cloud-*)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from docfleet.core.errors import ConfigError
from docfleet.state import open_state_store

ROOT = Path(__file__).resolve().parents[2] / "worker" / "docfleet"
#: module -> the cloud helper module it must take its helpers from.
USERS = {"blob/s3.py": "docfleet.cloud.aws", "state/dynamodb/client.py": "docfleet.cloud.aws",
         "blob/gcs.py": "docfleet.cloud.gcp", "state/firestore/client.py": "docfleet.cloud.gcp"}
HELPERS = {"aws_transient", "aws_client_config", "aws_error", "gcp_transient", "gcp_error",
           "emulated_gcs"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    return {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}


def test_blob_and_state_stores_take_their_cloud_helpers_from_docfleet_cloud() -> None:
    for name, helper in USERS.items():
        assert helper in _imports(ROOT / name), name
    for path in (ROOT / "state").rglob("*.py"):
        assert not any(m.startswith("docfleet.blob") for m in _imports(path)), path.name
    defined = {}
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in HELPERS:
                defined.setdefault(node.name, []).append(path.relative_to(ROOT).as_posix())
    assert defined == {h: [f"cloud/{'aws' if h.startswith('aws') else 'gcp'}.py"]
                       for h in HELPERS}


def test_the_local_path_imports_no_cloud_sdk(tmp_path: Path) -> None:
    code = f"""
import sys
import docfleet.cloud.aws, docfleet.cloud.gcp, docfleet.blob.s3, docfleet.blob.gcs
import docfleet.state.dynamodb.store, docfleet.state.firestore.store
from docfleet.blob import open_blob_store
from docfleet.state import open_state_store
store = open_state_store("sqlite:///{tmp_path / 'state.db'}")
store.close()
open_blob_store("file://{tmp_path / 'out'}").put("a", b"x")
print(sorted({{m.split('.')[0] + ('.' + m.split('.')[1] if m.startswith('google.') else '')
               for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore', 'google')}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_the_removed_firestore_claim_mode_is_refused_with_one_line() -> None:
    with pytest.raises(ConfigError) as err:
        open_state_store("firestore://p?prefix=x&claim=transaction&emulator=127.0.0.1:1")
    assert "claim=transaction was removed" in str(err.value) and "\n" not in str(err.value)
    assert "drop ?claim=" in (err.value.hint or "")
