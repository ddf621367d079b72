"""``docfleet export RUN --to hf://DIR --push REPO`` publishes the dataset through
``huggingface_hub`` to the Hub ``HF_ENDPOINT`` names — here a local fake Hub
(:mod:`support.fake_hub`), never the real one — with the token from ``HF_TOKEN``, which
is sent to the Hub and never printed."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from exportlib import invoke, pack_run

from support.errors import assert_one_line_error
from support.fake_hub import FakeHub
from support.fleet import cli
from support.needs import require

TOKEN = "hf_docfleet_test_token_0123456789"


def test_push_publishes_every_split_to_the_hub(tmp_path_factory: pytest.TempPathFactory,
                                                tmp_path: Path) -> None:
    require(importlib.util.find_spec("datasets") is not None, "the datasets library (extra hf)")
    run = pack_run(tmp_path_factory, "receipt")
    receipts = run.shards("receipts").to_pylist()
    with FakeHub() as hub:
        env = {"HF_ENDPOINT": hub.url, "HF_TOKEN": TOKEN, "HF_HOME": str(tmp_path / "hf-home"),
               "HF_HUB_DISABLE_XET": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
        done = cli("export", run.run_id, "--out", run.out, "--state", run.state,
                   "--to", f"hf://{tmp_path / 'ds'}", "--no-images", "--workers", "1",
                   "--push", "docfleet/receipts", env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        assert "pushed hf://" in done.stdout and "docfleet/receipts" in done.stdout
        assert TOKEN not in done.stdout + done.stderr
        assert hub.tokens == {TOKEN}
        files = hub.repos["docfleet/receipts"]
    assert "README.md" in files
    for split in ("train", "validation", "test"):
        shard = next(p for p in files if p.startswith(f"data/{split}-"))
        table = pq.read_table(io.BytesIO(files[shard]))
        pages = sum(r["page_count"] for r in receipts if r["split"] == split)
        assert table.num_rows == pages, split
        assert {"words", "bboxes", "ner_tags", "field_tags"} <= set(table.column_names)


def test_push_needs_exactly_one_hf_target(tmp_path: Path) -> None:
    done = invoke("export", "any-run", "--out", f"file://{tmp_path}",
                  "--to", f"coco://{tmp_path / 'c'}", "--push", "org/name")
    assert_one_line_error(done, "--push publishes an hf:// export", code=2)
