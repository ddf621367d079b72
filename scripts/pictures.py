"""The README's contact sheets, from real renders: one real ``docfleet run`` per pack
(invoice, receipt, purchase_order, bank_statement) with ``cover=locales,conditions`` over
en-GB, ja-JP and ar-SA x every capture condition, then the first page of each document
rasterised (pypdfium2) into

- ``docs/grid-conditions.png``: one row per pack, one column per condition (en-GB);
- ``docs/grid-locales.png``: one row per pack, ja-JP and ar-SA (clean), so the Japanese
  and Arabic words are seen;
- ``docs/form-locales.png``: the top of a clean filled form in each locale, side by side
  (a run of the form pack alike), and ``docs/locale-ja-jp.png``: the clean ja-JP invoice.

Run from the checkout with its venv (needs Chromium like any run):

    .venv/bin/python scripts/pictures.py [--out docs]

Deterministic for a given image: the same run ids render the same documents.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pypdfium2 as pdfium
from PIL import Image, ImageDraw, ImageFont

PACKS = ("invoice", "receipt", "purchase_order", "bank_statement")
HEADS = {"invoice": "invoices", "receipt": "receipts", "purchase_order": "purchase_orders",
         "bank_statement": "statements", "form": "forms"}
CONDITIONS = ("clean", "scan", "photo", "fax", "annotated")
LOCALES = ("en-GB", "ja-JP", "ar-SA")
CELL_W, CELL_H, LABEL_H, GAP = 200, 283, 22, 8
#: a form panel (its page's top, px) and the gap between panels; the ja-JP invoice's width
FORM_PANEL, FORM_GAP, INVOICE_W = 560, 20, 373
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def render_pack(pack: str, tmp: Path) -> dict[tuple[str, str], Path]:
    """(locale, condition) → the PDF a real run of ``pack`` wrote for it."""
    run_id = f"pictures-{pack}"
    tmp.mkdir(parents=True, exist_ok=True)
    total = len(LOCALES) * len(CONDITIONS)
    cmd = [sys.executable, "-m", "docfleet", "run", "--run-id", run_id, "--pack", pack,
           "--total", str(total), "--tasks", "1", "--state", f"sqlite:///{tmp}/state.db",
           "--out", f"file://{tmp}/out", "--option", "cover=locales,conditions",
           "--option", "locales=" + ",".join(LOCALES),
           "--option", "conditions=" + ",".join(CONDITIONS), "--option", "lines=4-8"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    if done.returncode != 0:
        raise SystemExit(f"docfleet run --pack {pack} failed: {done.stderr.strip()[-2000:]}")
    root = tmp / "out" / run_id
    heads = pq.read_table(root / "golden" / HEADS[pack]).to_pylist()
    return {(r["locale"], r["condition"]): root / "documents" / r["file"] for r in heads}


def thumbnail(pdf: Path) -> Image.Image:
    """The first page scaled to the cell's width, its top cut to the cell's height (a tall
    receipt shows its head), on white."""
    cell = Image.new("RGB", (CELL_W, CELL_H), "white")
    cell.paste(panel(pdf, CELL_W, CELL_H), (0, 0))
    return cell


def panel(pdf: Path, width: int, height: int | None = None) -> Image.Image:
    """The first page at ``width`` px, its top ``height`` px (default: the whole page)."""
    doc = pdfium.PdfDocument(pdf.read_bytes())
    try:
        page = doc[0]
        image = page.render(scale=2 * width / page.get_size()[0]).to_pil().convert("RGB")
    finally:
        doc.close()
    image = image.resize((width, round(image.height * width / image.width)),
                         Image.Resampling.LANCZOS)
    return image.crop((0, 0, width, min(height or image.height, image.height)))


def side_by_side(images: list[Image.Image], out: Path) -> None:
    """``images`` in a row on white, ``FORM_GAP`` apart, saved as a small PNG."""
    width = sum(i.width for i in images) + FORM_GAP * (len(images) - 1)
    canvas = Image.new("RGB", (width, max(i.height for i in images)), "white")
    left = 0
    for image in images:
        canvas.paste(image, (left, 0))
        left += image.width + FORM_GAP
    save(canvas, out)


def save(canvas: Image.Image, out: Path) -> None:
    """``canvas`` as a small PNG (128 colours)."""
    canvas.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB)")


def sheet(rows: list[tuple[str, list[tuple[str, Path]]]], out: Path) -> None:
    """A grid: one labelled row of labelled thumbnails per entry, saved as a small PNG."""
    cols = max(len(cells) for _, cells in rows)
    head_w = 130
    font = ImageFont.truetype(FONT, 13) if Path(FONT).exists() else ImageFont.load_default()
    width = head_w + cols * (CELL_W + GAP) + GAP
    height = GAP + len(rows) * (LABEL_H + CELL_H + GAP)
    canvas = Image.new("RGB", (width, height), "#f2f2f2")
    draw = ImageDraw.Draw(canvas)
    for r, (name, cells) in enumerate(rows):
        top = GAP + r * (LABEL_H + CELL_H + GAP)
        draw.text((GAP, top + LABEL_H + CELL_H // 2), name, fill="#222", font=font)
        for c, (caption, pdf) in enumerate(cells):
            left = head_w + GAP + c * (CELL_W + GAP)
            draw.text((left, top + 3), caption, fill="#222", font=font)
            canvas.paste(thumbnail(pdf), (left, top + LABEL_H))
            draw.rectangle((left - 1, top + LABEL_H - 1, left + CELL_W, top + LABEL_H + CELL_H),
                           outline="#999")
    save(canvas, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "docs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="docfleet-pictures-") as tmp:
        files = {pack: render_pack(pack, Path(tmp) / pack) for pack in (*PACKS, "form")}
        sheet([(pack, [(c, files[pack][("en-GB", c)]) for c in CONDITIONS])
               for pack in PACKS], args.out / "grid-conditions.png")
        sheet([(pack, [(loc, files[pack][(loc, "clean")]) for loc in LOCALES[1:]])
               for pack in PACKS], args.out / "grid-locales.png")
        side_by_side([panel(files["form"][(loc, "clean")], FORM_PANEL, FORM_PANEL)
                      for loc in LOCALES], args.out / "form-locales.png")
        invoice = args.out / "locale-ja-jp.png"
        panel(files["invoice"][("ja-JP", "clean")], INVOICE_W).save(invoice, optimize=True)
        print(f"wrote {invoice} ({invoice.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
