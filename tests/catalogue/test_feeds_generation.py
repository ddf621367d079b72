"""The catalogue artifact feeds a generation run: invoices generated with
``--option catalogue=URI`` print the model-written descriptions (and their golden rows
say so), deterministically, with no key and no provider reachable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docfleet.blob import open_blob_store
from docfleet.dataset.catalogue import Catalogue
from docfleet.dataset.manifest import RunFiles
from docfleet.dataset.shards import read_shard
from support.fake_llm import FakeLLM

pytestmark = pytest.mark.fleet


def env() -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DOCFLEET_")}
    return {**base, "OPENAI_API_KEY": "sk-fake-key-for-the-local-test-server",
            "DOCFLEET_LOG_FORMAT": "json"}


def test_generation_with_a_catalogue_prints_its_text(tmp_path: Path, llm: FakeLLM) -> None:
    llm.behave("fake-a", marker="Zephyr")
    state, out = f"sqlite:///{tmp_path / 'state.db'}", f"file://{tmp_path / 'out'}"
    build = subprocess.run(
        [sys.executable, "-m", "docfleet", "catalogue", "build", "--run-id", "cat1",
         "--state", state, "--out", out, "--api-base", llm.api_base,
         "--model", "openai/fake-a", "--price", "openai/fake-a=1,2", "--concurrency", "8",
         "--option", "kinds=description", "--option", "variants=1"],
        env=env(), capture_output=True, text=True, timeout=240)
    assert build.returncode == 0, build.stdout + build.stderr
    uri = f"{out}/cat1"
    catalogue = Catalogue.load(uri)
    assert len(catalogue.entries) == 32 and {e.source for e in catalogue.entries} == {"llm"}
    llm_texts = {e.text for e in catalogue.entries}
    served_before = dict(llm.books.requests)

    def generate(state: str, out: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "docfleet", "run", "--run-id", "inv1", "--total", "6",
             "--pack", "invoice", "--state", state, "--out", out, "--tasks", "1",
             "--option", f"catalogue={uri}", "--option", "format=html",
             "--option", "lines=2-4", "--log-dir", str(tmp_path / "logs" / state[-8:]),
             # the locales the catalogue was built for (a locale it lacks falls back to the
             # procedural vocabulary)
             "--option", "locales=en-US,en-GB,fr-FR,de-DE"],
            env=env(), capture_output=True, text=True, timeout=240)

    def golden(out: str) -> list[dict]:
        files = RunFiles(open_blob_store(out), "inv1")
        return [row for key in sorted(files.blob.list(files.key("golden/line_items/")))
                for row in read_shard(files.blob.get(key)).to_pylist()]

    gen = generate(state, out)
    assert gen.returncode == 0, gen.stdout + gen.stderr
    files = RunFiles(open_blob_store(out), "inv1")
    docs = sorted(k for k in files.blob.list(files.key("documents/")))
    assert docs
    html = "".join(files.blob.get(k).decode() for k in docs)
    assert any(t in html for t in llm_texts), "no catalogue text printed on the documents"
    described = {row["description"] for row in golden(out)}
    assert described and described <= llm_texts  # every printed line came from the catalogue
    assert llm.books.requests == served_before  # generation made no LLM call
    # deterministic: the same run elsewhere, with the same catalogue, prints the same lines
    out2 = f"file://{tmp_path / 'out2'}"
    assert generate(f"sqlite:///{tmp_path / 'state2.db'}", out2).returncode == 0
    assert golden(out2) == golden(out)
