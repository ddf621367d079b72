"""Issue 12, item 9: a test run that is killed (SIGKILL: no atexit, no fixture teardown)
leaves no emulator process behind, and one stopped by SIGTERM stops its emulators."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import emulators
from support.needs import require

HERE = Path(__file__).resolve().parent.parent
STARTER = f"""
import sys, time
sys.path.insert(0, {str(HERE)!r})
from support import emulators
moto = emulators.start_moto()
print(moto.proc.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_test_process_leaves_no_emulator_running(sig: int) -> None:
    require(emulators.moto_available(), "moto[server] (DynamoDB/S3 emulator)")
    runner = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE,
                              text=True)
    assert runner.stdout is not None
    pid = int(runner.stdout.readline())
    assert _alive(pid)
    runner.send_signal(sig)
    runner.wait(30)
    deadline = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _alive(pid):
        os.killpg(pid, signal.SIGKILL)
        raise AssertionError(f"emulator {pid} outlived the test process killed by {sig}")
