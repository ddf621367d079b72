"""``file://`` blob store: a directory on a local or shared file system."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from docfleet.core.errors import BlobNotFoundError, ConfigError


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    """libc's ``syncfs`` (Linux), or ``None``."""
    import ctypes  # lazy: only the finalizer syncs

    try:
        return ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None


class FileBlobStore:
    """Atomic puts by temp file + rename; create-if-absent by ``link`` (atomic on POSIX).
    :meth:`put` and :meth:`put_if_absent` flush the file to stable storage before it
    takes its name; :meth:`put_unsynced` leaves that to :meth:`sync` (``SyncsLater``)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        # file:///abs or file://./rel: a relative root never reads as a host name
        self.uri = f"file://{self.root if self.root.is_absolute() else f'./{self.root}'}"
        if self.root.exists() and not self.root.is_dir():
            raise ConfigError(f"output {self.uri} is a file, not a directory",
                              "name a directory for --out / DOCFLEET_OUT")
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create output directory {self.uri}: "
                              f"{exc.strerror or exc}", "check --out / DOCFLEET_OUT") from None

    def _path(self, key: str) -> Path:
        if key.startswith("/") or ".." in key.split("/"):
            raise ConfigError(f"invalid blob key {key!r}", "keys are relative paths")
        return self.root / key

    def _real_root(self) -> str:
        real: str | None = getattr(self, "_real", None)
        if real is None:
            real = self._real = os.path.realpath(self.root)
        return real

    def _inside(self, path: Path) -> None:
        """Refuse to write ``path`` if a symbolic link on its way (checked at its deepest
        existing folder, before any folder is made) leads out of the root: documents must
        land in the root, never through a link elsewhere. The root's own place is resolved
        once (a root swapped for a link later refuses every write: nothing lands outside
        where it led). Raises :class:`ConfigError`."""
        root, top = self._real_root(), str(self.root)
        folder = os.path.dirname(path)
        while not os.path.exists(folder) and folder != top:
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        real = os.path.realpath(folder)
        if real != root and not real.startswith(root.rstrip("/") + "/"):
            rel = os.path.relpath(folder, top) if Path(folder).is_relative_to(top) else folder
            raise ConfigError(f"refusing to write {self.uri}/{path.relative_to(self.root)}: "
                              f"{self.uri}/{rel} is a link leading out of the output root "
                              f"(to {real})", "remove the link or point --out at its target")

    def _temp(self, path: Path, data: bytes, durable: bool = True) -> str:
        """A new file beside ``path`` holding ``data`` (mode 0600, as ``mkstemp`` makes
        it; flushed to stable storage when ``durable``): its name, unique across
        processes and hosts sharing the folder. Folders are made as needed."""
        self._inside(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        for attempt in range(8):
            tmp = f"{path.parent}/.{path.name}.{os.getpid()}{os.urandom(4).hex()}.tmp"
            try:
                fd = os.open(tmp, flags, 0o600)
                break
            except FileNotFoundError:  # its folder is not there yet (or just went)
                if attempt == 7:
                    raise
                path.parent.mkdir(parents=True, exist_ok=True)
            except FileExistsError:  # another writer drew the same name: draw again
                if attempt == 7:
                    raise
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
        except BaseException:  # a full or failing volume leaves no .tmp behind
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        finally:
            os.close(fd)
        return tmp

    def put(self, key: str, data: bytes, *, durable: bool = True) -> None:
        path = self._path(key)
        tmp = self._temp(path, data, durable)
        try:
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def put_unsynced(self, key: str, data: bytes) -> None:
        """:meth:`put` without the flush to stable storage (:meth:`sync` does it)."""
        self.put(key, data, durable=False)

    def sync(self) -> None:
        """Flush the root's file system to stable storage (``syncfs(2)``; ``sync(2)``
        where it is missing), this process's unsynced puts and its peers' on this
        machine included."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            syncfs = _syncfs()
            if syncfs is None or syncfs(fd) != 0:
                os.sync()
        finally:
            os.close(fd)

    def sha256_of(self, key: str, chunk: int = 1 << 20) -> tuple[str, int]:
        """sha256 hex digest and size of ``key``, read in ``chunk``-byte pieces (never the
        whole file in memory). Raises :class:`BlobNotFoundError`."""
        digest, size = hashlib.sha256(), 0
        try:
            with open(self._path(key), "rb") as fh:
                while block := fh.read(chunk):
                    digest.update(block)
                    size += len(block)
        except (FileNotFoundError, IsADirectoryError):
            raise BlobNotFoundError(f"{self.uri}/{key} does not exist") from None
        return digest.hexdigest(), size

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

    def remove_empty_folders(self, prefix: str) -> int:
        """Remove the empty folders under ``prefix`` (``RUN/``), deepest first, the
        prefix's own folder included; a folder a writer filled meanwhile stays."""
        base = self._path(prefix.rstrip("/"))
        if not base.is_dir() or base == self.root:
            return 0
        removed = 0
        folders = sorted((p for p in base.rglob("*") if p.is_dir()),
                         key=lambda p: len(p.parts), reverse=True)
        for folder in [*folders, base]:
            with contextlib.suppress(OSError):  # not empty (or gone): left as it is
                folder.rmdir()
                removed += 1
        return removed
