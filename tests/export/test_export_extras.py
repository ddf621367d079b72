"""An export whose library is an optional extra the install lacks (duckdb in the
generation image) is one clear error naming the extra, never an ImportError."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from docfleet.core.errors import MissingExtraError
from docfleet.export.tabular import export_duckdb


def test_duckdb_export_without_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "duckdb", None)  # `import duckdb` raises ImportError
    needs = r"duckdb:// export needs the optional extra 'export'"
    with pytest.raises(MissingExtraError, match=needs):
        export_duckdb(None, tmp_path / "run.duckdb", None)  # type: ignore[arg-type]
    assert not (tmp_path / "run.duckdb").exists()
