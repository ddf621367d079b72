"""The pack SDK's worked example (``examples/label_pack``, docs/packs.md) is a whole
third-party pack: found through the ``docfleet.packs`` entry point its own pyproject.toml
declares (a distribution's metadata on the path, not installed into the environment),
its templates loaded from its own package, run by a real ``docfleet run`` over every
locale x every capture condition, then ``docfleet verify``. Its golden tables have the
cells once each, the shared page tables beside its own, every label linked to a printed
field, and every field, label and word box of a clean PDF re-extracts its printed text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections import defaultdict
from itertools import product
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from packlib import glyphs

from docfleet.core.settings import load_settings
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.packs.sdk.options import CONDITIONS
from support.needs import require
from support.pdftext import text_in_boxes

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "label_pack"
CELLS = list(product(JURISDICTIONS, CONDITIONS))
FIELDS = {"sender_name", "sender_address", "recipient_name", "recipient_address",
          "recipient_phone", "tracking_number", "ship_date", "weight", "postage"}


def distribution(site: Path) -> None:
    """The example's distribution metadata under ``site`` (what ``pip install`` would
    write): its name and the entry points of its pyproject.toml."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    lines = []
    for group, points in project["entry-points"].items():
        lines += [f"[{group}]", *(f"{k} = {v}" for k, v in points.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


def docfleet(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docfleet", *args], capture_output=True,
                          text=True, timeout=900, cwd=cwd, env=env)


def by_document(root: Path, table: str) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = defaultdict(list)
    for row in pq.read_table(root / "golden" / table).to_pylist():
        out[row["document"]].append(row)
    return out


@pytest.mark.fleet
def test_the_example_pack_runs_verifies_and_boxes_its_text_in_every_cell(
    tmp_path: Path,
) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    site = tmp_path / "site"
    distribution(site)
    path = os.pathsep.join(p for p in (str(site), str(EXAMPLE), os.environ.get("PYTHONPATH"))
                           if p)
    env = {**os.environ, "PYTHONPATH": path}
    state, out = f"sqlite:///{tmp_path}/state.db", f"file://{tmp_path}/out"
    run = docfleet(tmp_path, env, "run", "--run-id", "labels", "--pack", "label",
                   "--total", str(len(CELLS)), "--tasks", "1", "--unit-size", "10",
                   "--state", state, "--out", out, "--option", "cover=locales,conditions",
                   "--option", "conditions=" + ",".join(CONDITIONS))
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-4000:])
    verify = docfleet(tmp_path, env, "verify", "labels", "--out", out)
    assert verify.returncode == 0 and "ok" in verify.stdout + verify.stderr, verify

    root = tmp_path / "out" / "labels"
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["parameters"]["pack"] == "label"
    assert manifest["rows"]["shipments"] == len(CELLS)
    assert {"fields", "words", "lines", "labels", "links", "cells", "pages"} <= set(
        manifest["rows"])
    heads = sorted(pq.read_table(root / "golden" / "shipments").to_pylist(),
                   key=lambda r: r["document"])
    assert sorted((r["locale"], r["condition"]) for r in heads) == sorted(CELLS)
    fields, labels = by_document(root, "fields"), by_document(root, "labels")
    words, links = by_document(root, "words"), by_document(root, "links")
    checked = 0
    for doc in heads:
        n, locale = doc["document"], doc["locale"]
        assert {f["field"] for f in fields[n]} == FIELDS, n
        assert {f["field"]: f["text"] for f in fields[n]}["tracking_number"] == \
            doc["tracking_number"]
        linked = {k["field"] for k in links[n]}
        assert linked == FIELDS, (n, FIELDS - linked)
        if doc["condition"] != "clean":
            continue
        data = (root / "documents" / doc["file"]).read_bytes()
        boxed = fields[n] + labels[n] + words[n]
        for row, got in zip(boxed, text_in_boxes(data, boxed), strict=True):
            assert glyphs(got, locale) == glyphs(row["text"], locale), (n, locale, row, got)
            checked += 1
    assert checked > 20 * len(JURISDICTIONS), checked
