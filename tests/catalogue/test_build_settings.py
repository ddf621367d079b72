"""``catalogue build``'s task flags (``--api-base``, ``--concurrency``, ``--call-timeout``…)
reach its workers explicitly (the one-process task through its pack context, a fleet's
tasks through their environment), never by writing this process's ``os.environ``."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from click.testing import CliRunner

from docfleet.cli import main
from docfleet.dataset.catalogue import Catalogue
from docfleet.state import open_state_store
from support.fake_llm import FakeLLM


def test_a_one_task_build_takes_its_flags_and_leaves_the_environment(
        tmp_path: Path, llm: FakeLLM, monkeypatch) -> None:
    for name in [k for k in os.environ if k.startswith("DOCFLEET_")]:
        monkeypatch.delenv(name)
    def docfleet_env() -> dict[str, str]:  # (litellm's own LITELLM_* defaults aside)
        return {k: v for k, v in os.environ.items() if k.startswith("DOCFLEET_")}

    state, out = f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:  # the in-process task installs its SIGTERM/SIGINT handlers: put pytest's back
        result = CliRunner().invoke(main, [
            "catalogue", "build", "--run-id", "cat1", "--state", state, "--out", out,
            "--api-base", llm.api_base, "--concurrency", "3", "--call-timeout", "20",
            "--model", "openai/fake-a", "--price", "openai/fake-a=1,2",
            "--option", "kinds=description", "--option", "variants=1"])
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert result.exit_code == 0, result.output
    assert docfleet_env() == {}, "catalogue build wrote its flags into os.environ"
    # --api-base reached the in-process session: every item came from the local server
    assert sum(llm.books.requests.values()) > 0
    assert {e.source for e in Catalogue.load(f"{out}/cat1").entries} == {"llm"}


def test_a_bad_task_flag_is_one_line_and_plans_nothing(tmp_path: Path, monkeypatch) -> None:
    for name in [k for k in os.environ if k.startswith("DOCFLEET_")]:
        monkeypatch.delenv(name)
    state, out = f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"
    result = CliRunner().invoke(main, [
        "catalogue", "build", "--run-id", "cat1", "--state", state, "--out", out,
        "--call-timeout", "-1", "--model", "openai/fake-a", "--price", "openai/fake-a=1,2"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: invalid settings: call_timeout"), \
        result.output
    assert "DOCFLEET_CATALOGUE_CALL_TIMEOUT" in lines[0]
    assert "DOCFLEET_CATALOGUE_CALL_TIMEOUT" not in os.environ
    if (tmp_path / "state.db").exists():
        assert open_state_store(state, create=False).get_run("cat1") is None
