"""A process that has loaded gRPC (a Firestore store, the Cloud Run client) can still fork
and exec children safely: ``import docfleet`` turns gRPC's fork handlers off, because with
them on the child restarts gRPC's poller thread, the close of inherited descriptors before
exec races it, and about one child in a hundred dies of SIGABRT before it runs
("epoll_wait error: Bad file descriptor"). Real processes, a real gRPC core."""

from __future__ import annotations

import os
import subprocess
import sys

# A parent with gRPC's poller busy (channels connecting to closed ports) that forks with a
# preexec_fn, the widest window between fork and exec, SPAWNS times. Without the setting
# about 1% of those children abort (15 of 1,279 here), so 300 find it with ~95% odds.
SPAWNS = 300
PARENT = f"""
import os, resource, subprocess, sys
import docfleet
import grpc
channels = [grpc.insecure_channel(f"127.0.0.1:{{9 + i}}") for i in range(4)]
for channel in channels:
    channel.subscribe(lambda state: None, try_to_connect=True)
aborted = []
for _ in range({SPAWNS}):
    child = subprocess.run([sys.executable, "-c", "pass"], capture_output=True, text=True,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
    if child.returncode:
        aborted.append((child.returncode, child.stderr.strip()[-200:]))
print(os.environ.get("GRPC_ENABLE_FORK_SUPPORT", "unset"), len(aborted), aborted[:1])
"""


def _run(code: str, env: dict[str, str] | None = None) -> str:
    base = {k: v for k, v in os.environ.items() if k != "GRPC_ENABLE_FORK_SUPPORT"}
    result = subprocess.run([sys.executable, "-c", code], env={**base, **(env or {})},
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


def test_children_of_a_grpc_loaded_process_never_abort_before_exec() -> None:
    setting, aborted, first = _run(PARENT).split(" ", 2)
    assert aborted == "0", f"{aborted} of {SPAWNS} children aborted, e.g. {first}"
    assert setting == "false"


def test_an_operators_own_grpc_fork_setting_wins() -> None:
    show = "import os, docfleet; print(os.environ['GRPC_ENABLE_FORK_SUPPORT'])"
    assert _run(show) == "false"
    assert _run(show, {"GRPC_ENABLE_FORK_SUPPORT": "true"}) == "true"
