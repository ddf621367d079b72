"""The photo, fax and annotated capture conditions through the real Chromium: image-only
pages, every box and quadrilateral carried through the page's recorded geometry onto its
ink, every applied parameter in the ``pages`` table, and a real fleet run over every
condition that ``docfleet verify`` accepts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from docfleet.core.settings import load_settings
from docfleet.packs.base import RenderedDocument
from docfleet.packs.invoice.options import ARCHETYPES, parse_options
from docfleet.packs.invoice.pack import InvoiceSession
from docfleet.packs.sdk.locales import JURISDICTIONS
from docfleet.render.browser import Chromium
from support.capturegeom import assert_boxes_on_ink
from support.needs import require

LOCALES = tuple(JURISDICTIONS)
CONDITIONS = ("photo", "fax", "annotated")


def render(chromium: Chromium, run_id: str, **options: Any) -> RenderedDocument:
    session = InvoiceSession(parse_options(options), chromium.executable, chromium.pages,
                             chromium=chromium)
    try:
        (doc,) = session.render(run_id, range(1))
        return doc
    finally:
        session.close()


def check_params(page: dict[str, Any], condition: str) -> None:
    assert page["condition"] == condition
    if condition == "photo":
        assert -8 <= page["angle"] <= 8 and len(page["perspective"]) == 8
        assert 0 < page["lighting"] < 1 and page["background"].startswith("#")
        assert page["dpi"] == 150 and page["bits"] == 24 and 0 < page["jpeg_quality"] <= 100
        assert page["blur"] > 0 and page["noise"] > 0
    elif condition == "fax":
        assert 100 <= page["dpi"] <= 200 and page["bits"] == 1
        assert 0 < page["threshold"] < 255 and page["streaks"] >= 1
        assert abs(page["angle"]) <= 1
    else:
        assert page["bits"] == 24 and page["annotations"]
        kinds = {a["kind"] for a in page["annotations"]}
        if page["page"] == 1:
            assert {"stamp", "signature", "highlight"} <= kinds, kinds
            assert any(a["text"] for a in page["annotations"] if a["kind"] == "stamp")


@pytest.mark.parametrize("condition", CONDITIONS)
def test_every_archetype_and_locale_captures_with_boxes_on_their_ink(
    chromium: Chromium, condition: str,
) -> None:
    """Every archetype and every locale (ja-JP and ar-SA included) under ``condition``."""
    shift = CONDITIONS.index(condition) * 3
    for k in range(max(len(ARCHETYPES), len(LOCALES))):
        archetype = ARCHETYPES[(k + shift) % len(ARCHETYPES)]
        locale = LOCALES[k % len(LOCALES)]
        run_id = f"cap-{condition}-{archetype}"
        opts = {"archetypes": archetype, "locales": locale, "lines": "3-8"}
        captured = render(chromium, run_id, conditions=condition, **opts)
        clean = render(chromium, run_id, conditions="clean", **opts)
        invoice = captured.rows["invoices"][0]
        assert invoice["condition"] == condition
        assert_boxes_on_ink(captured, clean, condition, invoice["page_count"], check_params,
                            (condition, archetype, locale))
        for w in captured.rows["words"]:
            assert len(w["quad"]) == 8


def test_annotations_lie_on_the_page_and_mark_printed_values(chromium: Chromium) -> None:
    doc = render(chromium, "annot", conditions="annotated", archetypes="classic",
                 locales="de-DE", lines="2-4")
    (first, *_) = doc.rows["pages"]
    fields = [f for f in doc.rows["fields"] if f["page"] == 1]
    for a in first["annotations"]:
        assert 0 <= a["x0"] < a["x1"] <= first["width"], a
        assert 0 <= a["y0"] < a["y1"] <= first["height"], a
    (mark,) = [a for a in first["annotations"] if a["kind"] == "highlight"]
    # the highlighter covers one printed value (padded by 2 pt left and right)
    assert any(abs(mark["y0"] - f["y0"]) < 0.05 and abs(mark["y1"] - f["y1"]) < 0.05
               and abs(mark["x0"] + 2 - f["x0"]) < 0.05 for f in fields), mark
    # boxes do not move under annotation
    clean = render(chromium, "annot", conditions="clean", archetypes="classic",
                   locales="de-DE", lines="2-4")
    assert [(f["x0"], f["y0"], f["x1"], f["y1"]) for f in doc.rows["fields"]] == \
        [(f["x0"], f["y0"], f["x1"], f["y1"]) for f in clean.rows["fields"]]


def test_clean_pages_are_rows_too(chromium: Chromium) -> None:
    doc = render(chromium, "clean-pages", conditions="clean", lines="45-50")
    invoice = doc.rows["invoices"][0]
    pages = doc.rows["pages"]
    assert len(pages) == invoice["page_count"] >= 2
    assert all(p["condition"] == "clean" and p["dpi"] is None for p in pages)
    for f in doc.rows["fields"]:
        assert f["quad"] == [f["x0"], f["y0"], f["x1"], f["y0"], f["x1"], f["y1"],
                             f["x0"], f["y1"]]


def docfleet(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docfleet", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.fleet
def test_a_fleet_run_over_every_condition_verifies(tmp_path: Path) -> None:
    chromium = load_settings().chromium_path
    require(Path(chromium).exists(), f"Chromium at {chromium}")
    state, out = f"sqlite:///{tmp_path}/state.db", f"file://{tmp_path}/out"
    run = docfleet("run", "--run-id", "cond", "--total", "30", "--tasks", "1",
                   "--state", state, "--out", out, "--option",
                   "conditions=clean,scan,photo,fax,annotated", "--option", "lines=1-6")
    assert run.returncode == 0, (run.stdout[-2000:], run.stderr[-4000:])
    verify = docfleet("verify", "cond", "--out", out, timeout=120)
    assert verify.returncode == 0, verify
    root = tmp_path / "out" / "cond"
    pages = pq.read_table(root / "golden" / "pages").to_pylist()
    invoices = pq.read_table(root / "golden" / "invoices").to_pylist()
    assert sum(i["page_count"] for i in invoices) == len(pages)
    assert {p["condition"] for p in pages} == {"clean", "scan", "photo", "fax", "annotated"}
    for p in pages:
        if p["condition"] != "clean":
            assert p["dpi"] and p["bits"], p
        if p["condition"] == "scan":
            assert p["angle"] is not None and p["jpeg_quality"] and p["contrast"]
    assert all(re.fullmatch(r"\d{6}\.pdf", i["file"]) for i in invoices)
