"""`docfleet preview` on small real runs of every document pack, between them every capture
condition: the PNG is the page at the asked resolution with a legend below, and every
pixel drawn in a kind's colour lies on a golden box of that kind (a quad for a captured
page); every printed field is drawn. Bad input is one line; `docfleet report` of a
complete run carries thumbnails."""

from __future__ import annotations

import base64
import io
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pypdfium2 as pdfium
import pytest
from exportlib import CHROMIUM, Run, fleet_run, invoke
from PIL import Image

from docfleet.export.preview import KIND_COLOURS, shapes
from support.errors import assert_one_line_error
from support.needs import require

#: pack → (document table, the two conditions its two documents are captured under)
PACKS = {
    "invoice": ("invoices", "clean:1,annotated:1"),
    "receipt": ("receipts", "scan:1,fax:1"),
    "purchase_order": ("purchase_orders", "photo:1,clean:1"),
    "bank_statement": ("statements", "scan:1,clean:1"),
}
DPI = 72


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    require(CHROMIUM is not None, "Chromium (/usr/bin/chromium)")
    return {pack: fleet_run(tmp_path_factory.mktemp(f"preview-{pack}"), f"pv-{pack}", 2, 1,
                            pack, None, 0, "--option", f"conditions={conditions}",
                            "--option", "cover=conditions")
            for pack, (_, conditions) in PACKS.items()}


def _rows(run: Run, table: str, document: int, page: int) -> list[dict[str, Any]]:
    if not (run.root / "golden" / table).exists():
        return []
    return [r for r in run.shards(table).to_pylist()
            if r["document"] == document and r.get("page") == page]


def _rect(row: dict[str, Any], scale: float, margin: float) -> tuple[int, int, int, int]:
    """The pixel rectangle a row's drawn outline must lie in: its quad's (else its box's)
    extent, widened by the pen."""
    quad = row.get("quad")
    xs = quad[0::2] if quad else [row["x0"], row["x1"]]
    ys = quad[1::2] if quad else [row["y0"], row["y1"]]
    return (math.floor(min(xs) * scale - margin), math.floor(min(ys) * scale - margin),
            math.ceil(max(xs) * scale + margin), math.ceil(max(ys) * scale + margin))


def golden_regions(run: Run, document: int, page: int, scale: float
                   ) -> dict[str, list[tuple[int, int, int, int]]]:
    """Per kind, where the golden tables say its drawing may be (in pixels)."""
    margin = 2 * max(1, round(scale)) + 1
    labels = _rows(run, "labels", document, page)
    fields = _rows(run, "fields", document, page)
    regions = {
        "word": [_rect(r, scale, margin) for r in _rows(run, "words", document, page)],
        "cell": [_rect(r, scale, margin) for r in _rows(run, "cells", document, page)],
        "label": [_rect(r, scale, margin) for r in labels if r["kind"] == "label"],
        "header": [_rect(r, scale, margin) for r in labels if r["kind"] == "header"],
        "field": [_rect(r, scale, margin) for r in fields],
        "link": [],
    }
    keys = {r["label_id"]: _rect(r, scale, margin) for r in labels}
    values = {(r["field"], r["line"], r["occurrence"]): _rect(r, scale, margin)
              for r in fields}
    for link in _rows(run, "links", document, page):
        a = keys.get(link["label_id"])
        b = values.get((link["field"], link["line"], link["occurrence"]))
        if a and b:  # the line runs between the two boxes: inside their common extent
            regions["link"].append((min(a[0], b[0]), min(a[1], b[1]),
                                    max(a[2], b[2]), max(a[3], b[3])))
    return regions


