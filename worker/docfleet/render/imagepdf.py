"""Image-only PDFs (what a scan, photo or fax capture produces): one full-page image per
page, written by hand so the bytes depend only on the images (no dates, no ids)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ImagePage:
    """One page of an image-only PDF: the encoded image and how to place it."""

    data: bytes
    px: tuple[int, int]
    pt: tuple[float, float]
    colour: str  # DeviceRGB | DeviceGray
    bits: int
    filter: str  # DCTDecode | FlateDecode
    params: dict[str, Any] = field(default_factory=dict)


def image_pdf(pages: Sequence[ImagePage]) -> bytes:
    """A minimal PDF, one full-page image per page. No dates, no ids: same images, same
    bytes."""
    objects: list[bytes] = []
    kids = []
    for i, p in enumerate(pages):
        page_id, content_id, image_id = 3 + 3 * i, 4 + 3 * i, 5 + 3 * i
        kids.append(f"{page_id} 0 R")
        w, h = p.pt
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w:.3f} {h:.3f}] "
            f"/Resources << /XObject << /Im0 {image_id} 0 R >> >> "
            f"/Contents {content_id} 0 R >>".encode())
        draw = f"q {w:.3f} 0 0 {h:.3f} 0 0 cm /Im0 Do Q".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(draw) + draw + b"\nendstream")
        objects.append(
            f"<< /Type /XObject /Subtype /Image /Width {p.px[0]} /Height {p.px[1]} "
            f"/ColorSpace /{p.colour} /BitsPerComponent {p.bits} /Filter /{p.filter} "
            f"/Length {len(p.data)} >>\nstream\n".encode() + p.data + b"\nendstream")
    catalog = b"<< /Type /Catalog /Pages 2 0 R >>"
    tree = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode()
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate([catalog, tree, *objects], start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(offsets) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(offsets) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
              "%%EOF\n".encode())
    return out.getvalue()
