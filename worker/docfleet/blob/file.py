"""``file://`` blob store: a directory on a local or shared file system."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from docfleet.errors import BlobNotFoundError, ConfigError


class FileBlobStore:
    """Atomic puts by temp file + rename; create-if-absent by ``link`` (atomic on POSIX)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        # file:///abs or file://./rel: a relative root never reads as a host name
        self.uri = f"file://{self.root if self.root.is_absolute() else f'./{self.root}'}"
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        if key.startswith("/") or ".." in key.split("/"):
            raise ConfigError(f"invalid blob key {key!r}", "keys are relative paths")
        return self.root / key

    def _temp(self, path: Path, data: bytes) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        return tmp

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        os.replace(self._temp(path, data), path)

    def put_if_absent(self, key: str, data: bytes) -> bool:
        path = self._path(key)
        tmp = self._temp(path, data)
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        finally:
            os.unlink(tmp)

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            raise BlobNotFoundError(f"{self.uri}/{key} does not exist") from None

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def list(self, prefix: str) -> Iterator[str]:
        base = self._path(prefix.rsplit("/", 1)[0]) if "/" in prefix else self.root
        if not base.exists():
            return iter(())
        keys = (
            p.relative_to(self.root).as_posix()
            for p in base.rglob("*")
            if p.is_file() and not p.name.startswith(".")
        )
        return iter(sorted(k for k in keys if k.startswith(prefix)))

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)