def check_preview(run: Run, png: Path, document: int, page: int) -> dict[str, int]:
    """Assert the PNG against the golden tables; the pixels drawn per kind."""
    (file,) = [r["file"] for r in run.shards(PACKS[_pack(run)][0]).to_pylist()
               if r["document"] == document]
    pdf = pdfium.PdfDocument((run.root / "documents" / file).read_bytes())
    base = np.asarray(pdf[page - 1].render(scale=DPI / 72).to_pil().convert("RGB"))
    pdf.close()
    (geometry,) = [r for r in run.shards("pages").to_pylist()
                   if r["document"] == document and r["page"] == page]
    image = np.asarray(Image.open(png).convert("RGB"))
    height, width = base.shape[:2]
    assert abs(width - geometry["width"] * DPI / 72) <= 1
    assert abs(height - geometry["height"] * DPI / 72) <= 1
    assert image.shape[1] == width and image.shape[0] > height, "the page, a legend below"
    drawn_page = image[:height]
    changed = (drawn_page != base).any(axis=2)
    regions = golden_regions(run, document, page, DPI / 72)
    counts = {}
    for kind, colour in KIND_COLOURS.items():
        mask = changed & (drawn_page == np.array(colour, dtype=np.uint8)).all(axis=2)
        allowed = np.zeros_like(mask)
        for x0, y0, x1, y1 in regions[kind]:
            allowed[max(y0, 0):y1, max(x0, 0):x1] = True
        counts[kind] = int(mask.sum())
        stray = mask & ~allowed
        assert not stray.any(), (f"{kind}: {int(stray.sum())} pixels off every golden box, "
                                 f"first at {np.argwhere(stray)[0]}")
        assert bool(counts[kind]) == bool(regions[kind]), kind
    fields = np.zeros_like(changed)
    fields |= changed & (drawn_page == np.array(KIND_COLOURS["field"], np.uint8)).all(axis=2)
    for x0, y0, x1, y1 in regions["field"]:
        assert fields[max(y0, 0):y1, max(x0, 0):x1].any(), "every printed field is drawn"
    return counts


def _pack(run: Run) -> str:
    return run.run_id.removeprefix("pv-")


@pytest.mark.parametrize("pack", list(PACKS))
def test_preview_draws_every_kind_on_its_golden_boxes(runs: dict[str, Run], pack: str,
                                                      tmp_path: Path) -> None:
    run = runs[pack]
    pages = run.shards("pages").to_pylist()
    conditions = set()
    for document in (0, 1):
        last = max(p["page"] for p in pages if p["document"] == document)
        for page in sorted({1, last}):
            png = tmp_path / f"d{document}p{page}.png"
            done = invoke("preview", run.run_id, str(document), "--page", str(page),
                          "--dpi", str(DPI), "--state", run.state, "--output", str(png))
            assert done.returncode == 0, done.stderr
            assert f"document {document} page {page}/{last}" in done.stdout
            counts = check_preview(run, png, document, page)
            assert counts["field"] and counts["word"] and counts["label"], counts
            if page == 1:
                assert counts["link"], "the keys are linked to their values"
            conditions.add(next(p["condition"] for p in pages if p["document"] == document))
    assert conditions == set(re.findall(r"[a-z]+", PACKS[pack][1])), "the captures asked"
    if pack == "invoice":  # the invoice prints its line items as a table
        assert counts["cell"] or not _rows(run, "cells", 1, 1)


def test_preview_bad_input_is_one_line(runs: dict[str, Run], tmp_path: Path) -> None:
    run = runs["invoice"]
    png = tmp_path / "x.png"
    base = ("--state", run.state, "--output", str(png))
    assert_one_line_error(invoke("preview", run.run_id, "2", *base),
                          "document 2 is not in run pv-invoice", "0 to 1", code=2)
    assert_one_line_error(invoke("preview", run.run_id, "0", "--page", "9", *base),
                          "there is no page 9", "--page 1 to", code=2)
    assert_one_line_error(invoke("preview", "no-such-run", "0", *base),
                          "run no-such-run is not in state store", "docfleet list", code=2)
    assert not png.exists(), "nothing written"
    html = fleet_run(tmp_path / "html", "pv-html", 1, 1, "receipt", None, 0,
                     "--option", "format=html")
    assert_one_line_error(invoke("preview", html.run_id, "0", "--state", html.state,
                                 "--output", str(png)),
                          "not a PDF", "format=pdf", code=2)
    assert not png.exists()
    # a run of a content version before ink truth (receipt 2): no ink boxes to draw
    inkless = fleet_run(tmp_path / "inkless", "pv-inkless", 1, 1, "receipt", None, 0,
                        "--option", "content=2")
    assert_one_line_error(invoke("preview", inkless.run_id, "0", "--state", inkless.state,
                                 "--boxes", "ink_box", "--output", str(png)),
                          "has no ink boxes", "--boxes box", code=2)
    assert not png.exists()


