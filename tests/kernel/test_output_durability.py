"""Where a run's outputs become durable on ``file://``: a unit's documents, shards and
part are written without a flush each (atomic, visible at once: a crashed process loses
nothing the kernel holds), and the finalizer flushes the file system once before it
writes the root manifest, so a root never outlives the files it proves."""

from __future__ import annotations

import logging
from pathlib import Path

from docfleet.blob.base import SyncsLater
from docfleet.blob.file import FileBlobStore
from docfleet.dataset.manifest import RunFiles
from docfleet.kernel.finalize import ROOT_KEY, finalize_run
from docfleet.state.sqlite.store import SQLiteStateStore
from support.fleet import cli


class RecordingFiles(FileBlobStore):
    """The real file store, noting the order of its writes and flushes."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.calls: list[str] = []

    def put_unsynced(self, key: str, data: bytes) -> None:
        self.calls.append(f"unsynced {key}")
        super().put_unsynced(key, data)

    def put_if_absent(self, key: str, data: bytes) -> bool:
        self.calls.append(f"durable {key}")
        return super().put_if_absent(key, data)

    def sync(self) -> None:
        self.calls.append("sync")
        super().sync()


def test_unsynced_puts_are_atomic_and_visible(tmp_path: Path) -> None:
    store = FileBlobStore(tmp_path)
    assert isinstance(store, SyncsLater)
    store.put_unsynced("r/documents/000001.json", b"one")
    store.put_unsynced("r/documents/000001.json", b"two")
    assert store.get("r/documents/000001.json") == b"two"
    store.sync()
    assert sorted(p.name for p in (tmp_path / "r/documents").iterdir()) == ["000001.json"]


def test_unit_outputs_are_unsynced_and_the_finalizer_syncs_before_the_root(
        tmp_path: Path) -> None:
    state, out = f"sqlite:///{tmp_path}/s.db", tmp_path / "out"
    done = cli("work", "--run-id", "r1", "--total", "3", "--unit-size", "1", "--pack",
               "bench", "--state", state, "--out", f"file://{out}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    root = out / "r1" / ROOT_KEY
    proof = root.read_bytes()
    root.unlink()  # the finalizer writes it again, through the recording store
    blob = RecordingFiles(out)
    files = RunFiles(blob, "r1")
    files.put("documents/000000.json", (out / "r1/documents/000000.json").read_bytes())
    store = SQLiteStateStore(tmp_path / "s.db")
    assert finalize_run(store, files, logging.getLogger("t"))
    assert blob.calls == ["unsynced r1/documents/000000.json", "sync", f"durable r1/{ROOT_KEY}"]
    assert root.read_bytes() == proof