def test_report_shows_thumbnails_of_a_complete_run(runs: dict[str, Run],
                                                   tmp_path: Path) -> None:
    run = runs["receipt"]
    page = tmp_path / "report.html"
    done = invoke("report", run.run_id, "--state", run.state, "--output", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    thumbs = re.findall(r'<figure\s+data-document="(\d+)"><img alt="[^"]*" '
                        r'src="data:image/png;base64,([A-Za-z0-9+/=]+)">', text)
    assert [int(d) for d, _ in thumbs] == [0, 1]
    for _, data in thumbs:
        image = Image.open(io.BytesIO(base64.b64decode(data)))
        assert image.format == "PNG" and 40 < image.width < 400
    assert not re.search(r"""(src|href)\s*=\s*["'](?!data:)|@import|url\(""", text), \
        "self-contained: nothing but data URIs"


def test_ink_boxes_are_drawn_where_a_run_has_them() -> None:
    """The shape chosen per row (hand-made rows in the ink helper's columns: ``ink_x0`` …
    ``ink_y1``, ``ink_quad``): the ink quad, else the ink box, with ``--boxes ink_box``;
    a table without ink columns (cells) keeps its box; links join the typographic boxes."""
    box = {"page": 1, "x0": 10.0, "y0": 20.0, "x1": 50.0, "y1": 30.0}
    tables = {
        "words": [{**box, "quad": None, "ink_x0": 11.0, "ink_y0": 22.0, "ink_x1": 49.0,
                   "ink_y1": 28.0, "ink_quad": None}],
        "fields": [{**box, "field": "total", "line": None, "occurrence": 0,
                    "quad": [10.0, 20.0, 50.0, 20.0, 50.0, 30.0, 10.0, 30.0],
                    "ink_x0": 11.0, "ink_y0": 22.0, "ink_x1": 49.0, "ink_y1": 28.0,
                    "ink_quad": [11.0, 22.0, 49.0, 23.0, 49.0, 28.0, 11.0, 27.0]}],
        "labels": [{"page": 1, "x0": 0.0, "y0": 0.0, "x1": 8.0, "y1": 4.0, "kind": "label",
                    "label_id": 0, "ink_x0": 1.0, "ink_y0": 1.0, "ink_x1": 7.0,
                    "ink_y1": 3.0}],
        "cells": [{**box}],
        "links": [{"page": 1, "label_id": 0, "field": "total", "line": None,
                   "occurrence": 0}],
    }
    ink = shapes(tables, 1, "ink_box")
    assert ink["word"] == [((11.0, 22.0), (49.0, 22.0), (49.0, 28.0), (11.0, 28.0))]
    assert ink["field"] == [((11.0, 22.0), (49.0, 23.0), (49.0, 28.0), (11.0, 27.0))]
    assert ink["label"] == [((1.0, 1.0), (7.0, 1.0), (7.0, 3.0), (1.0, 3.0))]
    assert ink["cell"] == [((10.0, 20.0), (50.0, 20.0), (50.0, 30.0), (10.0, 30.0))]
    assert ink["link"] == [((4.0, 2.0), (30.0, 25.0))]
    typographic = shapes(tables, 1, "box")
    assert typographic["word"] == typographic["cell"] == typographic["field"]
    assert shapes(tables, 2, "box") == {kind: [] for kind in KIND_COLOURS}
